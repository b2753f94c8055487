"""The corpus runner's comparison and classification, on small real programs run under real Quadrants
and under qdexplorer.lang (nothing of either is mocked). Each side runs forked from a server that has
imported Quadrants or the language (`forked`, tests/corpus/conftest.py); the first test runs both
sides in fresh interpreters, as `benchmarks/corpus.py` does, and checks forked runs agree with them."""
import math
import textwrap

import importlib.util

import pytest

from tests.corpus._load import corpus

C = corpus()
HAVE_QUADRANTS = importlib.util.find_spec("quadrants") is not None
needs_quadrants = pytest.mark.skipif(not HAVE_QUADRANTS, reason="the corpus compares with Quadrants, not installed here")


def test_checksum_lines_are_parsed_as_ints_and_floats():
    out = "hello\nchecksum a 3\nchecksum b 0.1\nchecksum c nan\n  checksum d -1e-07  \nchecksum e\nchecksum a 4\n"
    got = C.parse_checksums(out)
    assert got["a"] == 4 and isinstance(got["a"], int)   # a label printed twice: its last value
    assert got["b"] == 0.1 and got["d"] == -1e-07 and math.isnan(got["c"])
    assert "e" not in got


def test_floats_compare_within_tolerance_ints_exactly():
    assert C.compare({"x": 1.0}, {"x": 1.0 + 5e-5}) == []
    assert C.compare({"x": 1.0}, {"x": 1.0 + 2e-4}) != []
    assert C.compare({"x": 0.0}, {"x": 5e-7}) == []           # atol
    assert C.compare({"x": 1000}, {"x": 1001}) != []            # ints: exact
    assert C.compare({"x": 1000}, {"x": 1000.0}) == []
    assert C.compare({"x": float("nan")}, {"x": float("nan")}) == []
    assert C.compare({"x": float("inf")}, {"x": 1e300}) != []
    assert C.compare({"x": 1.0}, {"x": 1.001}, rtol=1e-2, atol=0) == []


def test_a_different_set_of_labels_is_a_difference():
    assert C.compare({"x": 1, "y": 2}, {"x": 1}) == ["y: missing in ours"]
    assert C.compare({"x": 1}, {"x": 1, "z": 2}) == ["z: only in ours"]


def test_the_header_gives_area_and_tolerance(tmp_path):
    p = tmp_path / "prog.py"
    p.write_text("# corpus: demo_prog\n# source: github:a/b@0000000000000000000000000000000000000000 x.py\n"
                 "# license: MIT\n# area: sph\n# port: ti->qd\n"
                 "# tolerance: rtol=1e-2 atol=1e-5 -- Monte Carlo noise\nimport quadrants as qd\n")
    h = C.read_header(p)
    assert (h.slug, h.area, h.license, h.rtol, h.atol) == ("demo_prog", "sph", "MIT", 1e-2, 1e-5)
    p.write_text("# corpus: demo_prog\n# area: misc\nimport quadrants as qd\n# tolerance: rtol=1 atol=1\n")
    assert (C.read_header(p).rtol, C.read_header(p).atol) == (C.DEFAULT_RTOL, C.DEFAULT_ATOL)


# The programs below run under both sides; `OURS` is true only under qdexplorer.lang.
HEAD = """\
import os, sys
import numpy as np
import quadrants as qd
OURS = not qd.__name__.startswith("quadrants")
qd.init(arch=qd.cpu)
x = qd.field(qd.f32, shape=16)

@qd.kernel
def fill(k: qd.f32):
    for i in x:
        x[i] = i * k

fill(0.5)
"""


def run(tmp_path, body, timeout=60):
    p = tmp_path / "demo_prog.py"
    p.write_text("# corpus: demo_prog\n# area: misc\n" + HEAD + textwrap.dedent(body))
    return C.run_program(C.read_header(p), timeout=timeout)


@needs_quadrants
def test_the_same_checksums_are_same(tmp_path, request):
    """In fresh interpreters (the runner's own children); then forked, after another program and before
    it, with the same checksums."""
    same = 'print("checksum sum", float(x.to_numpy().sum()))\nprint("checksum n", 16)\n'
    r = run(tmp_path, same)
    assert r["verdict"] == "same", r
    assert r["quadrants_checksums"] == {"sum": 60.0, "n": 16} == r["ours_checksums"]
    assert r["quadrants_s"] > 0 and r["ours_s"] > 0 and r["ratio"] > 0
    request.getfixturevalue("forked")
    other = 'fill(2.0)\nprint("checksum max", float(x.to_numpy().max()))\n'
    for order in ([other, same], [same, other]):
        got = [run(tmp_path, body) for body in order]
        assert got[order.index(same)]["quadrants_checksums"] == r["quadrants_checksums"]
        assert got[order.index(same)]["ours_checksums"] == r["ours_checksums"]
        assert got[order.index(other)]["verdict"] == "same"
        assert got[order.index(other)]["ours_checksums"] == {"max": 30.0}


