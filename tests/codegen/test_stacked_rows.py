"""A 2-D stencil on CUDA: each thread takes `vector` consecutive rows of one column (schedule.py:
`stacked_rows`), so a row loaded for one output row serves the next: the 5-point stencil loads 14 values
for 4 outputs instead of 20. Loops that read no row twice, write elsewhere than (i, j)-ish, or use
atomics keep one index a step."""
import qdexplorer.lang as qd
from qdexplorer.codegen import CodegenOptions, build_task_module
from qdexplorer.codegen import schedule
from qdexplorer.compiler.stages import CompileRequest, compile_module

F2 = qd.types.ndarray(dtype=qd.f32, ndim=2)


def build(kernel, vector=4):
    task = kernel.tasks()[-1]
    tm = build_task_module(task, CodegenOptions("nvptx", vector=vector))
    res = compile_module(CompileRequest(task.name, "nvptx", (tm.text,), (tm.entry,)))
    assert res.ok, res.error
    return tm, res.output.decode()


@qd.kernel
def stencil(u: F2, out: F2):
    for i, j in qd.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
        out[i, j] = 0.2 * (u[i, j] + u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])


@qd.kernel
def add2(a: F2, b: F2, c: F2):
    for i, j in qd.ndrange(a.shape[0], a.shape[1]):
        c[i, j] = a[i, j] + b[i, j]


@qd.kernel
def transpose(a: F2, b: F2):
    for i, j in qd.ndrange(a.shape[0], a.shape[1]):
        b[j, i] = a[i, j] + a[i, (j + 1) % a.shape[1]]


def test_a_stencil_takes_four_rows_a_thread_and_loads_shared_rows_once():
    tm, ptx = build(stencil)
    assert tm.vector == 4
    assert ptx.count("ld.global") == 14 and ptx.count("st.global") == 4
    # rows past the range's end are skipped: three guards, one per later row
    assert ptx.count("setp") >= 4


def test_loops_without_a_shared_row_keep_one_index_a_step(monkeypatch):
    for k in (add2, transpose):
        tm, _ = build(k)
        assert tm.vector == 1, k
    monkeypatch.setattr(schedule, "STACKED_ROWS", False)
    tm, ptx = build(stencil)
    assert tm.vector == 1 and ptx.count("ld.global") == 5
