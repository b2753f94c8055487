"""Tests for the ``copy=`` parameter on ``to_torch`` and ``to_numpy`` across field and ndarray types.

Covers:
- ``copy=False`` -> DLPack zero-copy (shares memory, no data movement)
- ``copy=True`` (default) -> kernel copy (always correct, independent memory)
- AoS struct members -> default copy correct, ``copy=False`` raises
- SoA struct members -> ``copy=False`` zero-copy works correctly
- ``to_numpy(copy=False)`` -> zero-copy on CPU via ``np.from_dlpack``
"""

import numpy as np
import pytest

import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.needs_torch

_NO_ZEROCOPY_ARCHS = {qd.vulkan}


def _skip_if_no_zerocopy():
    """Skip the current test if the active backend doesn't support DLPack zero-copy."""
    if qd.cfg.arch in _NO_ZEROCOPY_ARCHS:
        pytest.skip(f"DLPack zero-copy not supported on {qd.cfg.arch.name}")
    if qd.cfg.arch == qd.metal:
        from quadrants.lang.field import (
            _TORCH_MPS_SUPPORTS_DLPACK_BYTES_OFFSET,  # pylint: disable=C0415
        )

        if not _TORCH_MPS_SUPPORTS_DLPACK_BYTES_OFFSET:
            pytest.skip("Metal DLPack zero-copy requires torch >= 2.9.2")


# ---------------------------------------------------------------------------
# ScalarField
# ---------------------------------------------------------------------------


_TORCH_DEVICE_NAME = {qd.cuda: "cuda", qd.amdgpu: "cuda", qd.metal: "mps"}


@test_utils.test()
def test_scalar_field_copy_none():
    f = qd.field(qd.f32, shape=(4,))
    f.from_numpy(np.array([1, 2, 3, 4], dtype=np.float32))
    qd.sync()

    t = f.to_torch()
    np.testing.assert_allclose(t.cpu().numpy(), [1, 2, 3, 4])


@test_utils.test(arch=[qd.cpu])
def test_scalar_field_copy_false_shares_memory():
    """copy=False on CPU should produce a zero-copy view that reflects mutations."""
    f = qd.field(qd.f32, shape=(4,))
    f.from_numpy(np.array([10, 20, 30, 40], dtype=np.float32))
    qd.sync()

    t = f.to_torch(copy=False)
    np.testing.assert_allclose(t.numpy(), [10, 20, 30, 40])

    f.from_numpy(np.array([99, 88, 77, 66], dtype=np.float32))
    qd.sync()
    np.testing.assert_allclose(t.numpy(), [99, 88, 77, 66])


# ---------------------------------------------------------------------------
# MatrixField (vector)
# ---------------------------------------------------------------------------


