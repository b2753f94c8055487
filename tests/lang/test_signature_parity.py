"""Signature parity with Quadrants 1.3.3 (issue 39, item 2): for every public callable that
benchmarks/signature_parity.py walks (612 in Quadrants 1.3.3: functions of `qd` and its submodules,
methods of fields, ndarrays, matrices, vectors, struct values, SNodes, types and kernels), ours accepts
every call Quadrants' accepts: the same positional parameters in the same order, the same keyword
names, defaults where theirs has them. Quadrants' side is the snapshot
tests/lang/quadrants_signatures.json (regenerated and checked against real Quadrants below);
the differences that remain are tests/lang/signature_exceptions.py, each with its reason."""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

import qdexplorer.lang as qd
from tests.lang.signature_exceptions import EXCEPTIONS, MISSING

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _walker():
    spec = importlib.util.spec_from_file_location("signature_parity",
                                                  os.path.join(ROOT, "benchmarks", "signature_parity.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def result():
    from qdexplorer.lang.compat import surface as compat
    sp = _walker()
    qd.init(arch=qd.cpu)
    res = sp.compare(sp.load_snapshot(), sp.our_surfaces(qd), compat.REFUSED)
    yield res
    qd.reset()


def test_every_callable_is_compared_or_accounted_for(result):
    assert result["compared"] >= 470, result["compared"]
    assert sorted(result["missing"]) == sorted(MISSING), "callables of Quadrants' that do not resolve here"


def test_every_difference_is_listed_with_its_reason(result):
    unlisted = {k: v for k, v in result["diffs"].items() if k not in EXCEPTIONS}
    assert unlisted == {}, "\n".join(f"{k}: theirs {t}, ours {o}: {'; '.join(w)}" for k, (t, o, w) in unlisted.items())


def test_every_listed_difference_is_still_one(result):
    gone = [k for k in EXCEPTIONS if k not in result["diffs"]]
    assert gone == [], "no longer differ: remove them from tests/lang/signature_exceptions.py"


def test_the_snapshot_is_real_quadrants():
    pytest.importorskip("quadrants", reason="the snapshot is read from real Quadrants 1.3.3")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "signature_parity.py"), "--check"],
                       capture_output=True, text=True, timeout=300, cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
    assert r.returncode == 0, r.stdout[-500:] + r.stderr[-2000:]


def test_the_comparison_sees_what_a_call_needs():
    sp = _walker()
    x = [["x", "POSITIONAL_OR_KEYWORD", False]]
    assert sp.differences(x, [["args", "VAR_POSITIONAL", False], ["kwargs", "VAR_KEYWORD", False]]) == \
        ["positional 0 `x` missing", "keyword `x` missing"]  # a (*args, **kwargs) wrapper hides the name
    assert sp.differences(x + [["dtype", "POSITIONAL_OR_KEYWORD", True]], x) == \
        ["positional 1 `dtype` missing", "keyword `dtype` missing"]
    assert sp.differences(x, [["y", "POSITIONAL_OR_KEYWORD", False]])[0] == "positional 0 is `y`, theirs `x`"
    assert sp.differences(x, x + [["extra", "KEYWORD_ONLY", True]]) == []  # ours may accept more


# the calls that failed before the signatures were made Quadrants' (each one a TypeError or a wrong binding)

@pytest.fixture
def q():
    qd.init(arch=qd.cpu)
    yield qd
    qd.reset()


def test_intrinsics_take_quadrants_keywords_in_kernels_and_in_python(q):
    a = qd.field(qd.i32, shape=2)
    o = qd.field(qd.f32, shape=3)

    @qd.kernel
    def k(v: qd.f32):
        qd.atomic_add(x=a[0], y=5)
        qd.atomic_max(a[1], y=7)
        o[0] = qd.floor(x=v, dtype=qd.i32)
        o[1] = qd.atan2(x1=v, x2=1.0)
        o[2] = qd.select(cond=v > 0, x1=1.0, x2=2.0)

    k(2.5)
    assert a.to_numpy().tolist() == [5, 7]
    assert o.to_numpy()[0] == 2.0 and abs(o.to_numpy()[1] - np.arctan2(2.5, 1.0)) < 1e-6 and o.to_numpy()[2] == 1.0
    assert qd.sin(x=0.0) == 0.0 and qd.max(1, 3) == 3


