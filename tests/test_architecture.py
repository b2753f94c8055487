"""Only qdexplorer.gui imports Qt: the engine must run where there is no PySide6 (the GPU box)."""
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROBE = """
import sys
import qdexplorer.engine, qdexplorer.cli, qdexplorer.lang, qdexplorer.runtime.worker, qdexplorer.compiler.pool
import qdexplorer.runtime.cpu, qdexplorer.bench, qdexplorer.session, qdexplorer.script, qdexplorer.launcher
bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6'))
print(','.join(bad))
"""


def test_engine_imports_without_qt():
    p = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=ROOT), check=True)
    assert p.stdout.strip() == ""


def test_import_linter_contract():
    exe = shutil.which("lint-imports")
    if exe is None:
        import pytest
        pytest.skip("import-linter is not installed (pip install '.[test]')")
    p = subprocess.run([exe], capture_output=True, text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))
    assert p.returncode == 0, p.stdout + p.stderr
