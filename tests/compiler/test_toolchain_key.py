"""The cache key covers the compiler's own source: an edited code generator never gets stale PTX."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _compile(pkg_root: Path, cache: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(pkg_root), QDEXPLORER_CACHE_DIR=str(cache))
    p = subprocess.run([sys.executable, "-m", "qdexplorer.cli", "compile", "--json"], env=env,
                       capture_output=True, text=True, cwd=pkg_root)
    assert p.returncode == 0, p.stderr
    return {t["task"]: t["tier"] for t in json.loads(p.stdout)["tasks"]}


def test_a_one_line_codegen_edit_misses_every_demo_task(tmp_path):
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "qdexplorer", copy / "qdexplorer", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    cold = _compile(copy, cache)
    assert len(cold) >= 15 and set(cold.values()) == {"miss"}
    assert set(_compile(copy, cache).values()) == {"disk"}  # unchanged compiler: every task from disk
    gen = copy / "qdexplorer" / "codegen" / "task_module.py"
    gen.write_text(gen.read_text() + "\n# a local edit of the code generator\n")
    assert set(_compile(copy, cache).values()) == {"miss"}
