"""Cold compile and module load of the demo's math_mix task: whole libdevice vs per function.

Three pipelines, each in a fresh process (so libdevice is parsed cold, as in a new compile-pool
worker), measured in the same run:

- `whole_v4` (before issue 12): the body coarsened 4x (5 copies of the libdevice-heavy body),
  all of libdevice linked, then internalised and optimised; reproduced here from the old
  `compile_module` (20 lines) with coarsening forced on;
- `per_function`: today's default codegen (no coarsening for libdevice bodies) and only the
  `__nv_*` functions the task calls linked (`compiler/libdevice.py`); fast math off;
- `per_function_fast_math`: the same with fast math on (Quadrants' default).

Compile = codegen + LLVM (parse, link, optimise, emit PTX), best of 3 fresh processes. On a GPU,
each PTX is also loaded with `cuModuleLoadDataEx` in a fresh process with an empty driver cache
(cold: the driver JIT-compiles PTX to SASS), best of 3.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

from _common import ROOT, emit

MODES = ("whole_v4", "per_function", "per_function_fast_math")


def compile_child(mode):
    t0 = time.perf_counter()
    from llvmlite import binding as llvm  # noqa: F401 - import cost belongs to every mode alike
    import qdexplorer.codegen.task_module as tmod
    from qdexplorer.codegen.math_lib import libdevice_path
    from qdexplorer.compiler.stages import CompileRequest, compile_module
    from qdexplorer.project.loader import load_project
    task = load_project(None).kernels["math_mix"].tasks()[0]
    lib = libdevice_path()
    t1 = time.perf_counter()
    fast = mode.endswith("fast_math")
    if mode == "whole_v4":
        tmod.calls_libdevice = lambda task, fast: False  # the old codegen coarsened every range_for
    tm = tmod.build_task_module(task, tmod.CodegenOptions("nvptx", lib, fast_math=fast, vector=4))
    req = CompileRequest(task.name, "nvptx", (tm.text,), (tm.entry,), libdevice=lib, fast_math=fast)
    ptx = whole_link_compile(req) if mode == "whole_v4" else compile_module(req).output
    t2 = time.perf_counter()
    print(json.dumps({"imports_s": t1 - t0, "compile_s": t2 - t1, "vector": tm.vector, "ptx": ptx.decode()}))


def whole_link_compile(req):
    """The pre-issue-12 pipeline: link all of libdevice (preserve=True clones it), then optimise."""
    from qdexplorer.machine.llvm_binding import llvm_binding
    llvm = llvm_binding()
    mod = llvm.parse_assembly(req.texts[0])
    tm = llvm.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(
        cpu=req.arch, features=f"+{req.ptx_isa}", opt=req.opt_level)
    with open(req.libdevice, "rb") as fh:
        lib = llvm.parse_bitcode(fh.read())
    lib.triple = "nvptx64-nvidia-cuda"
    mod.link_in(lib, preserve=True)
    mod.data_layout = str(tm.target_data)
    for f in mod.functions:
        if not f.is_declaration and f.name not in req.entries:
            f.linkage = "internal"
    for g in mod.global_variables:
        if not g.is_declaration:
            g.linkage = "internal"
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=req.opt_level))
    pb.getModulePassManager().run(mod, pb)
    return tm.emit_assembly(mod).replace("\x00", "").encode()


def load_child(path):
    from qdexplorer.runtime.cuda.backend import CudaBackend
    ptx = open(path, "rb").read()
    be = CudaBackend()
    t0 = time.perf_counter()
    be.modules.load_ptx(ptx, "math_mix_kernel_0_range_for")
    print(json.dumps({"load_ms": (time.perf_counter() - t0) * 1e3}))


def run(args, env=None):
    p = subprocess.run([sys.executable, __file__] + args, capture_output=True, text=True, check=True,
                       env=dict(env or os.environ, PYTHONPATH=ROOT))
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--compile":
        return compile_child(sys.argv[2])
    if len(sys.argv) > 2 and sys.argv[1] == "--load":
        return load_child(sys.argv[2])
    from qdexplorer.codegen.math_lib import libdevice_path
    from qdexplorer.runtime.cuda.detect import cuda_status
    if libdevice_path() is None:
        emit({"benchmark": "libdevice_link", "skipped": "libdevice.10.bc not found"})
        return
    gpu = cuda_status().available
    tmp = tempfile.mkdtemp()
    rows = {}
    for mode in MODES:
        runs = [run(["--compile", mode]) for _ in range(3)]
        best = min(runs, key=lambda r: r["compile_s"])
        path = os.path.join(tmp, f"{mode}.ptx")
        with open(path, "w") as fh:
            fh.write(best["ptx"])
        row = {"compile_s": round(best["compile_s"], 4), "compile_s_all": [round(r["compile_s"], 4) for r in runs],
               "vector": best["vector"], "ptx_bytes": len(best["ptx"])}
        if gpu:
            loads = [run(["--load", path], dict(os.environ, CUDA_CACHE_PATH=os.path.join(tmp, f"nv-{mode}-{i}")))
                     for i in range(3)]
            row["cold_load_ms"] = round(min(r["load_ms"] for r in loads), 2)
            row["cold_load_ms_all"] = [round(r["load_ms"], 2) for r in loads]
        rows[mode] = row
    base = rows["whole_v4"]
    for mode in MODES[1:]:
        r = rows[mode]
        r["compile_speedup"] = round(base["compile_s"] / r["compile_s"], 2)
        if gpu:
            r["load_speedup"] = round(base["cold_load_ms"] / r["cold_load_ms"], 2)
            r["compile_plus_load_speedup"] = round((base["compile_s"] * 1e3 + base["cold_load_ms"]) /
                                                   (r["compile_s"] * 1e3 + r["cold_load_ms"]), 2)
    emit({"benchmark": "libdevice_link", "task": "math_mix_kernel_0_range_for", "modes": rows})


if __name__ == "__main__":
    main()
