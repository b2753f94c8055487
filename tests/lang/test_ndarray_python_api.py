"""Issue 11: the Python side of `qd.ndarray` and fields, as Quadrants' own tests use it.

0-d ndarrays (`x[None]` from Python and in kernels), element views that write through
(`x[i][j] = v`, `x[i][j, k] = v`), `fill` with a vector value, `copy_from` of vector arrays,
Quadrants' shape validation, and bare `qd.types.vector()` / `matrix()` annotations. Every check
has a NumPy reference, and runs on the CPU and (where a GPU exists) CUDA, where the data lives on
the device between calls; `test_python_access_goes_through_the_device_copy` checks the same
discipline on the CPU with a stand-in device copy.
"""
import copy

import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.lang.calls import runtime_api


@qd.kernel
def add_to_0d(x: qd.types.NDArray[qd.f32, 0], v: qd.f32) -> qd.f32:
    x[None] = x[()] + v
    return x[None] * 2


@qd.kernel
def double_any(x: qd.types.NDArray):
    a = x[()] + 1
    x[None] = 2 * a


@qd.kernel
def rows_sum(m: qd.types.NDArray[qd.types.matrix(2, 3, qd.i32), 1], out: qd.types.NDArray[qd.i32, 1]):
    for i in range(m.shape[0]):
        s = 0
        for j, k in qd.ndrange(2, 3):
            s += m[i][j, k] * (j * 3 + k + 1)
        out[i] = s


@qd.kernel
def scale_vectors(v: qd.types.NDArray[qd.types.vector(), 1], k: qd.i32):
    for I in qd.grouped(v):
        v[I] = v[I] * k + 1


@qd.kernel
def scale_vectors_f(v: qd.types.NDArray[qd.math.vec3, 1]):
    for i in v:
        v[i] = v[i] * 2.0


def test_0d_ndarray_from_python(arch):
    x = qd.ndarray(qd.f32, shape=())
    assert x.shape == () and x.element_shape == () and x.to_numpy().shape == ()
    x[None] = 3.5
    assert x[()] == 3.5 and x.to_numpy() == np.float32(3.5)
    x.fill(-2.0)
    assert x[None] == -2.0
    x.from_numpy(np.array(7.25, np.float32))
    assert x[None] == 7.25
    y = qd.ndarray(qd.math.vec2, shape=())
    y[()] = [1.0, 2.0]
    assert y[None] == [1.0, 2.0]
    y[None][1] = 5.0                       # the element view writes through
    np.testing.assert_array_equal(y.to_numpy(), [1.0, 5.0])
    assert y.to_numpy().shape == (2,)


def test_0d_ndarray_as_a_kernel_argument(arch):
    x = qd.ndarray(qd.f32, shape=())
    x[None] = 1.5
    assert add_to_0d(x, 2.0) == 7.0                              # (1.5 + 2) * 2
    assert x[None] == 3.5
    assert add_to_0d(x, 0.5) == 8.0 and x[None] == 4.0            # the kernel's write stayed
    y = qd.ndarray(qd.math.vec2, shape=())
    y[None] = [1.0, -3.0]
    double_any(y)
    np.testing.assert_array_equal(y.to_numpy(), 2 * (np.array([1.0, -3.0]) + 1))
    z = qd.ndarray(qd.i32, shape=())
    z[None] = 20
    double_any(z)
    assert z[None] == 42


def test_0d_and_1d_ndarrays_are_not_interchangeable(arch):
    with pytest.raises(qd.QuadrantsRuntimeTypeError, match=r"must have 0 dimension"):
        add_to_0d(qd.ndarray(qd.f32, shape=(1,)), 1.0)

    @qd.kernel
    def one_d(x: qd.types.NDArray[qd.f32, 1]):
        x[0] = 1.0

    with pytest.raises(qd.QuadrantsRuntimeTypeError, match=r"must have 1 dimension.*shape \(\)"):
        one_d(qd.ndarray(qd.f32, shape=()))


