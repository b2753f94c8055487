"""The type checker runs with the suite: every package but the window is clean at the strictness in
pyproject's [tool.mypy] (function bodies included), and a missing mypy is a failure, not a skip."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_is_clean_on_every_package_but_the_window():
    p = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary"], capture_output=True, text=True,
                       cwd=ROOT)
    assert "No module named mypy" not in p.stderr, "mypy is not installed: pip install '.[test]'"
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-2000:]
