"""Regenerate the ported Quadrants tests from an upstream checkout.

    python tests/quadrants_compat/port_upstream.py /path/to/Genesis-Embodied-AI/quadrants [commit]

Each file is upstream's `tests/python/<file>` with two changes only: the import lines (helpers
from Quadrants' internals come from `upstream.py`)
(`import qdexplorer.lang as qd`, `from tests.quadrants_compat import test_utils`), and the test
functions not listed in `ported.json` removed. Ported from upstream commit 009f0a2d2.

`excluded.json` records, per file, the upstream test functions deliberately left out and why
(outside the subset, or relying on Quadrants internals); a test is in one list or the other,
never both, so a file's coverage can be read off the two.
"""
import ast
import json
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).parent


def upstream(repo: str, name: str, commit: str = "HEAD") -> str:
    return subprocess.run(["git", "-C", repo, "show", f"{commit}:tests/python/{name}"],
                          capture_output=True, text=True, check=True).stdout


def port_text(text: str, keep: set) -> str:
    text = text.replace("import quadrants as qd", "import qdexplorer.lang as qd")
    text = text.replace("from tests import test_utils", "from tests.quadrants_compat import test_utils")
    # helpers imported from Quadrants' internals come from qdexplorer (tests/quadrants_compat/upstream.py)
    text = re.sub(r"^from quadrants(\.[\w.]+)? import (\([^)]*\)|[^\n]*)$",
                  lambda m: "from tests.quadrants_compat.upstream import " + m.group(2), text, flags=re.M)
    lines = text.splitlines(keepends=True)
    drop = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test") and node.name not in keep:
            start = (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1
            drop.append((start, node.end_lineno))
    for a, b in sorted(drop, reverse=True):
        del lines[a:b]
    return re.sub(r"\n{4,}", "\n\n\n", "".join(lines))


def main(repo: str, commit: str = "009f0a2d2"):
    ported = json.loads((HERE / "ported.json").read_text())
    excluded = json.loads((HERE / "excluded.json").read_text())
    both = {(f, t) for f, tests in excluded.items() for t in tests if t in ported.get(f, ())}
    if both:
        raise SystemExit(f"ported.json and excluded.json both list {sorted(both)}")
    for name, tests in sorted(ported.items()):
        (HERE / name).write_text(port_text(upstream(repo, name, commit), set(tests)))
    print(f"{sum(map(len, ported.values()))} test functions in {len(ported)} files")


if __name__ == "__main__":
    main(*sys.argv[1:])
