"""Constructs of corpus-b's real programs (issue 39) that Quadrants 1.3.3 runs on the CPU and ours
failed on: each as a few-line program; expected values are what Quadrants 1.3.3 printed for it."""
import numpy as np
import pytest

import qdexplorer.lang as qd


def test_ndarray_element_dim_takes_the_last_axes_of_an_external_array(cpu):
    # imgproc_bilateral_filter, imgproc_gaussian_filter: `qd.types.ndarray(element_dim=1)` was ignored
    # ("'img' has 3 dimension(s) but is indexed with 2")
    img2d = qd.types.ndarray(element_dim=1)

    @qd.kernel
    def k(img: img2d, out: qd.types.ndarray(element_shape=(2,), ndim=1)):
        for i, j in qd.ndrange(img.shape[0], img.shape[1]):
            img[i, j] = img[i, j] * 2 + qd.Vector([1, 0, 0], qd.u8)
        for i in out:
            out[i] += qd.Vector([i, 1.5])

    a = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    o = np.zeros((4, 2), np.float32)
    k(a, o)
    assert a.reshape(-1).tolist() == [2 * x + (1 if x % 3 == 0 else 0) for x in range(18)]
    assert o.tolist() == [[0.0, 1.5], [1.0, 1.5], [2.0, 1.5], [3.0, 1.5]]
    with pytest.raises(ValueError, match="shape doesn't match specified dim"):
        qd.types.ndarray(element_dim=1, element_shape=(2, 2))
    with pytest.raises(ValueError, match="field_dim"):
        qd.types.ndarray(field_dim=2)


def test_vector_literal_of_a_kernel_int_and_a_float_literal_is_float(cpu):
    # found writing the element_dim test: qd.Vector([i, 1.5]) with i an i32 was an i32 vector (1.5 -> 1),
    # a silent wrong answer; Quadrants promotes every entry's type, a literal's being default_ip/fp
    @qd.kernel
    def k(out: qd.types.ndarray(dtype=qd.types.vector(2, qd.f32), ndim=1)):
        for i in out:
            v = qd.Vector([i, 1.5])
            out[i] += v + qd.Vector([i, 0.25])

    o = np.zeros((3, 2), np.float32)
    k(o)
    assert o.tolist() == [[0.0, 1.75], [2.0, 1.75], [4.0, 1.75]]


def test_and_or_of_vectors_then_select_with_a_scalar_branch(cpu):
    # games201hw_implicit_mpm: `cond = (I < b and v < 0) or (I > n - b and v > 0)` then
    # qd.select(cond, 0, vec) ("expected a scalar value here, got a 2 vector/matrix")
    g = qd.Vector.field(2, qd.f32, shape=(3, 3))
    d = qd.Vector.field(2, qd.f32, shape=(3, 3))
    gr = qd.Vector([0.0, -9.8])

    @qd.kernel
    def k():
        for I in qd.grouped(g):
            g[I] = qd.Vector([I[0] - 1.0, 1.0 - I[1]])
        for I in qd.grouped(g):
            cond = (I < 1 and g[I] < 0) or (I > 1 and g[I] > 0)
            d[I] = qd.select(cond, 0, gr * 0.5)
            g[I] = qd.select(cond, 0, g[I])

    k()
    assert d.to_numpy().tolist() == [[[0.0, np.float32(-4.9)]] * 3] * 3
    assert g.to_numpy().tolist() == [[[0.0, 1.0], [0.0, 0.0], [0.0, -1.0]]] * 3


def test_template_param_assigned_in_a_func_and_loop_config_reading_self(cpu):
    # games201hw_implicit_mpm: qd.loop_config(block_dim=self.n_grid) ("name 'self' is not defined"), and
    # makePD's `M = ...` on a qd.template() parameter bound to self.Aij[p], which Quadrants stores through
    @qd.data_oriented
    class S:
        def __init__(self):
            self.n = 4
            self.A = qd.Matrix.field(2, 2, qd.f32, shape=self.n)
            self.c = qd.field(qd.i32, shape=self.n)

        @qd.func
        def make(self, M: qd.template()):
            if M[0, 0] > 1:
                M = M @ M.transpose()

        @qd.kernel
        def run(self):
            qd.loop_config(block_dim=self.n)
            for p in self.A:
                self.A[p] = qd.Matrix([[p, 1], [0, 1]])
                self.make(self.A[p])
                self.c[p] = p

    s = S()
    s.run()
    assert s.A.to_numpy().tolist() == [[[0.0, 1.0], [0.0, 1.0]], [[1.0, 1.0], [0.0, 1.0]], [[5.0, 1.0], [1.0, 1.0]],
                                       [[10.0, 1.0], [1.0, 1.0]]]
    assert s.c.to_numpy().tolist() == [0, 1, 2, 3]


