"""Differential testing in CI: random programs run under real Quadrants 1.3.3 and under
qdexplorer.lang must give the same results (see compare.py for what "same" means).

The seeds run here are a fixed range; `benchmarks/difftest.py` runs the long ranges. A failing
seed prints its mismatch and the command that shrinks it to a minimal reproducer. Without real
Quadrants (it is in the test extras for Linux x86_64 only) the comparison skips; nothing is
precomputed. The tests of the machinery itself (generator, comparison, shrinker) always run."""
from __future__ import annotations

import ast
import importlib.util
import os

import numpy as np
import pytest

from .compare import Mismatch, compare, narrowest, zero_sign_only
from .explain import explain
from .program import CLASSES, OLD_CLASSES, as_ours, generate, pick_class
from .runner import opaque_float_constants
from .shrink import blocks, shrink

CI_SEEDS = range(int(os.environ.get("QDX_DIFFTEST_SEEDS", "120")))
# the classes of issue 39 (compound.py), a few small programs each beside the sample above (~1 s each)
NEW_CLASS_SEEDS = range(int(os.environ.get("QDX_DIFFTEST_CLASS_SEEDS", "5")))
HAVE_QUADRANTS = importlib.util.find_spec("quadrants") is not None
# CI seeds that still mismatch, each an open finding (issue 29); they run in their own xfail test so
# that a fix shows as XPASS, and the rest of the sample stays strict.
KNOWN_OPEN: dict[int, str] = {
    # none at present: 72 (an f16 cast segfault), 83 (abs of the i32 minimum), 99 (// of constants)
    # and 115 (f16 rounding) were fixed or named in tests/lang/test_difftest_findings.py
}


@pytest.fixture(scope="module")
def pair():
    from .runner import Pair
    with Pair(timeout=120) as p:
        yield p


@pytest.mark.skipif(not HAVE_QUADRANTS, reason="real Quadrants is not installed (pip install '.[test]' on Linux x86_64)")
@pytest.mark.long
def test_random_programs_agree_with_quadrants(pair):
    failures = []
    for seed in CI_SEEDS:
        if seed in KNOWN_OPEN:
            continue
        prog = generate(seed, small=True)
        ms = pair.check(prog)
        if ms and not explain(ms):
            failures.append(f"seed {seed} ({prog.cls}): {ms[0]} -- shrink with: "
                            f"python benchmarks/difftest.py --small --shrink {seed}")
    assert pair.ref.version == "1.3.3", pair.ref.version
    assert not failures, "\n".join(failures)


@pytest.mark.skipif(not HAVE_QUADRANTS, reason="real Quadrants is not installed")
@pytest.mark.parametrize("cls", [c for c in CLASSES if c not in OLD_CLASSES])
@pytest.mark.long
def test_each_new_class_agrees_with_quadrants(pair, cls):
    """Scalars of every width and u1, vectors and matrices, struct fields, ndarrays: a few seeds each."""
    failures = []
    for seed in NEW_CLASS_SEEDS:
        prog = generate(seed, small=True, classes=(cls,))
        assert prog.cls == cls
        ms = pair.check(prog)
        if ms and not explain(ms):
            failures.append(f"seed {seed} ({cls}): {ms[0]} -- shrink with: "
                            f"python benchmarks/difftest.py --small --classes {cls} --shrink {seed}")
    assert not failures, "\n".join(failures)


@pytest.mark.skipif(not HAVE_QUADRANTS, reason="real Quadrants is not installed")
@pytest.mark.parametrize("seed", sorted(KNOWN_OPEN))
@pytest.mark.long
def test_known_open_mismatches(pair, seed):
    ms = pair.check(generate(seed, small=True))
    if ms and not explain(ms):
        pytest.xfail(f"open: {KNOWN_OPEN[seed]}: {ms[0]}")


