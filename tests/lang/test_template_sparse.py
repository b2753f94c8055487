"""A field under a pointer or bitmasked container passed as `qd.template()` keeps its SNode tree.

Passed by shape alone, a struct-for over it visited every cell of inactive blocks too, and a game
of life on it grew into them: more live cells than Quadrants (a held-out program, 1.2% more). The
same loop over the field named as a global was right, so the two forms are compared here.
"""
import pytest

import qdexplorer.lang as qd


@pytest.mark.parametrize("container", ["pointer", "bitmasked"])
def test_a_struct_for_over_a_template_field_visits_its_active_cells_only(container):
    qd.init(arch=qd.cpu)
    x = qd.field(dtype=qd.u8)
    getattr(qd.root, container)(qd.ij, (4, 4)).dense(qd.ij, (8, 8)).place(x)
    visits = qd.field(qd.i32, shape=())

    @qd.kernel
    def count_template(f: qd.template()):
        for i, j in f:
            visits[None] += 1

    @qd.kernel
    def count_global():
        for i, j in x:
            visits[None] += 1

    x[3, 3] = 1      # one cell of block (0, 0): that block is active (64 cells), no other
    x[20, 9] = 1     # and one of block (2, 1)
    count_global()
    by_global = visits[None]
    visits[None] = 0
    count_template(x)
    assert by_global == 128
    assert visits[None] == 128


def test_writes_through_a_template_field_activate_its_cells():
    qd.init(arch=qd.cpu)
    x = qd.field(dtype=qd.i32)
    qd.root.pointer(qd.i, 8).dense(qd.i, 4).place(x)
    n = qd.field(qd.i32, shape=())

    @qd.kernel
    def write(f: qd.template()):
        f[9] = 5

    @qd.kernel
    def count():
        for i in x:
            n[None] += 1

    write(x)
    count()
    assert x[9] == 5 and n[None] == 4   # block 2 (cells 8..11) became active


def test_a_quantized_game_of_life_on_a_sparse_tree_matches_numpy():
    """quantaichi's game of life (quant_array of 1-bit cells under a pointer), its `evolve(x, y)`
    taking both fields as templates; no live cell may appear in a block that was never active."""
    np = pytest.importorskip("numpy")
    qd.init(arch=qd.cpu)
    qu1 = qd.types.quant.int(1, False)
    a, b = qd.field(dtype=qu1), qd.field(dtype=qu1)
    N, nb = 256, 4
    blk = qd.root.pointer(qd.ij, (nb, nb))
    for f in (a, b):
        blk.dense(qd.ij, (N // nb, N // (32 * nb))).quant_array(qd.j, 32, max_num_bits=32).place(f)

    @qd.kernel
    def evolve(x: qd.template(), y: qd.template()):
        for i, j in x:
            n = qd.u32(0)
            n += qd.cast(x[i - 1, j - 1], qd.u32) + qd.cast(x[i - 1, j], qd.u32) + qd.cast(x[i - 1, j + 1], qd.u32)
            n += qd.cast(x[i, j - 1], qd.u32) + qd.cast(x[i, j + 1], qd.u32)
            n += qd.cast(x[i + 1, j - 1], qd.u32) + qd.cast(x[i + 1, j], qd.u32) + qd.cast(x[i + 1, j + 1], qd.u32)
            y[i, j] = (n == 3) | ((n == 2) & (x[i, j] == 1))

    @qd.kernel
    def load(x: qd.template(), y: qd.template(), buf: qd.types.ndarray(), lo: qd.i32, hi: qd.i32):
        for i in range(lo, hi):
            for j in range(lo, hi):
                x[i, j] = buf[i - lo, j - lo]
                y[i, j] = 0

    out = qd.field(qd.i32, shape=(N, N))

    @qd.kernel
    def dump(x: qd.template()):
        for i, j in x:
            out[i, j] = qd.cast(x[i, j], qd.i32)

    lo, hi = 64, 192            # blocks 1 and 2 of each axis active, live cells at their edges; 0 and 3 never
    rng = np.random.default_rng(3)
    buf = (rng.random((hi - lo, hi - lo)) < 0.35).astype(np.int32)
    ref = np.zeros((N, N), np.int32)
    ref[lo:hi, lo:hi] = buf
    active = np.zeros((N, N), bool)
    active[64:192, 64:192] = True   # a cell outside the active blocks is never visited (Quadrants')
    load(a, b, buf, lo, hi)
    for _ in range(3):
        evolve(a, b)
        evolve(b, a)
        for _ in range(2):
            p = np.pad(ref, 1)
            n = sum(p[1 + di:1 + di + N, 1 + dj:1 + dj + N] for di in (-1, 0, 1) for dj in (-1, 0, 1)
                    if (di, dj) != (0, 0))
            ref = (((n == 3) | ((n == 2) & (ref == 1))) & active).astype(np.int32)
    out.fill(0)
    dump(a)
    got = out.to_numpy()
    assert int(got.sum()) == int(ref.sum())
    assert (got == ref).all()


def test_one_template_kernel_over_two_sparse_fields_runs_on_each():
    """Called (a, b) then (b, a): each call reads and writes the fields it was given (the script's
    fast path keyed a call by the fields' shape alone and ran the first pair again)."""
    qd.init(arch=qd.cpu)
    a, b = qd.field(dtype=qd.i32), qd.field(dtype=qd.i32)
    blk = qd.root.pointer(qd.i, 4)
    blk.dense(qd.i, 8).place(a)
    blk.dense(qd.i, 8).place(b)

    @qd.kernel
    def step(x: qd.template(), y: qd.template()):
        for i in x:
            y[i] = x[i] + 1

    a[3] = 5
    b[3] = 0
    step(a, b)
    step(b, a)
    step(a, b)
    assert (a[3], b[3]) == (7, 8)
