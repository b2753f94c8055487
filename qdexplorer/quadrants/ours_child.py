"""Runs inside a child interpreter: the same Quadrants program under `qdexplorer.lang` ("change the import").

Executed by path with qdexplorer on PYTHONPATH. `import quadrants` is answered with qdexplorer.lang,
every kernel call is recorded with its argument specialisation, and launch times are taken from
the device's own timings. Script calls skip per-launch GPU timing (no CUDA events: nobody reads
them), which left every CUDA time at its 0.0 placeholder and `--ours` printing 0.0000 ms; here the
calls are made timed, and a launch that reports no time is not recorded as one of 0 ms. At the end each called kernel is lowered to its tasks, and each task is
compiled to PTX (LLVM's NVPTX backend needs no GPU) for its size. One JSON result file, whatever
happens to the program.
"""
import json
import sys

import qdexplorer.lang as lang
from qdexplorer.compiler.cache import PtxCache
from qdexplorer.compiler.pipeline import Pipeline
from qdexplorer.compiler.pool import InlineCompiler
from qdexplorer.compiler.safe_files import write_file
from qdexplorer.quadrants.ours import registers
from qdexplorer.quadrants.qdx_run_main import run_as_main
from qdexplorer.runtime import device


def launch_recorder(timings):
    """An observer of the script's launches (device.observe_launches: timed, their times final) that
    records each launch's time by task."""
    def record(launches):
        for tm in launches:
            if tm.grid and tm.ms > 0:  # grid 0: nothing launched, nothing to time
                timings.setdefault(tm.task, []).append(tm.ms)
    return record


def main(argv):
    result_path, arch, script, args = argv[0], argv[1], argv[2], argv[3:]
    out = {"script": script, "error": None, "kernels": [], "seconds": 0.0}
    kernel_mod = sys.modules["qdexplorer.lang.kernel"]  # the attribute `kernel` is the decorator
    sys.modules["quadrants"] = lang
    calls: dict = {}
    timings: dict = {}
    real_call = kernel_mod.Kernel.__call__

    def call(self, *a, **kw):
        bound = self.bind(*a, **kw)
        try:
            spec = self.spec_for(tuple(bound[n] for n in self.arg_names))
            calls.setdefault((id(self), spec), (self, spec))
        except Exception:  # noqa: BLE001 - the real call reports bad arguments itself
            pass
        return real_call(self, *a, **kw)
    kernel_mod.Kernel.__call__ = call
    device.observe_launches(launch_recorder(timings))
    real_init = lang.init

    def init(*a, **kw):
        if arch in ("cpu", "cuda"):
            kw["arch"], a = arch, a[1:]
        return real_init(*a, **kw)
    lang.init = init  # `qd.init` is looked up on the module at call time

    run_as_main(script, args, out, __file__)
    status = out.pop("exit_code", 0)
    if status and not out["error"]:
        out["error"] = f"the program exited with {status!r}"
    try:
        pipeline = Pipeline(InlineCompiler(), PtxCache(enabled=False))
    except Exception:  # noqa: BLE001 - sizes are optional
        pipeline = None
    for kernel, spec in calls.values():
        k = {"kernel": kernel.name, "file": kernel.file, "line": kernel.line, "tasks": []}
        try:
            tasks = kernel.tasks(spec)
        except Exception as e:  # noqa: BLE001
            k["error"] = str(e)
            out["kernels"].append(k)
            continue
        ptx = {}
        if pipeline is not None:
            try:
                ptx = {ct.task: ct.generated for ct in pipeline.compile(tasks, "nvptx") if ct.ok}
            except Exception:  # noqa: BLE001
                ptx = {}
        for t in tasks:
            text = ptx.get(t.name, b"")
            k["tasks"].append({"name": t.name, "index": t.index, "type": t.type, "loop_name": t.loop_name or "",
                               "ptx_bytes": len(text) if text else None,
                               "registers": registers(text.decode(errors="replace"), t.name),
                               "launches_ms": timings.get(t.name, [])})
        out["kernels"].append(k)
    write_file(result_path, json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
