"""`qd.algorithms` called at a kernel's top level, checked against NumPy (real Quadrants 1.3.3 refuses
these in-kernel algorithms on the CPU: `qd.block.sync is not supported for arch x64`), and the host
helpers `parallel_sort` (whose result matches Quadrants' for the values below) and `PrefixSumExecutor`."""
import numpy as np
import pytest

import qdexplorer.lang as qd

N = 37


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def _field(dt, values):
    f = qd.field(dt, shape=len(values))
    f.from_numpy(np.asarray(values, dt.numpy))
    return f


def test_reductions_scans_and_select_match_numpy():
    rng = np.random.default_rng(1)
    a_np = rng.integers(-50, 50, N).astype(np.int32)
    a, out, s = _field(qd.i32, a_np), qd.field(qd.i32, shape=N), qd.field(qd.u32, shape=qd.algorithms.reduce_scratch_slots(N, 1))
    flags, n_out = _field(qd.i32, (a_np > 0).astype(np.int32)), qd.field(qd.i32, shape=1)
    got = {}

    @qd.kernel
    def red():
        qd.algorithms.reduce_add(a, out, s, N, qd.i32, 1)

    @qd.kernel
    def red_min():
        qd.algorithms.reduce_min(a, out, s, N, qd.i32, 1)

    @qd.kernel
    def scan():
        qd.algorithms.exclusive_scan_add(a, out, s, N, qd.i32, 1)

    @qd.kernel
    def scan_max():
        qd.algorithms.exclusive_scan_max(a, out, s, N, qd.i32, 1)

    @qd.kernel
    def sel():
        qd.algorithms.select(a, flags, out, n_out, s, N, 1)

    for name, k in [("sum", red), ("min", red_min), ("scan", scan), ("scan_max", scan_max), ("select", sel)]:
        k()
        got[name] = out.to_numpy().copy()
    assert got["sum"][0] == a_np.sum() and got["min"][0] == a_np.min()
    np.testing.assert_array_equal(got["scan"], np.concatenate([[0], np.cumsum(a_np)[:-1]]))
    np.testing.assert_array_equal(got["scan_max"][1:], np.maximum.accumulate(a_np)[:-1])
    assert got["scan_max"][0] == np.iinfo(np.int32).min
    assert n_out[0] == (a_np > 0).sum()
    np.testing.assert_array_equal(got["select"][:n_out[0]], a_np[a_np > 0])


def test_reduce_by_key_and_a_stable_sort_with_values():
    rng = np.random.default_rng(2)
    keys_np = np.sort(rng.integers(0, 6, N)).astype(np.int32)
    vals_np = rng.random(N).astype(np.float32)
    keys, vals = _field(qd.i32, keys_np), _field(qd.f32, vals_np)
    k_out, v_out, runs = qd.field(qd.i32, shape=N), qd.field(qd.f32, shape=N), qd.field(qd.i32, shape=1)
    scratch = qd.field(qd.u32, shape=qd.algorithms.reduce_by_key_scratch_slots(N))

    @qd.kernel
    def rbk():
        qd.algorithms.reduce_by_key_add(keys, vals, k_out, v_out, runs, scratch, N, qd.f32, 1)

    rbk()
    uniq = np.unique(keys_np)
    assert runs[0] == len(uniq)
    np.testing.assert_array_equal(k_out.to_numpy()[:runs[0]], uniq)
    np.testing.assert_allclose(v_out.to_numpy()[:runs[0]], [vals_np[keys_np == u].sum() for u in uniq], rtol=1e-5)

    skeys_np = rng.integers(0, 10, N).astype(np.int32)
    sk, sv = _field(qd.i32, skeys_np), _field(qd.i32, np.arange(N))
    tk, tv = qd.field(qd.i32, shape=N), qd.field(qd.i32, shape=N)

    @qd.kernel
    def srt():
        qd.algorithms.sort(sk, tk, sv, tv, scratch, N, qd.i32, True, 32, 1)

    srt()
    order = np.argsort(skeys_np, kind="stable")
    np.testing.assert_array_equal(sk.to_numpy(), skeys_np[order])
    np.testing.assert_array_equal(sv.to_numpy(), order)


def test_host_helpers():
    keys, vals = _field(qd.f32, [3, 1, 2, 8, 5, 4, 7, 6]), _field(qd.i32, np.arange(8))
    qd.algorithms.parallel_sort(keys, vals)
    assert keys.to_numpy().tolist() == [1, 2, 3, 4, 5, 6, 7, 8] and vals.to_numpy().tolist() == [1, 2, 0, 5, 4, 7, 6, 3]
    p = _field(qd.i32, np.arange(1, 9))
    qd.algorithms.PrefixSumExecutor(8).run(p)
    assert p.to_numpy().tolist() == [1, 3, 6, 10, 15, 21, 28, 36]


def test_scratch_slots_refuse_a_depth_above_quadrants_maximum():
    for slots in (qd.algorithms.reduce_scratch_slots, qd.algorithms.exclusive_scan_scratch_slots,
                  qd.algorithms.sort_scratch_slots):
        assert slots(256, 4) >= 1
        with pytest.raises(ValueError, match="log256_max_n=5 exceeds the maximum of 4"):
            slots(256, 5)