def test_an_unknown_keyword_of_an_intrinsic_is_one_line(q):
    @qd.kernel
    def k() -> qd.f32:
        return qd.sqrt(y=4.0)

    with pytest.raises(qd.QuadrantsTypeError, match="unexpected keyword argument 'y'"):
        k()


def test_field_methods_take_quadrants_parameters(q):
    v = qd.Vector.field(3, qd.f32, shape=2)
    v.fill(val=1.5)
    assert v.to_numpy(True).shape == (2, 3, 1)  # keep_dims first, as Quadrants' MatrixField.to_numpy
    s = qd.field(qd.f32, shape=2)
    s.fill(val=2.0)
    assert s.to_numpy(np.float64).dtype == np.float64  # dtype first on a scalar field
    assert "\"dltensor_versioned\"" in repr(s.to_dlpack(versioned=True)) and "\"dltensor\"" in repr(s.to_dlpack())
    st = qd.Struct.field({"a": qd.f32}, shape=2)
    st.from_numpy(array_dict={"a": np.array([1.0, 2.0], np.float32)})
    assert st.to_numpy(copy=True)["a"].tolist() == [1.0, 2.0]


def test_allocation_parameters_bind_in_quadrants_order(q):
    f = qd.field(qd.f32, 4, None, "named")  # (dtype, shape, order, name, ...)
    m = qd.Matrix.field(2, 2, qd.f32, 4, None, "mat")
    v = qd.Vector.field(3, qd.f32, 4, None, "vec")
    assert (f.name, m.name, v.name) == ("named", "mat", "vec")
    assert qd.Vector([1.0, 2.0]).field(3, qd.f32, shape=2).to_numpy().shape == (2, 3)  # a vector's .field is Vector's
    assert qd.Vector.zero(qd.f32, 2, 3).shape == (2, 3)


def test_ndarray_annotation_takes_element_shape(q):
    @qd.kernel
    def k(a: qd.types.ndarray(qd.f32, 1, element_shape=(3,))):
        for i in a:
            a[i] = a[i] * 2.0

    x = qd.Vector.ndarray(3, qd.f32, shape=2)
    x.fill(1.0)
    k(x)
    assert x.to_numpy().tolist() == [[2.0] * 3] * 2
    with pytest.raises(ValueError, match="field_dim"):
        qd.types.ndarray(qd.f32, field_dim=1)


def test_decorators_and_init_take_quadrants_parameters():
    qd.init(qd.cpu, qd.f64)  # positional default_fp, as Quadrants' init(arch, default_fp, default_ip, ...)
    try:
        o = qd.field(float, shape=1)
        assert o.dtype == qd.f64

        @qd.func(is_real_function=True)
        def g(x: qd.f64) -> qd.f64:
            return x * 2.0

        @qd.kernel(_fn=None)
        def k(t: qd.template(ndim=1)):
            t[0] = g(1.5)

        k(o)
        assert o[0] == 3.0

        @qd.data_oriented(stable_members=True)
        class C:
            pass

        assert C is not None
    finally:
        qd.reset()


def test_struct_values_and_struct_fields_take_quadrants_parameters(q):
    S = qd.types.struct(a=qd.f32, v=qd.types.vector(2, qd.f32))
    s = S(a=1.0, v=qd.Vector([2.0, 3.0]))
    d = s.to_dict(include_ndim=True)
    assert d["a"] == 1.0 and d["v"] == [2.0, 3.0] and d["__matrix_ndim"] == {"v": 1}
    f = qd.Struct.field({"a": qd.f32}, None, 4, "sf", None, True)  # (members, methods, shape, name, offset, needs_grad)
    assert f.shape == (4,) and f.a.grad is not None