@test_utils.test()
def test_vector_field_copy_none():
    f = qd.Vector.field(3, qd.f32, shape=(2,))
    f.from_numpy(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    qd.sync()

    t = f.to_torch()
    np.testing.assert_allclose(t.cpu().numpy(), [[1, 2, 3], [4, 5, 6]])


# ---------------------------------------------------------------------------
# ScalarNdarray
# ---------------------------------------------------------------------------


@test_utils.test()
def test_scalar_ndarray_copy_none():
    nd = qd.ndarray(qd.f32, shape=(4,))
    nd.from_numpy(np.array([10, 20, 30, 40], dtype=np.float32))
    qd.sync()

    t = nd.to_torch(copy=True)
    np.testing.assert_allclose(t.cpu().numpy(), [10, 20, 30, 40])


# ---------------------------------------------------------------------------
# MatrixNdarray
# ---------------------------------------------------------------------------


@test_utils.test()
def test_matrix_ndarray_copy_none():
    mat_type = qd.types.matrix(2, 3, qd.f32)
    nd = qd.ndarray(mat_type, shape=(2,))
    data = np.array([[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]], dtype=np.float32)
    nd.from_numpy(data)
    qd.sync()

    t = nd.to_torch(copy=True)
    np.testing.assert_allclose(t.cpu().numpy(), data)


# ---------------------------------------------------------------------------
# VectorNdarray
# ---------------------------------------------------------------------------


@test_utils.test()
def test_vector_ndarray_copy_none():
    vec_type = qd.types.vector(3, qd.f32)
    nd = qd.ndarray(vec_type, shape=(2,))
    data = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
    nd.from_numpy(data)
    qd.sync()

    t = nd.to_torch(copy=True)
    np.testing.assert_allclose(t.cpu().numpy(), data)


# ---------------------------------------------------------------------------
# Struct fields: AoS vs SoA
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Backends without DLPack: copy=False should raise
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Apple Metal: MPS synchronisation
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# to_numpy(copy=...) -- CPU only (numpy arrays cannot reference GPU memory)
# ---------------------------------------------------------------------------


@test_utils.test(arch=[qd.cpu])
def test_scalar_field_to_numpy_copy_false():
    f = qd.field(qd.f32, shape=(4,))
    f.from_numpy(np.array([1, 2, 3, 4], dtype=np.float32))
    qd.sync()

    arr = f.to_numpy(copy=False)
    np.testing.assert_allclose(arr, [1, 2, 3, 4])


@test_utils.test(arch=[qd.cpu])
def test_scalar_field_to_numpy_copy_false_shares_memory():
    """to_numpy(copy=False) on CPU should produce a zero-copy view that reflects mutations."""
    f = qd.field(qd.f32, shape=(4,))
    f.from_numpy(np.array([10, 20, 30, 40], dtype=np.float32))
    qd.sync()

    arr = f.to_numpy(copy=False)
    np.testing.assert_allclose(arr, [10, 20, 30, 40])

    f.from_numpy(np.array([99, 88, 77, 66], dtype=np.float32))
    qd.sync()
    np.testing.assert_allclose(arr, [99, 88, 77, 66])


def _np_supports_dlpack_v1():
    """NumPy >= 2.1 can consume DLPack v1 capsules, which yield writable arrays."""
    return tuple(int(x) for x in np.__version__.split(".")[:2]) >= (2, 1)


@test_utils.test(arch=[qd.cpu])
def test_scalar_field_to_numpy_copy_false_is_writable():
    """to_numpy(copy=False) should return a writable array on NumPy >= 2.1 (DLPack v1 capsule)."""
    if not _np_supports_dlpack_v1():
        pytest.skip("NumPy < 2.1 returns read-only arrays from DLPack v0 capsules")
    f = qd.field(qd.f32, shape=(4,))
    f.from_numpy(np.array([10, 20, 30, 40], dtype=np.float32))
    qd.sync()

    arr = f.to_numpy(copy=False)
    assert arr.flags.writeable, "to_numpy(copy=False) should return a writable array"
    arr[0] = 99.0
    np.testing.assert_allclose(arr[0], 99.0)


@test_utils.test(arch=[qd.cpu])
def test_scalar_ndarray_to_numpy_copy_false_is_writable():
    """Ndarray to_numpy(copy=False) should return a writable array on NumPy >= 2.1 (DLPack v1 capsule)."""
    if not _np_supports_dlpack_v1():
        pytest.skip("NumPy < 2.1 returns read-only arrays from DLPack v0 capsules")
    nd = qd.ndarray(qd.f32, shape=(4,))
    nd.from_numpy(np.array([10, 20, 30, 40], dtype=np.float32))
    qd.sync()

    arr = nd.to_numpy(copy=False)
    assert arr.flags.writeable, "to_numpy(copy=False) should return a writable array"
    arr[0] = 99.0
    np.testing.assert_allclose(arr[0], 99.0)


@test_utils.test(arch=[qd.cpu])
def test_scalar_field_to_numpy_copy_false_write_visible():
    """Writing to a to_numpy(copy=False) view should be visible to subsequent field reads (NumPy >= 2.1)."""
    if not _np_supports_dlpack_v1():
        pytest.skip("NumPy < 2.1 returns read-only arrays from DLPack v0 capsules")
    f = qd.field(qd.f32, shape=(4,))
    f.from_numpy(np.array([10, 20, 30, 40], dtype=np.float32))
    qd.sync()

    view = f.to_numpy(copy=False)
    view[0] = 100.0
    qd.sync()
    fresh = f.to_numpy()
    np.testing.assert_allclose(fresh[0], 100.0)


# ---------------------------------------------------------------------------
# Layout-tagged fields: to_numpy(copy=False) with order=
# ---------------------------------------------------------------------------


@test_utils.test(arch=[qd.cpu])
def test_layout_tagged_field_to_numpy_copy_false():
    """to_numpy(copy=False) on a layout-tagged (order='ji') field should return a correct canonical view."""
    f = qd.field(qd.f32, shape=(3, 4), order="ji")
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    f.from_numpy(data)
    qd.sync()

    arr = f.to_numpy(copy=False)
    np.testing.assert_allclose(arr, data)
    assert arr.shape == (3, 4)


@test_utils.test(arch=[qd.cpu])
def test_layout_tagged_field_to_numpy_copy_false_write_visible():
    """Writes to a layout-tagged to_numpy(copy=False) view should be visible to subsequent field reads."""
    if not _np_supports_dlpack_v1():
        pytest.skip("NumPy < 2.1 returns read-only arrays from DLPack v0 capsules")
    f = qd.field(qd.f32, shape=(3, 4), order="ji")
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    f.from_numpy(data)
    qd.sync()

    view = f.to_numpy(copy=False)
    view[0, 0] = 999.0
    qd.sync()
    fresh = f.to_numpy()
    np.testing.assert_allclose(fresh[0, 0], 999.0)


# ---------------------------------------------------------------------------
# MatrixField / Tensor wrapper: to_dlpack(versioned=True)
# ---------------------------------------------------------------------------


@test_utils.test(arch=[qd.cpu])
def test_scalar_field_to_numpy_default_is_copy():
    """Default to_numpy() returns an independent copy, not a view."""
    f = qd.field(qd.f32, shape=(4,))
    f.from_numpy(np.array([10, 20, 30, 40], dtype=np.float32))
    qd.sync()

    arr = f.to_numpy()
    f.from_numpy(np.array([99, 88, 77, 66], dtype=np.float32))
    qd.sync()
    np.testing.assert_allclose(arr, [10, 20, 30, 40])


@test_utils.test(arch=[qd.cpu])
def test_vector_field_to_numpy_copy_false():
    f = qd.Vector.field(3, qd.f32, shape=(2,))
    f.from_numpy(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    qd.sync()

    arr = f.to_numpy(copy=False)
    np.testing.assert_allclose(arr, [[1, 2, 3], [4, 5, 6]])


@test_utils.test(arch=[qd.cpu])
def test_scalar_ndarray_to_numpy_copy_false():
    nd = qd.ndarray(qd.f32, shape=(4,))
    nd.from_numpy(np.array([10, 20, 30, 40], dtype=np.float32))
    qd.sync()

    arr = nd.to_numpy(copy=False)
    np.testing.assert_allclose(arr, [10, 20, 30, 40])


@test_utils.test(arch=[qd.cpu])
def test_vector_ndarray_to_numpy_copy_false():
    vec_type = qd.types.vector(3, qd.f32)
    nd = qd.ndarray(vec_type, shape=(2,))
    data = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
    nd.from_numpy(data)
    qd.sync()

    arr = nd.to_numpy(copy=False)
    np.testing.assert_allclose(arr, data)


# ---------------------------------------------------------------------------
# 0-dim ScalarField: copy=False should raise
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Unsupported dtype: copy=False should raise
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# copy=False with cross-device transfer should raise
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# MatrixField (n>1, m>1) copy=False
# ---------------------------------------------------------------------------


@test_utils.test()
def test_matrix_field_copy_true():
    f = qd.Matrix.field(2, 3, qd.f32, shape=(2,))
    data = np.array([[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]], dtype=np.float32)
    f.from_numpy(data)
    qd.sync()

    t = f.to_torch(copy=True)
    np.testing.assert_allclose(t.cpu().numpy(), data)


@test_utils.test(arch=[qd.cpu])
def test_matrix_field_to_numpy_copy_false():
    """Actual matrix field (2x3) to_numpy(copy=False) on CPU."""
    f = qd.Matrix.field(2, 3, qd.f32, shape=(2,))
    data = np.array([[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]], dtype=np.float32)
    f.from_numpy(data)
    qd.sync()

    arr = f.to_numpy(copy=False)
    np.testing.assert_allclose(arr, data)


# ---------------------------------------------------------------------------
# MatrixNdarray to_numpy(copy=False)
# ---------------------------------------------------------------------------


@test_utils.test(arch=[qd.cpu])
def test_matrix_ndarray_to_numpy_copy_false():
    mat_type = qd.types.matrix(2, 3, qd.f32)
    nd = qd.ndarray(mat_type, shape=(2,))
    data = np.array([[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]], dtype=np.float32)
    nd.from_numpy(data)
    qd.sync()

    arr = nd.to_numpy(copy=False)
    np.testing.assert_allclose(arr, data)


# ---------------------------------------------------------------------------
# AoS struct member to_numpy(copy=False) should raise
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# copy=True independence for vector/matrix/ndarray types
# ---------------------------------------------------------------------------


@test_utils.test(arch=[qd.cpu])
def test_vector_field_copy_true_independent():
    """Default copy=True on VectorField should return a buffer independent of the field."""
    f = qd.Vector.field(3, qd.f32, shape=(2,))
    f.from_numpy(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    qd.sync()

    t = f.to_torch()
    f.from_numpy(np.array([[99, 88, 77], [66, 55, 44]], dtype=np.float32))
    qd.sync()
    np.testing.assert_allclose(t.numpy(), [[1, 2, 3], [4, 5, 6]])


@test_utils.test(arch=[qd.cpu])
def test_matrix_field_copy_true_independent():
    """Default copy=True on MatrixField should return a buffer independent of the field."""
    f = qd.Matrix.field(2, 2, qd.f32, shape=(2,))
    data = np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], dtype=np.float32)
    f.from_numpy(data)
    qd.sync()

    t = f.to_torch()
    f.from_numpy(np.zeros_like(data))
    qd.sync()
    np.testing.assert_allclose(t.numpy(), data)


@test_utils.test(arch=[qd.cpu])
def test_scalar_ndarray_copy_true_independent():
    """Default copy=True on ScalarNdarray should return a buffer independent of the ndarray."""
    nd = qd.ndarray(qd.f32, shape=(4,))
    nd.from_numpy(np.array([10, 20, 30, 40], dtype=np.float32))
    qd.sync()

    t = nd.to_torch()
    nd.from_numpy(np.zeros(4, dtype=np.float32))
    qd.sync()
    np.testing.assert_allclose(t.numpy(), [10, 20, 30, 40])


@test_utils.test(arch=[qd.cpu])
def test_vector_ndarray_copy_true_independent():
    """Default copy=True on VectorNdarray should return a buffer independent of the ndarray."""
    vec_type = qd.types.vector(3, qd.f32)
    nd = qd.ndarray(vec_type, shape=(2,))
    data = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
    nd.from_numpy(data)
    qd.sync()

    t = nd.to_torch()
    nd.from_numpy(np.zeros_like(data))
    qd.sync()
    np.testing.assert_allclose(t.numpy(), data)


@test_utils.test(arch=[qd.cpu])
def test_vector_field_to_numpy_copy_true_independent():
    """Default to_numpy() on VectorField should return an independent copy."""
    f = qd.Vector.field(3, qd.f32, shape=(2,))
    f.from_numpy(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    qd.sync()

    arr = f.to_numpy()
    f.from_numpy(np.array([[99, 88, 77], [66, 55, 44]], dtype=np.float32))
    qd.sync()
    np.testing.assert_allclose(arr, [[1, 2, 3], [4, 5, 6]])