@needs_quadrants
def test_a_different_value_is_wrong(tmp_path, forked):
    r = run(tmp_path, 'print("checksum sum", float(x.to_numpy().sum()) + (1.0 if OURS else 0.0))\n')
    assert r["verdict"] == "wrong" and r["error"] == "sum: quadrants 60.0 ours 61.0"


@needs_quadrants
def test_a_missing_label_is_wrong(tmp_path, forked):
    r = run(tmp_path, 'print("checksum sum", 60.0)\nif not OURS:\n    print("checksum extra", 1)\n')
    assert r["verdict"] == "wrong" and "extra: missing in ours" in r["error"]


@needs_quadrants
def test_one_of_our_errors_is_a_refusal(tmp_path, forked):
    r = run(tmp_path, 'if OURS:\n    raise qd.QuadrantsTypeError("qd.some_construct is not supported")\n'
                      'print("checksum n", 1)\n')
    assert (r["verdict"], r["error_class"]) == ("error", "refused")
    assert "qd.some_construct is not supported" in r["error"]


@needs_quadrants
def test_a_python_exception_from_inside_is_internal(tmp_path, forked):
    r = run(tmp_path, 'if OURS:\n    {}["codegen"]\nprint("checksum n", 1)\n')
    assert (r["verdict"], r["error_class"], r["error"]) == ("error", "internal", "KeyError: 'codegen'")


@needs_quadrants
def test_a_crash_is_internal(tmp_path, forked):
    r = run(tmp_path, 'if OURS:\n    sys.stdout.flush(); os.abort()\nprint("checksum n", 1)\n')
    assert (r["verdict"], r["error_class"]) == ("error", "internal")
    assert r["error"].startswith("crashed: signal 6")


@needs_quadrants
def test_a_timeout_is_internal(tmp_path, forked):
    r = run(tmp_path, 'import time\nif OURS:\n    time.sleep(60)\nprint("checksum n", 1)\n', timeout=15)
    assert (r["verdict"], r["error_class"], r["error"]) == ("error", "internal", "timed out after 15 s")


@needs_quadrants
@pytest.mark.parametrize("body", ['raise RuntimeError("port broken")\n', 'print("no checksum")\n'])
def test_a_port_that_fails_under_quadrants_is_not_counted_against_ours(tmp_path, body, forked):
    r = run(tmp_path, body)
    assert r["verdict"] == "quadrants_failed" and r["ours_s"] is None


def test_the_summary_line_counts_each_verdict():
    rs = [{"verdict": "same", "error_class": "", "ratio": 1.0}, {"verdict": "wrong", "error_class": "", "ratio": 4.0},
          {"verdict": "fast_math", "error_class": "", "ratio": 2.5},
          {"verdict": "error", "error_class": "refused", "ratio": 9.0},
          {"verdict": "error", "error_class": "internal", "ratio": None},
          {"verdict": "quadrants_failed", "error_class": "", "ratio": None}]
    assert C.summary_line(C.summarize(rs)) == (
        "corpus: 6 programs, 1 same, 1 same with fast math off (Quadrants' fast-math rounding), 1 wrong, "
        "2 error (1 refused, 1 internal), 1 quadrants_failed; time ratio ours/quadrants median 2.5, geomean 2.154")


def _program(tmp_path, name: str, value: str):
    prog = tmp_path / f"{name}.py"
    prog.write_text(f"# corpus: {name}\n# source: github:example/example@{'0' * 40} {name}.py\n# license: MIT\n"
                    f"# area: misc\n# port: none\nimport quadrants as qd\nqd.init(arch=qd.cpu)\n"
                    f"theirs = qd.__name__ == 'quadrants'\nprint('checksum v', int({value}))\n")
    return C.read_header(prog)


def test_a_difference_that_goes_away_with_fast_math_off_is_named_so(tmp_path, forked):
    """Both sides are run again with `qd.init(fast_math=False)` forced when their checksums differ: a
    difference that goes away then is `fast_math` (counted apart), one that stays is `wrong`. The
    programs print something of the side and its fast-math setting, so each case is certain."""
    res = C.run_program(_program(tmp_path, "fm", "theirs and qd.cfg.fast_math"), timeout=120)
    assert res["verdict"] == "fast_math" and res["ieee_verdict"] == "same", res
    assert "fast_math=False" in res["explained"]
    res = C.run_program(_program(tmp_path, "side", "theirs"), timeout=120)
    assert res["verdict"] == "wrong" and res["ieee_verdict"] == "wrong", res
