"""The Quadrants-style example programs (examples/quadrants_style/) run unchanged under qdexplorer,
only their import line swapped, and give real Quadrants 1.3.3's results (kept in reference/*.json,
made on the CPU by make_reference.py), kernel print output included.

Each runs in its own process, as a user's script would. Integers must match exactly; floats to
1e-4 relative to the array's scale (parallel float sums are reassociated differently)."""
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
from run_example import EXAMPLES, decode  # noqa: E402


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_matches_quadrants(name, tmp_path):
    with open(os.path.join(EX, "reference", name + ".json")) as f:
        ref = json.load(f)
    printed = ref.pop("stdout")
    out = tmp_path / "out.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, os.path.join(EX, "run_example.py"), name, "--out", str(out)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.splitlines() == printed
    got, want = decode(json.loads(out.read_text())), decode(ref)
    assert sorted(got) == sorted(want)
    for k, w in want.items():
        g = got[k]
        assert g.shape == w.shape and g.dtype == w.dtype, (k, g.shape, g.dtype, w.shape, w.dtype)
        if np.issubdtype(w.dtype, np.floating):
            scale = float(np.max(np.abs(w))) if w.size else 0.0
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4 * scale + 1e-7, err_msg=f"{name}: {k}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{name}: {k}")