@pytest.mark.skipif(not HAVE_QUADRANTS, reason="real Quadrants is not installed")
@pytest.mark.long
def test_a_wrong_answer_is_caught(pair):
    """The same program with one constant changed on our side only must be reported."""
    prog = generate(3, features=("map",))
    want, got = pair.run(prog, None)
    assert want["ok"] and got["ok"] and compare(want, got, prog.cls) == []
    src = prog.source.replace("for i in range(16):", "for i in range(15):", 1)
    assert src != prog.source
    want2 = pair.ref.run("planted", prog.source, prog.init)
    got2 = pair.ours.run("planted", as_ours(src), prog.init)
    ms = compare(want2, got2, prog.cls)
    assert ms and ms[0].kind == "value" and explain(ms) is None


def test_generation_is_deterministic_and_parses():
    for seed in range(40):
        a, b = generate(seed), generate(seed)
        assert a.source == b.source and a.cls == b.cls
        ast.parse(a.source)
        assert as_ours(a.source).count("import qdexplorer.lang as qd") == 1
        assert "import quadrants" not in as_ours(a.source)
    assert len({generate(s).source for s in range(20)}) == 20
    for cls in CLASSES:
        for seed in range(30):
            p = generate(seed, classes=(cls,))
            assert p.cls == cls or (cls == "exact" and p.cls == "trans") or (cls == "trans" and p.cls == "exact")
            ast.parse(p.source)


def test_old_seeds_keep_their_programs():
    """The new classes (issue 39) are drawn from a stream of their own: a seed that draws an old class
    gives the program it gave before them, and `classes=("exact", "trans")` gives every seed that one."""
    import hashlib
    old = {s: generate(s, classes=OLD_CLASSES) for s in range(40)}
    drew_old = [s for s in old if pick_class(s) is None]
    assert 10 < len(drew_old) < 30
    for s in drew_old:
        assert generate(s).source == old[s].source
    # the text of seed 3 from before the new classes (commit d959a5b)
    assert hashlib.sha256(old[3].source.encode()).hexdigest()[:16] == "72a71424774013d8"
    assert {generate(s).cls for s in range(200)} == set(CLASSES)


def test_generator_covers_the_language():
    """Over a few hundred seeds every feature the issue names appears."""
    text = "\n".join(generate(s).source for s in range(300))
    for needle in ["qd.i8", "qd.i16", "qd.i32", "qd.i64", "qd.u8", "qd.u16", "qd.u32", "qd.u64", "qd.f16", "qd.f32",
                   "qd.f64", "qd.cast(", " // ", " % ", " << ", " >> ", "qd.bit_shr", "while ", "break", "continue",
                   "qd.static(range", "if ", "else:", "qd.atomic_add", "qd.atomic_sub", "qd.atomic_min",
                   "qd.atomic_max", "qd.atomic_and", "qd.atomic_or", "qd.atomic_xor", "@qd.func",
                   "qd.types.ndarray", "qd.ndarray(", ".pointer(", ".bitmasked(", ".dense(", "qd.activate(",
                   "qd.deactivate(", "qd.is_active(", "deactivate_all()", "loop_config(serialize=True)",
                   "-> qd.", "qd.sin(", "qd.exp("]:
        assert needle in text, needle
    for needle in ["qd.u1", "qd.Vector.field(", "qd.Matrix.field(", "qd.math.vec", "qd.Vector([", "qd.Matrix([", ".dot(",
                   " @ ", ".transpose()", ".cross(", ".outer_product(", ".sum()", ".zxy", "qd.types.struct(",
                   ".inner.p", "qd.types.ndarray(dtype=qd.types.vector(", "qd.Vector.ndarray(", "qd.Matrix.ndarray(",
                   "qd.ndrange(", ".shape[0]", "-> qd.types.vector(", "-> qd.types.matrix(", "-> qd.u1",
                   "loop_config(serialize=True)", "qd.atomic_add(vf", "va0[i % "]:
        assert needle in text, needle


