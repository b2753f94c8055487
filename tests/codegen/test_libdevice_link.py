"""Libdevice is linked per function: a task gets the `__nv_*` functions it calls and their
callees, not all 575; and a body that inlines libdevice is not coarsened (its PTX stays small)."""
import pytest

import qdexplorer.lang as qd
from qdexplorer.codegen import CodegenOptions, build_task_module
from qdexplorer.codegen.math_lib import libdevice_path
from qdexplorer.compiler.libdevice import libdevice_subset
from qdexplorer.compiler.stages import CompileRequest, compile_module
from qdexplorer.machine.llvm_binding import llvm_binding

pytestmark = pytest.mark.skipif(libdevice_path() is None, reason="libdevice.10.bc not found (install "
                                "nvidia-nvvm or a CUDA toolkit, or set QDEXPLORER_LIBDEVICE)")
F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)


def nvptx_tm(llvm):
    return llvm.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(cpu="sm_90", opt=3)


def test_subset_holds_only_the_requested_functions_and_their_callees():
    llvm = llvm_binding()
    sub = libdevice_subset(llvm, libdevice_path(), ["__nv_sinf"], nvptx_tm(llvm))
    defined = [f for f in sub.functions if not f.is_declaration]
    visible = [f.name for f in defined if f.linkage.name != "internal"]
    assert visible == ["__nv_sinf"]
    assert 1 <= len(defined) < 10  # libdevice defines 575 functions
    # a second set is trimmed separately; the first is served from the per-process memo
    two = libdevice_subset(llvm, libdevice_path(), ["__nv_atan2f", "__nv_powf"], nvptx_tm(llvm))
    assert {f.name for f in two.functions if not f.is_declaration and f.linkage.name != "internal"} == \
        {"__nv_atan2f", "__nv_powf"}


def test_unknown_function_is_a_clear_error():
    llvm = llvm_binding()
    with pytest.raises(RuntimeError, match="has no __nv_nosuchf"):
        libdevice_subset(llvm, libdevice_path(), ["__nv_nosuchf"], nvptx_tm(llvm))


def test_compile_log_names_what_was_linked():
    @qd.kernel
    def k(x: F1):
        for i in range(x.shape[0]):
            x[i] = qd.atan2(x[i], 2.0) + qd.tanh(x[i])

    task = k.tasks()[0]
    tm = build_task_module(task, CodegenOptions("nvptx", libdevice_path()))
    res = compile_module(CompileRequest(task.name, "nvptx", (tm.text,), (tm.entry,), libdevice=libdevice_path()))
    assert res.ok, res.error
    assert any("__nv_atan2f, __nv_tanhf and their callees" in line for line in res.log)


def test_libdevice_bodies_are_not_coarsened():
    @qd.kernel
    def heavy(x: F1):
        for i in range(x.shape[0]):
            x[i] = qd.atan2(x[i], 2.0)

    @qd.kernel
    def light(x: F1):
        for i in range(x.shape[0]):
            x[i] = qd.sin(x[i])  # sin.approx under fast math: no libdevice, still coarsened

    h = build_task_module(heavy.tasks()[0], CodegenOptions("nvptx", libdevice_path(), vector=4))
    assert h.vector == 1 and any(line.startswith("coarsening off") for line in h.log)
    on = build_task_module(light.tasks()[0], CodegenOptions("nvptx", libdevice_path(), fast_math=True, vector=4))
    off = build_task_module(light.tasks()[0], CodegenOptions("nvptx", libdevice_path(), fast_math=False, vector=4))
    assert on.vector == 4 and off.vector == 1


def test_only_contiguous_1d_loops_are_coarsened():
    F2 = qd.types.ndarray(dtype=qd.f32, ndim=2)

    @qd.kernel
    def axpy(x: F1, y: F1, out: F1):
        for i in range(1, x.shape[0] - 1):
            out[i] = 2.0 * x[i] + y[i - 1] + y[i + 1]  # a[i +- c]: merged into vector accesses
            out[0] += x[i]  # a loop-invariant element does not spoil it

    @qd.kernel
    def rows(p: F2):
        for i in range(p.shape[0]):
            p[i, 1] = p[i, 0] * 2.0  # 2-D element per index: no vector access to merge

    @qd.kernel
    def grid(p: F2):
        for i, j in qd.ndrange(p.shape[0], p.shape[1]):
            p[i, j] = 1.0  # adjacent flat indices may straddle a row

    @qd.kernel
    def gather(x: F1, idx: qd.types.ndarray(dtype=qd.i32, ndim=1), out: F1):
        for i in range(x.shape[0]):
            out[i] = x[idx[i]]

    vec = {k.name: build_task_module(k.tasks()[0], CodegenOptions("nvptx", vector=4)).vector
           for k in (axpy, rows, grid, gather)}
    assert vec == {"axpy": 4, "rows": 1, "grid": 1, "gather": 1}
    tm = build_task_module(axpy.tasks()[0], CodegenOptions("nvptx", vector=4))
    res = compile_module(CompileRequest(tm.task, "nvptx", (tm.text,), (tm.entry,)))
    assert "ld.global.nc.v4.b32" in res.output.decode() or "ld.global.nc.v4.f32" in res.output.decode()
