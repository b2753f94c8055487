"""Struct-fors over pointer/bitmasked/dynamic SNodes visit the active cells only, in Quadrants' CPU
order (blocks in tree order, each block's cells row-major), and their storage is reserved lazily:
taichi_elements' trees (a dynamic node of 2^20 cells per block, a 4096^2 pointer grid) run in the
memory their active cells need. Each test runs the program under qdexplorer and real Quadrants
(one CPU thread, so the order is Quadrants' list order) and compares."""
import gc

import numpy as np
import pytest

from .quadrants_oracle import implementations


def _each(program) -> list:
    out = []
    for qd in implementations():
        qd.init(arch=qd.cpu, cpu_max_num_threads=1)
        try:
            out.append(program(qd))
        finally:
            qd.reset()
            gc.collect()  # the huge trees go now, not under a later test's `qd.root.lazy_grad()`
    return out


def _ours_and_quadrants(results):
    assert len(results) == 2, "real Quadrants is needed as the oracle"
    return results


def test_pointer_struct_for_visits_blocks_in_tree_order():
    """Cells of one 2x2 leaf block come before the next block's, not in plain row order."""
    def program(qd):
        x = qd.field(qd.i32)
        qd.root.pointer(qd.ij, 4).pointer(qd.ij, 4).dense(qd.ij, 2).place(x)
        n = qd.field(qd.i32, shape=())

        @qd.kernel
        def act():
            x[0, 5] = 1
            x[3, 5] = 1
            x[30, 1] = 1
            x[0, 0] = 1
            x[17, 2] = 1

        @qd.kernel
        def order():
            for i, j in x:
                x[i, j] = qd.atomic_add(n[None], 1)

        act()
        order()
        return [(int(i), int(j), int(x[i, j])) for i in range(32) for j in range(32) if x[i, j] or (i, j) == (0, 0)]
    ours, real = _ours_and_quadrants(_each(program))
    assert ours == real


def test_bitmasked_struct_for_order_and_deactivate():
    def program(qd):
        x = qd.field(qd.f32)
        blk = qd.root.dense(qd.i, 3).bitmasked(qd.i, 4)
        blk.place(x)
        seen = qd.field(qd.i32, shape=12)
        n = qd.field(qd.i32, shape=())

        @qd.kernel
        def run():
            for i in x:
                seen[i] = qd.atomic_add(n[None], 1) + 1

        @qd.kernel
        def drop():
            qd.deactivate(blk, [5])

        for i in (9, 2, 5, 11):
            x[i] = 1.0
        drop()
        run()
        return seen.to_numpy().tolist()
    ours, real = _ours_and_quadrants(_each(program))
    assert ours == real


def test_dynamic_lists_under_pointers_run_to_their_lengths():
    """taichi_elements' pid lists: a dynamic node of 2^20 cells per block under two pointer levels
    (2^36 cells, 256 GiB dense); a struct-for runs to each list's length, blocks in tree order."""
    def program(qd):
        pid = qd.field(qd.i32)
        grid = qd.root.pointer(qd.ij, 16)
        block = grid.pointer(qd.ij, 16)
        block.dynamic(qd.axes(2), 1024 * 1024, chunk_size=256).place(pid)
        out = qd.field(qd.i32, shape=64)
        n = qd.field(qd.i32, shape=())
        total = qd.field(qd.i64, shape=())

        @qd.kernel
        def build():
            for p in range(64):
                b = (p * 37) % 23
                qd.append(pid.parent(), [b * 7 % 256, b * 3 % 256], p)

        @qd.kernel
        def visit():
            for I in qd.grouped(pid):
                out[pid[I]] = qd.atomic_add(n[None], 1)
                total[None] += I[0] * 1000000 + I[1] * 1000 + I[2]

        @qd.kernel
        def length_of(i: qd.i32, j: qd.i32) -> qd.i32:
            return qd.length(pid.parent(), [i, j])

        build()
        visit()
        r = (out.to_numpy().tolist(), int(total[None]), int(length_of(0, 0)), int(length_of(1, 2)))
        grid.deactivate_all()
        n[None] = 0
        visit()
        return r + (int(n[None]),)
    ours, real = _ours_and_quadrants(_each(program))
    assert ours == real


