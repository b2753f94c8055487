"""A 2-D stencil on CUDA: each thread takes `vector` consecutive rows of one column (schedule.py:
`stacked_rows`), so a row loaded for one output row serves the next: the 5-point stencil loads 14 values
for 4 outputs instead of 20. Loops that read no row twice, write elsewhere than (i, j)-ish, or use
atomics keep one index a step."""
import numpy as np
import pytest

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


def loads_before_any_use(ptx: str) -> int:
    """The longest run of global loads with no arithmetic, store or branch between them."""
    best = run = 0
    for line in ptx.splitlines():
        op = line.strip().split(" ")[0].split("\t")[0]
        if op.startswith("ld.global"):
            run += 1
            best = max(best, run)
        elif op.startswith(("add.f", "mul.f", "fma", "st.", "bra", "@")):
            run = 0
    return best


def test_a_stencil_takes_four_rows_a_thread_and_issues_their_loads_at_once(monkeypatch):
    tm, ptx = build(stencil)
    assert tm.vector == 4
    # a step whose four rows are inside: the 14 distinct loads of its 4 outputs, all issued before any
    # add (one round trip to memory a step); the range's last rows: the guarded form, three guards
    assert loads_before_any_use(ptx) == 14 and ptx.count("ld.global") == 28
    monkeypatch.setattr(schedule, "STACKED_STRAIGHT", False)   # the guarded form alone (the code before)
    tm, ptx = build(stencil)
    assert ptx.count("ld.global") == 14 and ptx.count("st.global") == 4 and ptx.count("setp") >= 4
    assert loads_before_any_use(ptx) < 14


def test_a_body_that_writes_what_it_reads_keeps_its_loads_in_place():
    """Loads of an array the body also stores to cannot move ahead of the other rows' stores."""
    @qd.kernel
    def smooth_in_place(u: F2):
        for i, j in qd.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
            u[i, j] = 0.5 * (u[i - 1, j] + u[i + 1, j])

    assert schedule.stacked_loads(smooth_in_place.tasks()[-1]) == []
    assert schedule.stacked_loads(stencil.tasks()[-1]) != []


@pytest.mark.cuda
@pytest.mark.parametrize("rows", [3, 6, 7, 8, 9, 1030])
def test_cuda_stencil_is_exact_for_every_remainder_of_rows(rows):
    """Inner row counts of every remainder mod 4: whole steps, the guarded last rows, and both."""
    qd.init(arch=qd.cuda)
    u = np.random.default_rng(rows).random((rows, 517), dtype=np.float32)
    out = np.zeros_like(u)
    stencil(u, out)
    want = np.zeros_like(u)
    want[1:-1, 1:-1] = np.float32(0.2) * ((((u[1:-1, 1:-1] + u[:-2, 1:-1]) + u[2:, 1:-1]) + u[1:-1, :-2]) + u[1:-1, 2:])
    np.testing.assert_allclose(out, want, rtol=2e-6, atol=1e-7)


def test_loops_without_a_shared_row_keep_one_index_a_step(monkeypatch):
    for k in (add2, transpose):
        tm, _ = build(k)
        assert tm.vector == 1, k
    monkeypatch.setattr(schedule, "STACKED_ROWS", False)
    tm, ptx = build(stencil)
    assert tm.vector == 1 and ptx.count("ld.global") == 5


def stencil_want(u):
    want = np.zeros_like(u)
    want[1:-1, 1:-1] = np.float32(0.2) * ((((u[1:-1, 1:-1] + u[:-2, 1:-1]) + u[2:, 1:-1]) + u[1:-1, :-2]) + u[1:-1, 2:])
    return want


@pytest.mark.parametrize("straight", [True, False])
def test_the_cuda_schedule_run_on_the_host_is_exact_for_every_remainder(monkeypatch, straight):
    """The NVPTX module's own code, one GPU thread per call on the host (grid_on_host.py), with grids small
    enough that threads stride (2 x 32) and large enough that some have no step (8 x 64): inner row counts
    of every remainder mod 4 give whole steps, guarded last rows, or both. Nothing outside the range is written."""
    from .grid_on_host import HostGrid
    monkeypatch.setattr(schedule, "STACKED_STRAIGHT", straight)
    task = stencil.tasks()[-1]
    tm = build_task_module(task, CodegenOptions("nvptx", vector=4))
    assert tm.vector == 4
    run = HostGrid(tm.text, tm.entry)
    for rows in (3, 4, 5, 6, 7, 10, 13):
        for grid, block in ((2, 32), (8, 64)):
            u = np.random.default_rng(rows).random((rows, 37), dtype=np.float32)
            out = np.zeros_like(u)
            run.launch([u, rows, 37, out, rows, 37], grid, block)
            np.testing.assert_array_equal(out, stencil_want(u), err_msg=f"{rows} rows, grid {grid} x {block}")