@pytest.mark.parametrize("kind", ["ndarray", "field"])
def test_element_views_write_through(arch, kind):
    rng = np.random.default_rng(3)
    make = qd.Matrix.ndarray if kind == "ndarray" else qd.Matrix.field
    m = make(2, 3, qd.i32, shape=6)
    ref = np.zeros((6, 2, 3), np.int32)
    for _ in range(20):
        i, j, k, v = int(rng.integers(6)), int(rng.integers(2)), int(rng.integers(3)), int(rng.integers(-50, 50))
        m[i][j, k] = v
        ref[i, j, k] = v
    m[5] = [[1, 2, 3], [4, 5, 6]]               # a whole element
    ref[5] = [[1, 2, 3], [4, 5, 6]]
    m[0] = m[5]                                  # from another element's view
    ref[0] = ref[5]
    np.testing.assert_array_equal(m.to_numpy(), ref)
    out = qd.ndarray(qd.i32, shape=6)
    rows_sum(m, out)                             # the kernel sees every Python write
    np.testing.assert_array_equal(out.to_numpy(), (ref * np.arange(1, 7).reshape(2, 3)).sum(axis=(1, 2)))
    assert m[5][1, 2] == 6 and m[5] == [[1, 2, 3], [4, 5, 6]] and not (m[5] != ref[5]).any()
    assert (m.n, m.m) == (2, 3) and m[1].shape == (2, 3)


@pytest.mark.parametrize("kind", ["ndarray", "field"])
def test_vector_elements_read_what_a_kernel_wrote(arch, kind):
    make = qd.Vector.ndarray if kind == "ndarray" else qd.Vector.field
    v = make(3, qd.i32, shape=4)
    ref = np.arange(12, dtype=np.int32).reshape(4, 3)
    v.from_numpy(ref)
    scale_vectors(v, 3)
    ref = ref * 3 + 1
    assert [v[i][j] for i in range(4) for j in range(3)] == ref.ravel().tolist()
    assert v[np.int64(1)] == ref[1]              # NumPy integers
    # a slice of a 1-D ndarray is a qd.BufferView over it; of a field, a TypeError, as in Quadrants
    if kind == "ndarray":
        assert (v[1:3].offset, v[1:3].size) == (1, 2)
    else:
        with pytest.raises(TypeError, match="slicing a qd.field is not supported"):
            v[1:3]
    v[2][0] = -7                                 # a write after the kernel's, then the kernel again
    ref[2, 0] = -7
    scale_vectors(v, 2)
    np.testing.assert_array_equal(v.to_numpy(), ref * 2 + 1)
    with pytest.raises(IndexError, match=r"element takes 1 integer index"):
        v[0][0, 1] = 1
    with pytest.raises(ValueError, match=r"holds \(3,\) elements"):
        v[0] = [1, 2]