def test_comparison_rules():
    ok = {"ok": True}
    f = np.array([1.0, np.nan, -0.0], np.float32)
    assert compare({**ok, "result": {"x": f}}, {**ok, "result": {"x": f.copy()}}, "exact") == []
    g = f.copy()
    g[0] = np.nextafter(np.float32(1.0), np.float32(2.0))  # one ulp
    assert compare({**ok, "result": {"x": f}}, {**ok, "result": {"x": g}}, "exact")[0].kind == "value"
    assert compare({**ok, "result": {"x": f}}, {**ok, "result": {"x": g}}, "trans") == []
    h = f.copy()
    h[2] = 0.0  # -0.0 and +0.0 differ bit for bit: a mismatch of its own kind, unexplained by itself
    ms = compare({**ok, "result": {"x": f}}, {**ok, "result": {"x": h}}, "exact")
    assert [m.kind for m in ms] == ["zero_sign"] and zero_sign_only(ms) and explain(ms) is None
    h[0] = 2.0  # any other difference beside it: a value mismatch
    assert not zero_sign_only(compare({**ok, "result": {"x": f}}, {**ok, "result": {"x": h}}, "exact"))
    ms = compare({**ok, "result": {"k": -0.0, "i": 3}}, {**ok, "result": {"k": 0.0, "i": 3}}, "exact")
    assert zero_sign_only(ms)
    assert not zero_sign_only(compare({**ok, "result": {"k": -0.0, "i": 3}}, {**ok, "result": {"k": 0.0, "i": 4}}, "exact"))
    inf = np.array([np.inf, 1.0, 0.0]), np.array([-np.inf, 1.0, -0.0])  # x / -0.0: the zero's sign, propagated
    assert zero_sign_only(compare({**ok, "result": {"x": inf[0]}}, {**ok, "result": {"x": inf[1]}}, "exact"))
    far = f.copy()
    far[0] = 1.001
    assert compare({**ok, "result": {"x": f}}, {**ok, "result": {"x": far}}, "trans")
    f32_in_f64 = np.array([-4.159054279327393]), np.array([-4.159054756164551])  # one f32 ulp, seen on CUDA
    assert compare({**ok, "result": {"x": f32_in_f64[0]}}, {**ok, "result": {"x": f32_in_f64[1]}}, "trans")
    assert compare({**ok, "result": {"x": f32_in_f64[0]}}, {**ok, "result": {"x": f32_in_f64[1]}}, "trans", 4) == []
    assert compare({**ok, "result": {"x": f32_in_f64[0]}}, {**ok, "result": {"x": f32_in_f64[1]}}, "exact", 4)
    assert narrowest("x = qd.field(qd.f64)\ny = qd.field(qd.f32)") == 4 and narrowest("qd.i32") is None
    i = np.array([1, 2], np.int32)
    assert compare({**ok, "result": {"x": i}}, {**ok, "result": {"x": i.astype(np.int64)}}, "exact")[0].kind == "dtype"
    assert compare({**ok, "result": {"k": 3}}, {**ok, "result": {"k": 3.0}}, "exact")[0].kind == "dtype"
    err = {"ok": False, "error": "QuadrantsTypeError: x"}
    assert compare(err, err, "exact")[0].kind == "both_error"
    assert compare({**ok, "result": {}}, err, "exact")[0].kind == "ours_error"
    assert compare(err, {**ok, "result": {}}, "exact")[0].kind == "ref_error"


def test_shrinker_reduces_to_the_failing_statement():
    src = generate(11, features=("map",)).source
    lines = src.splitlines()
    target = next(n for n, ln in enumerate(lines) if "o_k0_" in ln and " = " in ln and ln.startswith("        "))
    needle = lines[target].strip()

    def fails(text: str) -> list[Mismatch]:
        try:
            ast.parse(text)
        except SyntaxError as e:
            return [Mismatch("both_error", "-", f"SyntaxError: {e}")]
        return [Mismatch("value", "o", "planted")] if needle in text else []

    small, tries = shrink(src, fails)
    assert needle in small and len(small.splitlines()) < len(lines) // 2, small
    assert "import quadrants as qd" in small and "qd.init(" in small
    assert tries > 1
    assert blocks(["a:", "    b", "c"]) == [(0, 2), (1, 2), (2, 3)]


