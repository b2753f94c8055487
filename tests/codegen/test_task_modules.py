"""Every demo task is its own self-contained module: it parses, verifies and compiles alone."""
import re

import pytest

from qdexplorer.codegen import CodegenOptions, build_task_module
from qdexplorer.codegen.math_lib import libdevice_path
from qdexplorer.codegen.task_module import CodegenError
from qdexplorer.compiler.pool import compile_isolated
from qdexplorer.compiler.stages import CompileRequest, compile_module
from qdexplorer.project.loader import load_project


def demo_tasks():
    proj = load_project(None)
    return [t for k in proj.kernels.values() for t in k.tasks()]


def test_demo_has_enough_kernels_and_tasks():
    proj = load_project(None)
    assert len(proj.kernels) >= 6
    assert len(demo_tasks()) >= 15
    assert {"saxpy", "particle_step", "jacobi", "block_sum", "math_mix", "matmul"} <= set(proj.kernels)
    for w in proj.workloads.values():
        assert w.check is not None, f"workload {w.name} checks nothing"


@pytest.mark.parametrize("task", demo_tasks(), ids=lambda t: t.name)
def test_demo_task_ptx_is_self_contained(task):
    tm = build_task_module(task, CodegenOptions("nvptx", libdevice_path()))
    # only intrinsics and libdevice may be declared; everything else is defined here
    for decl in re.findall(r'^declare .*?@"?([\w.$]+)"?\(', tm.text, re.M):
        assert decl.startswith(("llvm.", "__nv_")), decl
    assert "external" not in tm.text
    res = compile_module(CompileRequest(task.name, "nvptx", (tm.text,), (tm.entry,), libdevice=libdevice_path()))
    assert res.ok, res.error
    ptx = res.output.decode()
    assert re.search(rf"\.visible \.entry {re.escape(task.name)}\(", ptx)
    assert b"\x00" not in res.output
    assert ".target sm_90" in ptx and ".version 8.5" in ptx
    assert ".extern" not in ptx  # nothing left to resolve against another module
    if task.shared:
        assert re.search(r"\.shared \.align \d+ \.b8 \S+\[\d+\]", ptx)
        assert "internal addrspace(3) global" in tm.text


@pytest.mark.parametrize("task", [t for t in demo_tasks() if not t.uses_block_features], ids=lambda t: t.name)
def test_demo_task_host_module_compiles(task):
    tm = build_task_module(task, CodegenOptions("host"))
    res = compile_module(CompileRequest(task.name, "host", (tm.text,), (tm.entry,)))
    assert res.ok, res.error
    assert res.output[:4] == b"\x7fELF"


def test_block_features_refused_on_host():
    t = next(t for t in demo_tasks() if t.uses_block_features)
    with pytest.raises(CodegenError, match="only the CUDA backend runs"):
        build_task_module(t, CodegenOptions("host"))


def test_arch_flag_reaches_ptx():
    t = demo_tasks()[0]
    tm = build_task_module(t, CodegenOptions("nvptx", libdevice_path()))
    res = compile_module(CompileRequest(t.name, "nvptx", (tm.text,), (tm.entry,), arch="sm_80",
                                        libdevice=libdevice_path()))
    assert ".target sm_80" in res.output.decode()


