"""Fields whose SNode tree nests axes out of axis order (`qd.root.dense(qd.l, n).dense(qd.i, 1)`)
are laid out in memory as Quadrants lays them out: by nesting, outer container outermost. The
field's index (and shape) stays in axis order, so in-range indices reach the same cells either way,
but Quadrants computes addresses without bounds checks, and programs rely on it: difftaichi's
rigid_body_toi places `x` under `dense(qd.l, 4096).dense(qd.i, 1)` (shape (1, 4096)) and indexes
`x[t, 0]`, which lands on cell (0, t) there. Stored in axis order it went far past the buffer (a
segfault). Each program runs under qdexplorer.lang and, where installed, Quadrants."""
import copy

import numpy as np
import pytest

import qdexplorer.lang as ours
from tests.lang.quadrants_oracle import run_on_each
from qdexplorer.lang.snode import SNode


def _nested(qd):
    """dense(l).dense(i) with a scalar and a vector field, dense(j).dense(i) with a scalar."""
    x, v, z = qd.field(qd.f32), qd.Vector.field(2, qd.f32), qd.field(qd.f32)
    qd.root.dense(qd.l, 4).dense(qd.i, 3).place(x, v)
    qd.root.dense(qd.j, 4).dense(qd.i, 3).place(z)

    @qd.kernel
    def fill():
        for i, l in x:
            x[i, l] = i * 10 + l
            v[i, l] = [i * 10 + l, -(i * 10 + l)]
        for i, j in z:
            z[i, j] = i * 10 + j

    @qd.kernel
    def rx(a: qd.i32, b: qd.i32) -> qd.f32:
        return x[a, b]

    @qd.kernel
    def rv(a: qd.i32, b: qd.i32) -> qd.f32:
        return v[a, b][1]

    @qd.kernel
    def rz(a: qd.i32, b: qd.i32) -> qd.f32:
        return z[a, b]

    fill()
    got = {"shapes": (x.shape, v.shape, z.shape)}
    got["in_range"] = [rx(i, l) for i in range(3) for l in range(4)] + [rz(i, j) for i in range(3) for j in range(4)]
    # past axis i's 3 cells: the next cells of the inner container, as Quadrants' addresses go
    got["past_i"] = [rx(a, 0) for a in range(12)] + [rv(a, 0) for a in range(12)] + [rz(a, 0) for a in range(12)]
    got["python"] = [x[2, 3], float(v[2, 3][1]), z[1, 2]]
    got["to_numpy"] = (x.to_numpy().tolist(), v.to_numpy().tolist(), z.to_numpy().tolist())
    x[1, 2] = 99.0
    v[0, 3] = [7.0, 8.0]
    got["python_write"] = [rx(1, 2), rv(0, 3), rx(4, 1)]  # (4, 1) is (1, 2): address 1 * 3 + 4 = 2 * 3 + 1
    z.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
    got["from_numpy"] = [rz(a, 0) for a in range(12)] + [z[2, 1]]
    x.fill(2.5)
    got["fill"] = [rx(a, 0) for a in range(12)]
    return got