def test_root_dynamic_struct_for_with_huge_capacity():
    """`qd.root.dynamic(qd.i, 2**30)` (taichi_elements' particles): a loop over it runs `length`
    indices, and its 2^30-element fields cost only the pages written."""
    def program(qd):
        x = qd.Vector.field(2, dtype=qd.f32)
        qd.root.dynamic(qd.i, 2**30, 2**20).place(x)
        s = qd.field(qd.f32, shape=())

        @qd.kernel
        def seed(n: qd.i32):
            for i in range(n):
                x[i] = [i * 0.5, 1.0]

        @qd.kernel
        def add():
            for p in x:
                s[None] += x[p][0] * x[p][1]

        seed(1000)
        add()
        return float(s[None])
    ours, real = _ours_and_quadrants(_each(program))
    assert ours == real


def test_offset_pointer_grid_4096_squared():
    """A 4096^2 pointer grid with offset= (taichi_elements' grid), a few cells active."""
    def program(qd):
        m = qd.field(qd.f32)
        qd.root.pointer(qd.ij, 32).pointer(qd.ij, 8).dense(qd.ij, 16).place(m, offset=(-2048, -2048))
        acc = qd.field(qd.f32, shape=())
        cnt = qd.field(qd.i32, shape=())

        @qd.kernel
        def scatter():
            for k in range(50):
                m[k * 3 - 70, 40 - k] += 1.0 + k

        @qd.kernel
        def visit():
            for i, j in m:
                acc[None] = acc[None] * 0.5 + m[i, j] + i * 0.001 - j * 0.002
                cnt[None] += 1

        scatter()
        visit()
        return round(float(acc[None]), 4), int(cnt[None])
    ours, real = _ours_and_quadrants(_each(program))
    assert ours == real


@pytest.mark.filterwarnings("ignore:cannot create weak reference to 'tuple' object:UserWarning")  # Quadrants' own notice
def test_gradient_through_sparse_struct_for():
    def program(qd):
        x = qd.field(qd.f32, needs_grad=True)
        qd.root.pointer(qd.i, 8).dense(qd.i, 4).place(x, x.grad)
        loss = qd.field(qd.f32, shape=(), needs_grad=True)

        @qd.kernel
        def f():
            for i in x:
                loss[None] += x[i] * x[i]

        for i in (1, 2, 17, 30):
            x[i] = i * 0.5
        with qd.ad.Tape(loss=loss):
            f()
        return [float(v) for v in x.grad.to_numpy()]
    results = _each(program)
    assert len(results) == 2
    np.testing.assert_allclose(results[0], results[1])


def _pid_3d(qd, per_list: int):
    """taichi_elements' 3-D pid lists: 2^30 lists of capacity 2^20 (4 PiB dense); `per_list`
    particles appended to each of a few lists."""
    pid = qd.field(qd.i32)
    block = qd.root.pointer(qd.ijk, 32).pointer(qd.ijk, 32)
    block.dynamic(qd.axes(3), 1024 * 1024, chunk_size=512).place(pid)
    seen = qd.field(qd.i64, shape=())

    @qd.kernel
    def build(n: qd.i32):
        for p in range(n):
            b = p % 5
            qd.append(pid.parent(), [b * 200, 1023 - b * 7, b * 3 + 500], p)

    @qd.kernel
    def visit():
        for I in qd.grouped(pid):
            seen[None] += (I[0] + I[1] * 3 + I[2] * 7 + I[3] * 11) * (pid[I] + 1)

    build(5 * per_list)
    visit()
    return int(seen[None])


def test_dynamic_lists_past_the_reservable_are_stored_shorter():
    """4 PiB of lists: each list stores as many cells as fit (here 4096), the struct-for and
    appends agree with Quadrants while no list grows past that."""
    ours, real = _ours_and_quadrants(_each(lambda qd: _pid_3d(qd, 1000)))
    assert ours == real


def test_a_list_past_its_stored_cells_is_refused():
    import pytest
    import qdexplorer.lang as qd
    qd.init(arch=qd.cpu)
    try:
        with pytest.raises(Exception, match=r"test_sparse_struct_for.py:\d+: a list of this dynamic SNode \(capacity "
                                            r"1,048,576\) grew past 4,096 cells"):
            _pid_3d(qd, 5000)
    finally:
        qd.reset()
        gc.collect()