def test_math_without_libdevice_falls_back_to_afn(monkeypatch):
    proj = load_project(None)
    t = proj.kernels["math_mix"].tasks()[0]
    saxpy = proj.kernels["saxpy"].tasks()[0]
    tm = build_task_module(saxpy, CodegenOptions("nvptx", None))
    assert not tm.log  # no math, nothing to say
    # math_mix calls atan2, which has no afn form: a clear error naming the fix, not an LLVM abort
    with pytest.raises(CodegenError, match="needs libdevice"):
        build_task_module(t, CodegenOptions("nvptx", None))
    import qdexplorer.lang as qd

    @qd.kernel
    def approx(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = qd.sin(x[i]) + qd.exp(x[i]) + qd.log(x[i]) + qd.pow(x[i], 2.5) + qd.tanh(x[i]) + qd.tan(x[i])

    task = approx.tasks()[0]
    tm = build_task_module(task, CodegenOptions("nvptx", None))
    assert any("libdevice not found" in line for line in tm.log)
    res = compile_isolated(CompileRequest(task.name, "nvptx", (tm.text,), (tm.entry,)))
    assert res.ok, res.error
    ptx = res.output.decode()
    assert "sin.approx" in ptx and "ex2.approx" in ptx and "lg2.approx" in ptx


def test_llvm_abort_is_contained_in_a_subprocess():
    # llvm.sin.f32 without afn cannot be selected on NVPTX: LLVM aborts the process that tries.
    text = """
target triple = "nvptx64-nvidia-cuda"
declare float @llvm.sin.f32(float)
define ptx_kernel void @boom(ptr %p) {
  %v = load float, ptr %p
  %s = call float @llvm.sin.f32(float %v)
  store float %s, ptr %p
  ret void
}
"""
    res = compile_isolated(CompileRequest("boom", "nvptx", (text,), ("boom",)))
    assert not res.ok
    assert "LLVM" in res.error and "Cannot select" in res.error


def test_task_names_are_stable_across_edits(tmp_path):
    f = tmp_path / "k.py"
    body = """import qdexplorer.lang as qd
@qd.kernel
def step(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    x[0] = 1.0
    for i in range(x.shape[0]):
        x[i] = x[i] * {k}
    qd.loop_config(name="tail", block_dim=64)
    for i in range(x.shape[0]):
        x[i] = x[i] + 1.0
"""
    f.write_text(body.format(k="2.0"))
    a = load_project(f).kernels["step"].tasks()
    f.write_text(body.format(k="3.0 + 0.5"))
    b = load_project(f, reload=True).kernels["step"].tasks()
    assert [t.name for t in a] == [t.name for t in b] == ["step_kernel_0_serial", "step_kernel_1_range_for",
                                                         "step_kernel_2_tail_range_for"]
    t = b[2]
    assert t.block_dim == 64 and t.loop_name == "tail" and t.type == "range_for"
    assert t.lines == (8, 9) and [p.name for p in t.params] == ["x"]


def test_an_expression_too_deep_for_the_emitters_is_a_codegen_error_not_a_recursion_error():
    """A task whose IR nests deeper than Python's recursion limit (the emitters recurse over
    expressions) is refused against the task, in one line (issue 21)."""
    import dataclasses

    import pytest

    import qdexplorer.lang as qd
    from qdexplorer.codegen import CodegenOptions, build_task_module
    from qdexplorer.codegen.errors import CodegenError
    from qdexplorer import ir

    @qd.kernel
    def put(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = 1.0

    task = put.tasks()[0]
    store = task.body[0]
    deep = store.value
    for _ in range(5000):
        deep = ir.BinOp("+", deep, ir.Const(1.0, qd.f32), qd.f32)
    task = dataclasses.replace(task, body=[dataclasses.replace(store, value=deep)])
    with pytest.raises(CodegenError, match="nests expressions too deeply"):
        build_task_module(task, CodegenOptions("host", None))


def test_random_numbers_compile_to_self_contained_ptx_and_host_code():
    """qd.random's stream is plain u64 arithmetic in the task (no runtime library, no state array):
    the key arrives as one u64 parameter, so the module stays self-contained on both targets."""
    import qdexplorer.lang as qd

    @qd.kernel
    def noisy(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in x:
            x[i] = qd.random() + qd.randn(qd.f32)

    task, = noisy.tasks()
    assert [p.name for p in task.params if p.kind == "scalar"] == ["random_key__"]
    tm = build_task_module(task, CodegenOptions("nvptx", libdevice_path()))
    assert ("random_key__", "u64") in tm.abi
    res = compile_module(CompileRequest(task.name, "nvptx", (tm.text,), (tm.entry,), libdevice=libdevice_path()))
    assert res.ok, res.error
    ptx = res.output.decode()
    assert ".extern" not in ptx
    assert re.search(r"mul\.lo\.[su]64", ptx) and re.search(r"shr\.u64", ptx)  # the 64-bit mixer, unsigned shifts
    host = build_task_module(task, CodegenOptions("host"))
    res = compile_module(CompileRequest(task.name, "host", (host.text,), (host.entry,)))
    assert res.ok, res.error