def test_dense_l_over_i_and_j_over_i_match_quadrants():
    results = run_on_each(_nested)
    want_past_i = [float(10 * (a % 3) + a // 3) for a in range(12)]
    mine = results[0]
    assert mine["shapes"] == ((3, 4), (3, 4), (3, 4))
    assert mine["in_range"] == [float(10 * i + l) for i in range(3) for l in range(4)] * 2
    assert mine["past_i"] == want_past_i + [-w for w in want_past_i] + want_past_i
    assert mine["python"] == [23.0, -23.0, 12.0]
    assert mine["to_numpy"][0] == [[10.0 * i + l for l in range(4)] for i in range(3)]
    assert mine["python_write"] == [99.0, 8.0, 99.0]
    assert mine["from_numpy"] == [float(4 * (a % 3) + a // 3) for a in range(12)] + [9.0]
    assert mine["fill"] == [2.5] * 12
    for got in results[1:]:
        assert got == mine


def _difftaichi_idiom(qd):
    """rigid_body_toi's `dense(qd.l, steps).dense(qd.i, 1).place(x, v)`, indexed x[t, 0]."""
    steps = 64
    x, v = qd.Vector.field(2, qd.f32), qd.Vector.field(2, qd.f32)
    qd.root.dense(qd.l, steps).dense(qd.i, 1).place(x, v)

    @qd.kernel
    def advance(t: qd.i32):
        v[t, 0] = v[t - 1, 0] + qd.Vector([1.0, 0.5])
        x[t, 0] = x[t - 1, 0] + v[t, 0]

    @qd.kernel
    def read(t: qd.i32) -> qd.f32:
        return x[t, 0][0] + 1000.0 * x[t, 0][1]

    x[0, 0] = [1.0, 2.0]
    for t in range(1, steps):
        advance(t)
    return x.shape, [read(t) for t in range(steps)], x.to_numpy()[0, :, 0].tolist(), v.to_numpy()[0, 5].tolist()


def test_the_difftaichi_time_axis_idiom_lands_on_the_cells_quadrants_gives():
    results = run_on_each(_difftaichi_idiom)
    shape, reads, xs, v5 = results[0]
    assert shape == (1, 64)
    t = np.arange(64)
    want_x = 1.0 + t * (t + 1) / 2
    assert xs == want_x.tolist()  # x[t, 0] of the kernels is cell (0, t)
    assert reads == (want_x + 1000.0 * (2.0 + 0.5 * t * (t + 1) / 2)).astype(np.float32).tolist()
    assert v5 == [5.0, 2.5]
    for got in results[1:]:
        assert got == results[0]


def _grads(qd):
    x, y, loss = qd.field(qd.f32), qd.field(qd.f32), qd.field(qd.f32, shape=())
    blk = qd.root.dense(qd.l, 4).dense(qd.i, 3)
    blk.place(x, x.grad)
    blk.place(y)
    qd.root.lazy_grad()

    @qd.kernel
    def compute():
        for i, l in x:
            loss[None] += (i + 1) * x[i, l] * x[i, l] + y[i, l] * (l + 1)

    @qd.kernel
    def grad_past_i(a: qd.i32) -> qd.f32:
        return x.grad[a, 0] + 100.0 * y.grad[a, 0]

    x.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
    with qd.ad.Tape(loss=loss):
        compute()
    return loss[None], x.grad.to_numpy().tolist(), y.grad.to_numpy().tolist(), [grad_past_i(a) for a in range(12)]


# Quadrants' own notice, from its template mapper when a kernel of `_grads` is handed a tuple (its cache, not ours)
@pytest.mark.filterwarnings("ignore:cannot create weak reference to 'tuple' object:UserWarning")
def test_gradients_of_a_field_nested_out_of_axis_order():
    results = run_on_each(_grads)
    value, gx, gy, past = results[0]
    i, l = np.indices((3, 4))
    xv = 4.0 * i + l
    assert value == float(((i + 1) * xv * xv).sum())
    assert gx == (2.0 * (i + 1) * xv).tolist()
    assert gy == (l + 1.0).tolist()
    a = np.arange(12)
    assert past == (2.0 * (a % 3 + 1) * (4 * (a % 3) + a // 3) + 100.0 * (a // 3 + 1)).tolist()
    for got in results[1:]:
        assert got == results[0]


def _template_and_struct(qd):
    x = qd.field(qd.i32)
    s = qd.Struct.field({"a": qd.i32, "b": qd.f32})
    qd.root.dense(qd.j, 3).dense(qd.i, 2).place(x)
    qd.root.dense(qd.j, 3).dense(qd.i, 2).place(s)

    @qd.kernel
    def write(f: qd.template()):
        for i, j in f:
            f[i, j] = i * 10 + j

    @qd.kernel
    def read(f: qd.template(), a: qd.i32) -> qd.i32:
        return f[a, 0]

    @qd.kernel
    def struct_write():
        for i, j in s:
            s[i, j].a = i * 10 + j
            s[i, j].b = i + 0.5 * j

    @qd.kernel
    def struct_read(a: qd.i32) -> qd.f32:
        return s[a, 0].a + s[a, 0].b

    write(x)
    struct_write()
    return [read(x, a) for a in range(6)], [struct_read(a) for a in range(6)], s.a.to_numpy().tolist()


def test_a_template_argument_and_a_struct_field_nested_out_of_axis_order():
    results = run_on_each(_template_and_struct)
    reads, sreads, sa = results[0]
    assert reads == [0, 10, 1, 11, 2, 12]
    assert sreads == [0.0 + 0.0, 10.0 + 1.0, 1.0 + 0.5, 11.0 + 1.5, 2.0 + 1.0, 12.0 + 2.0]
    assert sa == [[0, 1, 2], [10, 11, 12]]
    for got in results[1:]:
        assert got == results[0]


def _order(*levels) -> tuple:
    """The memory order of a container under qd.root made of `levels`, (axes, sizes) each."""
    s: SNode = ours.root
    for ax, n in levels:
        s = s.dense(ax, n)
    return s.memory_order()


def test_memory_order_of_trees():
    qd = ours
    assert _order((qd.ij, (4, 4))) == ()
    assert _order((qd.i, 4), (qd.j, 8)) == ()
    assert _order((qd.i, 4), (qd.i, 8)) == ()             # one axis in two levels: block-major is row-major
    assert _order((qd.ij, (4, 4)), (qd.ij, (2, 2))) == ()  # blocked: kept in axis order (in-range cells only)
    assert _order((qd.l, 4096), (qd.i, 1)) == (1, 0)      # axes (i, l): l outermost
    assert _order((qd.j, 4), (qd.i, 3)) == (1, 0)
    assert _order((qd.k, 2), (qd.ij, (3, 4))) == (2, 0, 1)
    assert _order((qd.j, 2), (qd.j, 3), (qd.i, 4)) == (1, 0)
    assert _order((qd.i, 1), (qd.j, 4), (qd.i, 8)) == (1, 0)  # a split of 1 moves no address
    assert _order((qd.j, 2), (qd.i, 3), (qd.j, 2)) == ()  # j on both sides of i: no order of whole axes


def test_storage_copies_keep_the_layout():
    ours.init(arch=ours.cpu)
    try:
        x = ours.field(ours.f32)
        ours.root.dense(ours.l, 5).dense(ours.i, 2).place(x, x.grad)
        x.from_numpy(np.arange(10, dtype=np.float32).reshape(2, 5))
        y = copy.deepcopy(x)

        @ours.kernel
        def past(f: ours.template(), a: ours.i32) -> ours.f32:
            return f[a, 0]

        assert [past(y, a) for a in range(10)] == [float(5 * (a % 2) + a // 2) for a in range(10)]
        assert x.grad.storage.strides == x.storage.strides
        assert y.to_numpy().tolist() == x.to_numpy().tolist()
    finally:
        ours.reset()


def _sparse(qd):
    """pointer(j).dense(i), dense(j).dynamic(i), bitmasked(k).dense(ij): in memory order (j, i) and
    (k, i, j); activity, appends and deactivation as in Quadrants."""
    x, d, b = qd.field(qd.f32), qd.field(qd.i32), qd.field(qd.f32)
    ptr = qd.root.pointer(qd.j, 4)
    ptr.dense(qd.i, 3).place(x)
    qd.root.dense(qd.j, 3).dynamic(qd.i, 8, chunk_size=4).place(d)
    qd.root.bitmasked(qd.k, 2).dense(qd.ij, (2, 3)).place(b)

    @qd.kernel
    def go():
        for j in range(4):
            if j % 2 == 0:
                for i in range(3):
                    x[i, j] = i * 10 + j
        for j in range(3):
            for k in range(j + 2):
                qd.append(d.parent(), j, k * 100 + j)
        b[1, 2, 1] = 5.0
        b[0, 1, 1] = 3.0

    @qd.kernel
    def total() -> qd.f32:
        s = 0.0
        for i, j in x:
            s += x[i, j] * (i + 1) * (j + 7)
        for i, j, k in b:
            s += b[i, j, k] * (i + 2 * j + 5 * k + 1)
        return s

    @qd.kernel
    def lengths() -> qd.i32:
        s = 0
        for j in range(3):
            s = s * 10 + qd.length(d.parent(), j)
        return s

    @qd.kernel
    def deactivate():
        qd.deactivate(ptr, [2])

    @qd.kernel
    def active(j: qd.i32) -> qd.i32:
        return qd.is_active(ptr, [j])

    @qd.kernel
    def list_sum() -> qd.i32:
        c = 0
        for i, j in d:
            c += d[i, j]
        return c

    go()
    out = [total(), lengths(), x.to_numpy().tolist(), d.to_numpy().tolist(), b.to_numpy().tolist()]
    deactivate()
    x[1, 1] = 4.0
    return out + [total(), x.to_numpy().tolist(), [active(j) for j in range(4)], list_sum()]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_sparse_containers_nested_out_of_axis_order():
    results = run_on_each(_sparse)
    got = results[0]
    assert got[0] == 1467.0 and got[1] == 234 and got[5] == 703.0 and got[7] == [1, 1, 0, 0] and got[8] == 1011
    assert got[6] == [[0.0, 0.0, 0.0, 0.0], [10.0, 4.0, 0.0, 0.0], [20.0, 0.0, 0.0, 0.0]]
    for other in results[1:]:
        assert other == got


def test_validated_tape_and_element_addresses_follow_the_memory_order():
    """`qd.ad.Tape(validation=True)` keeps a checkbit per element in the same order; `qd.get_addr`
    gives the address kernels use (axis i is the fast one under dense(qd.l).dense(qd.i))."""
    ours.init(arch=ours.cpu, debug=True)
    try:
        x, loss = ours.field(ours.f32), ours.field(ours.f32, shape=(), needs_grad=True)
        ours.root.dense(ours.l, 4).dense(ours.i, 3).place(x, x.grad)

        @ours.kernel
        def compute():
            for i, l in x:
                loss[None] += (i + 1) * x[i, l] * (l + 2)

        x.fill(1.0)
        with ours.ad.Tape(loss=loss, validation=True):
            compute()
        i, l = np.indices((3, 4))
        assert x.grad.to_numpy().tolist() == ((i + 1.0) * (l + 2)).tolist()
        base = ours.get_addr(x, [0, 0])
        assert [ours.get_addr(x, [1, 0]) - base, ours.get_addr(x, [0, 1]) - base, ours.get_addr(x, [2, 3]) - base] \
            == [4, 12, 4 * (3 * 3 + 2)]
    finally:
        ours.reset()


def _multi_level(qd):
    """Axes split at several levels: in-range cells agree (the storage order is Quadrants' only where
    `memory_order` says so; these keep axis order)."""
    a, b, c = qd.field(qd.i32), qd.field(qd.i32), qd.field(qd.i32)
    qd.root.dense(qd.i, 4).dense(qd.i, 8).place(a)
    qd.root.dense(qd.ij, 4).dense(qd.ij, 2).place(b)
    qd.root.dense(qd.j, 2).dense(qd.i, 3).dense(qd.j, 2).place(c)

    @qd.kernel
    def fill():
        for i in a:
            a[i] = i * 3
        for i, j in b:
            b[i, j] = i * 100 + j
        for i, j in c:
            c[i, j] = i * 10 + j

    @qd.kernel
    def read(i: qd.i32, j: qd.i32) -> qd.i32:
        return a[(i * 8 + j) % 32] + b[i, j] * 1000 + c[i % 3, j % 4] * 1000000

    fill()
    return ([read(i, j) for i in range(8) for j in range(8)], a.to_numpy().tolist(), b.to_numpy().tolist(),
            c.to_numpy().tolist(), (a.shape, b.shape, c.shape), [b[3, 5], c[2, 3]])


def test_multi_level_splits_agree_in_range():
    results = run_on_each(_multi_level)
    reads, a, b, c, shapes, py = results[0]
    assert shapes == ((32,), (8, 8), (3, 4)) and py == [305, 23]
    assert a == [3 * i for i in range(32)] and c == [[10 * i + j for j in range(4)] for i in range(3)]
    assert reads == [3 * ((i * 8 + j) % 32) + 1000 * (100 * i + j) + 1000000 * (10 * (i % 3) + j % 4)
                     for i in range(8) for j in range(8)]
    for got in results[1:]:
        assert got == results[0]


def _ordered(qd):
    """`qd.field(..., order="ji")`: Quadrants allocates it at the permuted shape (j outermost)."""
    x = qd.field(qd.f32, shape=(3, 4), order="ji", needs_grad=True)
    v = qd.Vector.field(2, qd.f32, shape=(3, 4), order="ji")

    @qd.kernel
    def fill():
        for i, j in x:
            x[i, j] = i * 10 + j
            v[i, j] = [i * 10 + j, -1.0]

    @qd.kernel
    def read(a: qd.i32, b: qd.i32) -> qd.f32:
        return x[a, b] + 1000 * v[a, b][0]

    fill()
    out = [[read(a, 0) for a in range(12)], x.to_numpy().tolist(), x.layout]
    x[1, 2] = 7.0
    return out + [read(1, 2)]


def test_a_field_with_order_is_laid_out_in_that_order():
    results = run_on_each(_ordered)
    past, values, layout, after = results[0]
    assert past == [1001.0 * (10 * (a % 3) + a // 3) for a in range(12)]
    assert values == [[10.0 * i + j for j in range(4)] for i in range(3)] and layout == (1, 0) and after == 12007.0
    for got in results[1:]:
        assert got == results[0]