SLOW_ON_QUADRANTS = '''import quadrants as qd
import time

def main():
    if qd.__name__ == "quadrants":  # only the Quadrants side is slow
        time.sleep({seconds})
    return {{"x": 1}}
'''


@pytest.mark.skipif(not HAVE_QUADRANTS, reason="real Quadrants is not installed")
@pytest.mark.long
def test_a_timeout_is_run_again_alone_and_a_second_one_is_its_own_class():
    """A Quadrants child past the limit is not a mismatch of ours: the program runs once more in a
    fresh child with the longer limit; only a second timeout is reported, as `ref_timeout_twice`
    (which benchmarks/difftest.py counts apart, never as a pass)."""
    from .program import Program
    from .runner import Pair
    with Pair(timeout=60) as p:
        want, got = p.run(Program(0, "exact", SLOW_ON_QUADRANTS.format(seconds=0)))  # both children up, qd.init done
        assert want["ok"] and got["ok"] and not p.retried
        p.ref.timeout = p.ours.timeout = 1.5
        want, got = p.run(Program(1, "exact", SLOW_ON_QUADRANTS.format(seconds=3)))
        assert want.get("retried") and want["ok"] and got["ok"] and not got.get("retried"), (want, got)
        assert compare(want, got, "exact") == [] and p.retried == ["quadrants dt_1_1"]
        p.retry_timeout = 1.5  # a second timeout (the retry alone, as `run` calls it after a first one)
        want = p.retry(p.ref, "slow", SLOW_ON_QUADRANTS.format(seconds=60), {})
        assert want["error"] == "timeout twice" and want["retried"]
        ms = compare(want, got, "exact")
        assert [m.kind for m in ms] == ["ref_timeout_twice"] and explain(ms) is None


SIGNED_ZERO = '''import quadrants as qd
import numpy as np

o = qd.field(qd.f32, shape=3)
x = qd.field(qd.f32, shape=1)

@qd.kernel
def k():
    o[0] = qd.cast(0.0, qd.f32)
    o[1] = -qd.cast(0.0, qd.f32)  # Quadrants 1.3.3: +0.0 (merged with the constant above)
    o[2] = qd.cast(0.0, qd.f32) + x[0]  # x = -0.0; Quadrants 1.3.3: -0.0 (0 + x simplified to x)

def main():
    x.from_numpy(np.array([-0.0], dtype=np.float32))
    k()
    return {"o": o.to_numpy()}
'''


@pytest.mark.skipif(not HAVE_QUADRANTS, reason="real Quadrants is not installed")
@pytest.mark.long
def test_a_zero_sign_mismatch_is_explained_only_if_quadrants_unoptimized_gives_ours(pair):
    """Quadrants' optimizer flips two zeros here (its findings in tests/lang/test_difftest_findings.py):
    the re-run without it gives ours, so the mismatch is named. The same program with a zero's sign
    changed on our side only stays an unexplained mismatch."""
    from .program import Program
    prog = Program(7, "exact", SIGNED_ZERO)
    want, got = pair.run(prog)
    assert [m.kind for m in compare(want, got, "exact")] == ["zero_sign"]
    assert np.signbit(got["result"]["o"]).tolist() == [False, True, False]  # IEEE 754
    ms = pair.check(prog)
    assert [m.kind for m in ms] == ["quadrants_optimizer_zero_sign"]
    assert explain(ms) == "quadrants_optimizer_signed_zero"
    planted = pair.ours.run("planted_zero", as_ours(SIGNED_ZERO.replace("o[0] = qd.cast(0.0", "o[0] = -qd.cast(0.0")),
                            prog.init)
    ms = pair.recheck_zero_sign(prog, SIGNED_ZERO, planted, compare(want, planted, "exact"))
    assert [m.kind for m in ms] == ["zero_sign"] and explain(ms) is None
    planted = pair.ours.run("planted_value", as_ours(SIGNED_ZERO.replace("o[0] = qd.cast(0.0", "o[0] = qd.cast(1.0")),
                            prog.init)  # a wrong value beside the zeros: the opaque re-run does not give it
    ms = pair.recheck_zero_sign(prog, SIGNED_ZERO, planted, compare(want, planted, "exact"))
    assert [m.kind for m in ms] == ["value"] and explain(ms) is None
    # the second re-check (for programs that Quadrants' unoptimized mode aborts on): the same text with
    # every float constant read at run time gives IEEE's zeros under Quadrants' optimizer too
    opaque = opaque_float_constants(SIGNED_ZERO.replace("x = qd.field", "dz = qd.field(qd.i32, shape=())\nx = qd.field"))
    assert opaque.count("dz[None] + 1") == 3
    again = pair.ref.run("opaque", opaque, prog.init)
    assert compare(again, got, "exact") == []


