"""Dynamic SNodes (`qd.root.dynamic`, `qd.append`, `qd.length`, `x[i].append(v)`, deactivation) and
the import of data into sparse fields, with Quadrants' semantics. The expected values were printed
by real Quadrants 1.3.3 on the CPU running the same programs."""
import numpy as np
import pytest

import qdexplorer.lang as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def _lists():
    x = qd.field(qd.i32)
    blk = qd.root.dense(qd.i, 4).dynamic(qd.j, 8, chunk_size=2)
    blk.place(x)
    lengths = qd.field(qd.i32, shape=4)
    count = qd.field(qd.i32, shape=())

    @qd.kernel
    def fill():
        for i in range(4):
            for j in range(i * 2):
                x[i].append(j * 10 + i)

    @qd.kernel
    def measure():
        for i in range(4):
            lengths[i] = qd.length(blk, [i])
        for i, j in x:  # a struct-for visits the lists' elements only
            count[None] += 1

    return x, blk, lengths, count, fill, measure


def test_append_length_and_struct_for_over_lists():
    x, blk, lengths, count, fill, measure = _lists()
    fill()
    measure()
    assert lengths.to_numpy().tolist() == [0, 2, 4, 6]
    assert count[None] == 12
    assert x.to_numpy().tolist() == [[0] * 8, [1, 11, 0, 0, 0, 0, 0, 0], [2, 12, 22, 32, 0, 0, 0, 0],
                                     [3, 13, 23, 33, 43, 53, 0, 0]]


def test_append_returns_the_slot_and_appends_past_the_capacity_are_counted_not_stored():
    x, blk, lengths, count, fill, measure = _lists()

    @qd.kernel
    def over(i: qd.i32) -> qd.i32:
        s = 0
        for k in range(12):
            s = qd.append(blk, [i], 7)
        return s

    fill()
    assert (over(0), over(0)) == (11, 23)
    measure()
    assert lengths.to_numpy().tolist() == [24, 2, 4, 6]
    assert x.to_numpy()[0].tolist() == [7] * 8


def test_deactivating_a_list_empties_it_and_zeroes_its_data_and_a_write_grows_it():
    x, blk, lengths, count, fill, measure = _lists()

    @qd.kernel
    def drop(i: qd.i32):
        x[i].deactivate()

    fill()
    drop(2)
    measure()
    assert lengths.to_numpy().tolist() == [0, 2, 0, 6]
    assert x.to_numpy()[2].tolist() == [0] * 8
    x[1, 6] = 5  # from Python: the list grows to hold element 6
    measure()
    assert lengths.to_numpy().tolist() == [0, 7, 0, 6]
    assert (x[1, 5], x[1, 6]) == (0, 5)


def test_a_write_in_a_kernel_grows_a_list_to_hold_it():
    lens = qd.field(qd.i32, 3)
    x = qd.field(qd.i32)
    xp = qd.root.dynamic(qd.i, 32, 32)
    xp.place(x)

    @qd.kernel
    def func():
        for i in range(5):
            qd.append(xp, [], i)
        lens[0] = qd.length(xp, [])
        x[20] = 42
        lens[1] = qd.length(xp, [])
        x[10] = 43
        lens[2] = x.length()

    func()
    assert lens.to_numpy().tolist() == [5, 21, 21]


def test_a_struct_and_a_matrix_append_member_by_member():
    st = qd.types.struct(a=qd.u8, b=qd.types.matrix(2, 2, qd.u8), c=qd.u16)
    f = st.field()
    qd.root.dense(qd.i, 3).dynamic(qd.j, 4, 2).place(f)

    @qd.kernel
    def make():
        for i in range(3):
            for j in range(i + 1):
                f[i].append(st(i * j * 100, qd.Matrix([[i, j], [i + j, 200 + i * 30]], dt=qd.u8), i * j * 30000))

    make()
    assert f[2, 2].a == 400 % 256 and f[2, 2].c == 120000 % 65536
    assert f[2, 1].b.to_numpy().tolist() == [[2, 1], [3, (200 + 60) % 256]]
    assert f[0, 1].a == 0


def test_deactivate_all_and_a_python_write_on_a_root_list():
    y = qd.field(qd.f32)
    r = qd.root.dynamic(qd.i, 16)
    r.place(y)

    @qd.kernel
    def length() -> qd.i32:
        return y.length()

    @qd.kernel
    def total() -> qd.f32:
        s = 0.0
        for i in y:
            s += y[i]
        return s

    for i in range(16):
        y[i] = i
    assert length() == 16
    r.deactivate_all()
    assert (length(), y[3]) == (0, 0.0)
    y[5] = 2.0
    assert (length(), total()) == (6, 2.0)
    assert str(r) == "qd.root => dynamic [16]" and y.shape == (16,)


def test_from_numpy_writes_only_active_elements_of_a_sparse_field():
    """Quadrants' import is a struct-for over the field: inactive elements are not written and
    nothing activates (a pointer field stays empty; a dynamic list keeps its length)."""
    y = qd.field(qd.f32)
    qd.root.dynamic(qd.i, 16).place(y)
    y.from_numpy(np.arange(16, dtype=np.float32))
    assert y.to_numpy().tolist() == [0.0] * 16
    y[2] = 1
    y.fill(4)
    assert y.to_numpy().tolist() == [4.0] * 3 + [0.0] * 13
    for kind in ("pointer", "bitmasked"):
        p = qd.field(qd.f32)
        getattr(qd.root, kind)(qd.i, 4).dense(qd.i, 2).place(p)
        p[2] = 7
        p.from_numpy(np.arange(8, dtype=np.float32) + 1)
        assert p.to_numpy().tolist() == [0.0, 0.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0]


def test_is_active_and_activate_refuse_a_dynamic_node():
    x = qd.field(qd.i32)
    blk = qd.root.dense(qd.i, 4).dynamic(qd.j, 8)
    blk.place(x)

    @qd.kernel
    def active() -> qd.i32:
        return qd.is_active(blk, [1, 2])

    @qd.kernel
    def activate():
        qd.activate(blk, [1, 2])

    with pytest.raises(qd.QuadrantsTypeError, match="only works on pointer, hash or bitmasked nodes"):
        active()
    with pytest.raises(qd.QdCompileError, match="qd.activate does not take a dynamic SNode"):
        activate()


def test_num_dynamically_allocated_counts_the_peak_of_allocated_cells_and_chunks():
    """Quadrants recycles a deactivated cell's memory, so its count is the peak held at once (values
    printed by real Quadrants 1.3.3)."""
    x = qd.field(qd.i32)
    ptr = qd.root.pointer(qd.ij, 8)
    ptr.dense(qd.ij, 4).place(x)
    counts = [ptr._num_dynamically_allocated]
    x[0, 0] = x[5, 5] = x[9, 9] = 1
    counts.append(ptr._num_dynamically_allocated)
    ptr.deactivate_all()
    counts.append(ptr._num_dynamically_allocated)
    y = qd.field(qd.i32)
    dyn = qd.root.dynamic(qd.i, 4096, chunk_size=1024)
    dyn.place(y)
    y[1024] = 1  # two chunks
    counts.append(dyn._num_dynamically_allocated)
    dyn.deactivate_all()
    counts.append(dyn._num_dynamically_allocated)
    assert counts == [0, 3, 3, 2, 2]
