"""A cell deactivated and activated again reads what Quadrants 1.3.3 gives: zero under a pointer
(its memory is recycled zero-filled), whichever way it was deactivated; a bitmasked cell keeps its
data; `to_numpy()` shows inactive elements as zero. The expected values were printed by real
Quadrants 1.3.3 on the CPU running the same programs."""
import numpy as np
import pytest

import qdexplorer.lang as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def _tree(kind):
    x = qd.field(qd.f32)
    blk = getattr(qd.root, kind)(qd.i, 4)
    blk.dense(qd.i, 4).place(x)

    @qd.kernel
    def write():
        for i in range(16):
            x[i] = i + 1.0

    @qd.kernel
    def read(k: qd.i32) -> qd.f32:
        return x[k]

    @qd.kernel
    def activate(k: qd.i32):
        qd.activate(blk, [k])

    @qd.kernel
    def deactivate(k: qd.i32):
        qd.deactivate(blk, [k])

    return x, blk, write, read, activate, deactivate


@pytest.mark.parametrize("how", ["snode", "root", "all_snodes", "kernel"])
def test_a_pointer_cell_reactivated_after_deactivation_reads_zero(how):
    x, blk, write, read, activate, deactivate = _tree("pointer")
    write()
    {"snode": blk.deactivate_all, "root": qd.root.deactivate_all, "all_snodes": qd.deactivate_all_snodes,
     "kernel": lambda: [deactivate(k) for k in range(4)]}[how]()
    assert x[5] == 0.0 and read(5) == 0.0
    np.testing.assert_array_equal(x.to_numpy(), np.zeros(16, np.float32))
    activate(1)
    assert x[5] == 0.0 and read(5) == 0.0
    x[6] = 50.0                              # a write from Python activates the cell; its neighbours read zero
    assert (x[5], x[6], read(7)) == (0.0, 50.0, 0.0)


def test_a_bitmasked_cell_keeps_its_data_but_to_numpy_shows_inactive_as_zero():
    x, blk, write, read, activate, deactivate = _tree("bitmasked")
    write()
    blk.deactivate_all()
    assert x[5] == 6.0 and read(5) == 6.0     # Quadrants reads the stale value of an inactive bitmasked cell
    np.testing.assert_array_equal(x.to_numpy()[4:8], np.zeros(4, np.float32))
    activate(1)
    assert read(5) == 6.0
    np.testing.assert_array_equal(x.to_numpy()[4:8], [5, 6, 7, 8])


def test_a_bitmasked_container_under_a_deactivated_pointer_loses_its_data():
    x = qd.field(qd.f32)
    bm = qd.root.pointer(qd.i, 4).bitmasked(qd.i, 4)
    bm.place(x)

    @qd.kernel
    def write():
        for i in range(16):
            x[i] = i + 1.0

    @qd.kernel
    def bump():
        x[3] += 100.0

    write()
    qd.deactivate_all_snodes()
    bump()
    assert x[3] == 100.0 and x.to_numpy()[2] == 0.0


def test_an_index_outside_the_container_does_nothing_and_reads_inactive():
    """Quadrants leaves it unchecked; here the mask store went past the mask (heap corruption: the
    process aborted with "corrupted size vs. prev_size" at exit)."""
    x, blk, write, read, activate, deactivate = _tree("pointer")

    @qd.kernel
    def probe(k: qd.i32) -> qd.i32:
        return qd.is_active(blk, [k])

    write()
    for k in (4, 100, -1):
        deactivate(k)
        activate(k)
    np.testing.assert_array_equal(x.to_numpy(), np.arange(1, 17, dtype=np.float32))
    assert [probe(k) for k in (-1, 0, 3, 4, 1000)] == [0, 1, 1, 0, 0]