def test_float_constants_made_opaque_keep_their_text_and_value():
    text = "a = qd.cast(-0.0, qd.f32) + qd.cast(3, qd.u16) + qd.cast(1e+20, qd.f64) + qd.cast(x, qd.f16) + qd.cast(0, qd.f64)"
    assert opaque_float_constants(text) == (
        "a = (-(qd.cast(0.0, qd.f32) * qd.cast(dz[None] + 1, qd.f32))) + qd.cast(3, qd.u16)"
        " + (qd.cast(1e+20, qd.f64) * qd.cast(dz[None] + 1, qd.f64)) + qd.cast(x, qd.f16)"
        " + (qd.cast(0, qd.f64) * qd.cast(dz[None] + 1, qd.f64))")


def test_fresh_vector_reads_and_the_matmul_nan_rule():
    """The two re-checks of the vector classes' mismatches (runner.py): container reads moved into
    locals (the target of an atomic, and the stored-to place, stay), and 'NaN in Quadrants only'."""
    from .runner import fresh_vector_reads, matmul_nan_only
    src = ("@qd.kernel\ndef k0():\n    for i in range(16):\n"
           "        vf0[i] -= vf0[i].dot(a0[i, j]) * sf1[i].m2\n"
           "        u1 = qd.atomic_add(vf0[i], sf1.m0[(i + 3) % 16])\n"
           "        if vf0[i][0] < 0:\n            o_k0_f32[i, 0] = vf0[i].x\n\ndef main():\n    k0()\n")
    out = fresh_vector_reads(src)
    ast.parse(out)
    assert ("        _r1 = vf0[i]\n        _r2 = a0[i, j]\n        _r3 = sf1[i].m2\n"
            "        vf0[i] -= _r1.dot(_r2) * _r3\n") in out
    assert "        _r4 = sf1.m0[(i + 3) % 16]\n        u1 = qd.atomic_add(vf0[i], _r4)\n" in out
    assert "        _r5 = vf0[i]\n        if _r5[0] < 0:\n" in out and "o_k0_f32[i, 0] = _r6.x" in out
    assert out.endswith("def main():\n    k0()\n")
    nan = np.float32("nan")
    assert matmul_nan_only(np.array([nan, 1.0, nan], np.float32), np.array([np.inf, 1.0, nan], np.float32))
    assert matmul_nan_only(np.array([0.0, 1.0], np.float32), np.array([-0.0, 1.0], np.float32))
    assert not matmul_nan_only(np.array([-0.0, 1.0], np.float32), np.array([0.0, 1.0], np.float32))
    assert not matmul_nan_only(np.array([nan, 2.0], np.float32), np.array([np.inf, 1.0], np.float32))
    assert not matmul_nan_only(np.array([1.0], np.float32), np.array([1.0], np.float32))