@pytest.mark.parametrize("kind", ["ndarray", "field"])
def test_fill_with_a_vector_or_matrix_value(arch, kind):
    vec = qd.Vector.ndarray(2, qd.f32, shape=(5, 4)) if kind == "ndarray" else qd.Vector.field(2, qd.f32, (5, 4))
    vec.fill(1.5)
    np.testing.assert_array_equal(vec.to_numpy(), np.full((5, 4, 2), 1.5))
    vec.fill(qd.math.vec2(2.0, 4.0))
    np.testing.assert_array_equal(vec.to_numpy(), np.broadcast_to([2.0, 4.0], (5, 4, 2)))
    mat = qd.ndarray(qd.math.mat2, (3,)) if kind == "ndarray" else qd.field(qd.math.mat2, (3,))
    mat.fill([[2.0, 4.0], [1.0, 3.0]])
    np.testing.assert_array_equal(mat.to_numpy(), np.broadcast_to([[2.0, 4.0], [1.0, 3.0]], (3, 2, 2)))
    iv = qd.ndarray(qd.math.ivec2, (8,)) if kind == "ndarray" else qd.field(qd.math.ivec2, (8,))
    iv.fill([3, 3])                              # a pattern the device can fill in place
    scale_vectors(iv, 2)
    np.testing.assert_array_equal(iv.to_numpy(), np.full((8, 2), 7))
    with pytest.raises(ValueError, match=r"holds \(2,\) elements, got a value of shape \(3,\)"):
        vec.fill([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match=r"of scalars takes a number"):
        qd.ndarray(qd.f32, (4,)).fill([1.0, 2.0])


def test_copy_from_vector_and_matrix_ndarrays(arch):
    rng = np.random.default_rng(5)
    for make in (lambda: qd.Vector.ndarray(10, qd.i32, 5), lambda: qd.Matrix.ndarray(2, 2, qd.i32, 5)):
        x, y = make(), make()
        ref = rng.integers(-9, 9, size=y.to_numpy().shape).astype(np.int32)
        y.from_numpy(ref)
        x.copy_from(y)
        np.testing.assert_array_equal(x.to_numpy(), ref)
        y.fill(0)                                # a copy, not shared storage
        np.testing.assert_array_equal(x.to_numpy(), ref)
    with pytest.raises(ValueError, match=r"shapes differ"):
        qd.Vector.ndarray(3, qd.i32, 5).copy_from(qd.Vector.ndarray(2, qd.i32, 5))


def test_deepcopy_is_independent(arch):
    x = qd.Vector.ndarray(3, qd.f32, 4)
    x.from_numpy(np.arange(12, dtype=np.float32).reshape(4, 3))
    scale_vectors_f(x)                            # the data now lives where kernels run
    y = copy.deepcopy(x)
    x.fill(0.0)
    np.testing.assert_array_equal(y.to_numpy(), np.arange(12).reshape(4, 3) * 2.0)
    scale_vectors_f(y)
    np.testing.assert_array_equal(y.to_numpy(), np.arange(12).reshape(4, 3) * 4.0)
    np.testing.assert_array_equal(x.to_numpy(), np.zeros((4, 3)))


@pytest.mark.parametrize("shape", [0, (1, 0), 1.5, (2, 0.5), 2**31, (1, 2**31), -1, "3"])
def test_invalid_ndarray_shapes_are_refused_as_quadrants_does(shape):
    with pytest.raises(qd.QuadrantsRuntimeError, match=r"is not a valid shape for ndarray") as e:
        qd.ndarray(qd.i32, shape=shape)
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("shape,want", [(1, (1,)), (np.int32(3), (3,)), ((1, np.int64(2), 4096), (1, 2, 4096)),
                                        ([2, 3], (2, 3)), ((), ())])
def test_valid_ndarray_shapes(shape, want):
    x = qd.ndarray(qd.f32, shape=shape)
    assert x.shape == want and x.to_numpy().shape == want


def test_bare_vector_and_matrix_annotations_specialise_per_call(arch):
    start = runtime_api.num_compiled()
    a = qd.ndarray(qd.math.ivec3, (4,))
    a.from_numpy(np.arange(12, dtype=np.int32).reshape(4, 3))
    scale_vectors(a, 2)
    b = qd.Vector.ndarray(2, qd.f32, (3,))
    b.from_numpy(np.array([[0.5, 1.0], [2.0, 3.0], [4.0, 5.0]], np.float32))
    scale_vectors(b, 2)
    np.testing.assert_array_equal(a.to_numpy(), np.arange(12).reshape(4, 3) * 2 + 1)
    np.testing.assert_array_equal(b.to_numpy(), np.array([[0.5, 1.0], [2.0, 3.0], [4.0, 5.0]]) * 2 + 1)
    scale_vectors(qd.ndarray(qd.math.ivec3, (9,)), 1)      # same element type: no new specialisation
    assert runtime_api.num_compiled() - start == 2
    with pytest.raises(ValueError, match=r"Invalid value for argument v .*ndarray of vectors"):
        scale_vectors(qd.ndarray(qd.math.mat2, (3,)), 1)
    with pytest.raises(ValueError, match=r"Invalid value for argument v .*scalars"):
        scale_vectors(qd.ndarray(qd.f32, (3,)), 1)


def test_wrong_index_count_names_the_callers_line(cpu):
    x = qd.ndarray(qd.f32, shape=(4, 4))
    with pytest.raises(qd.QuadrantsIndexError, match=r"2d ndarray indexed with 1d indices") as e:
        x[0]
    assert e.value.file == __file__
    with pytest.raises(IndexError, match=r"2d field indexed with 3d indices"):
        qd.field(qd.f32, shape=(2, 2))[0, 0, 0] = 1.0


class FakeMirror:
    """A stand-in device copy: its own array, with transfers counted."""

    def __init__(self, host):
        self.data, self.up, self.down = host.copy(), 0, 0

    def upload(self, host):
        self.data[...] = host
        self.up += 1

    def download(self, host):
        host[...] = self.data
        self.down += 1

    def read(self, host, offset):
        flat = self.data.reshape(-1).view(np.uint8)
        host.reshape(-1).view(np.uint8)[...] = flat[offset:offset + host.nbytes]
        self.cells = getattr(self, "cells", 0) + 1

    def fill(self, value, dtype):
        return False     # as for a pattern the device cannot memset: the caller fills the host


def _on_device(x, device_value):
    """Make `x` look like a CUDA-resident array whose current data (`device_value`) is on the device."""
    x.residency.mirror = FakeMirror(x.storage)
    x.residency.mirror.data[...] = np.asarray(device_value).reshape(x.storage.shape)
    x.residency.where = "device"
    return x.residency.mirror


def test_reading_one_number_copies_only_that_number(cpu):
    """x[i, j] of a device-resident scalar array brings back that element, not the array; the rest
    of the host copy stays stale (so `residency.where` stays 'device'), and a slice still downloads it all."""
    x = qd.ndarray(qd.i32, shape=(3, 4))
    dev = _on_device(x, np.arange(12).reshape(3, 4) * 10)
    assert x[2, 1] == 90 and x[0, 3] == 30 and x[np.int64(1), 0] == 40
    assert dev.down == 0 and dev.cells == 3 and x.residency.where == "device"
    assert x[-1, -1] == 110 and dev.down == 1                    # negative index: the host path
    np.testing.assert_array_equal(x.to_numpy(), np.arange(12).reshape(3, 4) * 10)
    with pytest.raises(IndexError):
        _on_device(x, np.zeros(12))
        x[3, 0]


def test_python_access_goes_through_the_device_copy(cpu):
    """New Python-side reads download a kernel's result first; writes mark the host side current,
    so the next call uploads it (the CUDA discipline of field.py, checked without a GPU)."""
    v = qd.Vector.ndarray(3, qd.f32, 4)
    dev = _on_device(v, np.arange(12).reshape(4, 3))
    assert v[2][1] == 7.0 and dev.down == 1                      # an element read downloads once
    assert v[3] == [9.0, 10.0, 11.0] and dev.down == 1           # then the host copy is current
    v[1][2] = -1.0
    assert v.residency.where == "host"                                    # the next call uploads it
    dev = _on_device(v, np.zeros(12))
    v[0] = [1.0, 2.0, 3.0]                                       # a whole-element write: read, then write
    assert dev.down == 1 and v.residency.where == "host"
    np.testing.assert_array_equal(v.to_numpy()[:2], [[1, 2, 3], [0, 0, 0]])
    _on_device(v, np.ones(12))
    v.fill(qd.math.vec3(4.0, 5.0, 6.0))                          # the device declined: filled on the host
    assert v.residency.where == "host"
    np.testing.assert_array_equal(v.to_numpy(), np.broadcast_to([4.0, 5.0, 6.0], (4, 3)))

    src, dst = qd.Vector.ndarray(3, qd.f32, 4), qd.Vector.ndarray(3, qd.f32, 4)
    _on_device(src, np.arange(12) * 2)
    _on_device(dst, np.ones(12))
    dst.copy_from(src)
    assert dst.residency.where == "host"
    np.testing.assert_array_equal(dst.to_numpy(), np.arange(12).reshape(4, 3) * 2)

    z = qd.ndarray(qd.math.vec2, shape=())
    dev = _on_device(z, [3.0, 4.0])
    assert z[None] == [3.0, 4.0] and dev.down == 1
    z[None][0] = 9.0
    assert z.residency.where == "host"
    _on_device(z, [5.0, 6.0])
    c = copy.deepcopy(z)                                         # copies what the device holds
    assert c.residency.mirror is None and c[None] == [5.0, 6.0]           # with storage of its own
    c[None][1] = 0.0
    assert z[None] == [5.0, 6.0] and z.residency.mirror is not None
