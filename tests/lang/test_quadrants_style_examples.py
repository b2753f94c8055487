"""The Quadrants-style example programs (examples/quadrants_style/) run unchanged under qdexplorer,
only their import line swapped, and give real Quadrants 1.3.3's results (kept in reference/*.json,
made on the CPU by make_reference.py), kernel print output included.

Each runs in its own process, forked from a server that has already imported NumPy and the language
(tests/_forked_python.py: the same script run alone, from the same freshly imported state, without paying
~0.3 s of imports each); `test_check_mode_reports_a_match_and_a_mismatch` runs one as a user would, in
a fresh interpreter. Integers must match exactly; floats to
1e-4 relative to the array's scale (parallel float sums are reassociated differently); statistics
of random draws to the absolute tolerance the example declares (`TOLERANCE`)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EX = os.path.join(ROOT, "examples", "quadrants_style")
sys.path.insert(0, EX)
from run_example import EXAMPLES, decode, mismatches, tolerance  # noqa: E402

from tests import _forked_python  # noqa: E402

ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))


@pytest.fixture(scope="module")
def forked():
    s = _forked_python.Server(["argparse", "numpy", "qdexplorer.lang", "qdexplorer.lang.math"], ENV)
    yield _forked_python.subprocess_through(s)
    s.close()


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_matches_quadrants(name, tmp_path, forked):
    with open(os.path.join(EX, "reference", name + ".json")) as f:
        ref = json.load(f)
    printed = ref.pop("stdout")
    out = tmp_path / "out.json"
    p = forked.run([sys.executable, os.path.join(EX, "run_example.py"), name, "--out", str(out)],
                   capture_output=True, text=True, env=ENV, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.splitlines() == printed
    assert mismatches(decode(json.loads(out.read_text())), decode(ref), tolerance(name)) == []


def test_check_mode_reports_a_match_and_a_mismatch(tmp_path):
    """`run_example.py NAME --check` is how a user checks an example against Quadrants."""
    p = subprocess.run([sys.executable, os.path.join(EX, "run_example.py"), "histogram", "--check"],
                       capture_output=True, text=True, env=ENV, timeout=300)
    assert p.returncode == 0 and "histogram: matches Quadrants 1.3.3" in p.stdout, p.stdout + p.stderr
    want = {"a": np.arange(4, dtype=np.int32), "b": np.ones(3)}
    assert mismatches(dict(want), want) == []
    assert mismatches({"a": want["a"] + 1, "b": want["b"]}, want) == ["a: 4 of 4 values differ"]
    assert "largest difference" in mismatches({"a": want["a"], "b": want["b"] * 1.01}, want)[0]
