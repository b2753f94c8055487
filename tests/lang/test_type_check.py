"""The language and codegen type-check clean: the mixins' contracts (frontend/base/contract.py,
codegen/emitter_base.py) are checked, not assumed, so a renamed method or a None slipping
through a lowering path fails here rather than as an internal compiler error in a user's kernel."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# --check-untyped-defs: most of the lowering code is unannotated, and still checked;
# --strict-equality: comparisons that can never hold (a DType against a str, say) are errors
FLAGS = ["--ignore-missing-imports", "--follow-imports=silent", "--check-untyped-defs", "--warn-redundant-casts",
         "--warn-unused-ignores", "--strict-equality"]


def test_lang_and_codegen_type_check_clean():
    cache = os.path.join(tempfile.gettempdir(), "qdexplorer-mypy-lang")
    p = subprocess.run([sys.executable, "-m", "mypy", "qdexplorer/lang", "qdexplorer/codegen", *FLAGS,
                        "--cache-dir", cache], capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert "No module named mypy" not in p.stderr, "mypy is not installed: pip install '.[test]'"
    assert p.returncode == 0, p.stdout + p.stderr