def test_atomic_on_a_component_of_a_vector_field_element(cpu):
    # voxel_example1: qd.atomic_min(self.bbox[0][d], ...) ("needs an ndarray or shared-array element")
    bbox = qd.Vector.field(3, dtype=qd.f32, shape=2)
    m = qd.field(qd.i32, shape=(4, 5, 6))
    cnt = qd.Vector.field(2, dtype=qd.i32, shape=())

    @qd.kernel
    def k():
        for d in qd.static(range(3)):
            bbox[0][d] = 1e9
            bbox[1][d] = -1e9
        for I in qd.grouped(m):
            if (I[0] + I[1] + I[2]) % 3 == 1:
                for d in qd.static(range(3)):
                    qd.atomic_min(bbox[0][d], (I[d] - 1) * 0.5)
                    qd.atomic_max(bbox[1][d], (I[d] + 2) * 0.5)
                for d in range(2):  # a runtime component index
                    qd.atomic_add(cnt[None][d], d + 1)

    k()
    assert bbox.to_numpy().tolist() == [[-0.5, -0.5, -0.5], [2.5, 3.0, 3.5]]
    assert cnt.to_numpy().tolist() == [40, 80]


def test_a_component_of_a_vector_field_is_a_scalar_field(cpu):
    # difftaichi_smoke: soa() tests isinstance(x.get_scalar_field(i), qd.ScalarField) ("'ScalarComponent'
    # object has no attribute 'n'")
    v = qd.Vector.field(2, dtype=qd.f32)
    s = qd.field(qd.f32)
    assert isinstance(v.get_scalar_field(0), qd.ScalarField) and isinstance(s, qd.ScalarField)
    assert not isinstance(v, qd.ScalarField) and isinstance(v, qd.MatrixField)
    assert not isinstance(v.get_scalar_field(1), qd.MatrixField)


def test_sparse_capacity_beyond_memory_is_refused_in_one_line(cpu):
    # a 32768^3 pointer grid is 128 TiB stored densely, more than lazily reserved storage (lazy_storage.py)
    # maps; Quadrants allocates sparse cells on demand. Here: one clear refusal (taichi_elements' 256 GiB
    # grids are reserved lazily and its 4 PiB pid lists stored shorter, test_sparse_struct_for.py)
    m = qd.field(qd.f32)
    block = qd.root.pointer(qd.ijk, 4096)
    with pytest.raises(MemoryError, match=r"cannot allocate 131,072 GiB .* under pointer SNodes: .*lazily"):
        block.dense(qd.ijk, 8).place(m)


def test_struct_for_over_a_sparse_field_in_a_func_called_at_the_top(cpu):
    # games201hw_implicit_mpm's project(): `for p in x` over a pointer field inside a @qd.func the kernel calls
    # at its top level ("an inner loop over a pointer/bitmasked field is not supported"); Quadrants inlines it
    # there and visits the active cells only
    x = qd.Vector.field(2, qd.f32)
    qd.root.pointer(qd.i, 4).dense(qd.i, 4).place(x)
    cnt = qd.field(qd.i32, shape=())

    @qd.func
    def project(y: qd.template()):
        for p in y:
            if p % 3 == 0:
                y[p] = qd.zero(y[p])
            cnt[None] += 1

    @qd.kernel
    def fill():
        for i in range(6):
            x[i * 2] = qd.Vector([i + 1.0, 2.0])

    @qd.kernel
    def kp(y: qd.template()):
        project(y)

    fill()
    kp(x)
    got = x.to_numpy()
    assert got[:, 0].tolist() == [0, 0, 2, 0, 3, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0] and cnt[None] == 12
