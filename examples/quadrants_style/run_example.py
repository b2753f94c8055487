"""Run one example under qdexplorer (default) or real Quadrants and write its results as JSON.

    python examples/quadrants_style/run_example.py heat_jacobi [--quadrants] [--out FILE]

Each example imports `quadrants as qd`; with qdexplorer (the default) only that import line is
changed, to `import qdexplorer.lang as qd`, so the same file runs on both. Results are each
example's `main()` dict plus the kernels' printed output (`stdout`).
`make_reference.py` runs every example under Quadrants and keeps the results in `reference/`.
"""
from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
IMPORT = "import quadrants as qd"
EXAMPLES = ["heat_jacobi", "particles", "histogram", "template_library", "ndarray_pipeline",
            "debug_print", "rigid_bodies", "scan_and_locals"]


def encode(results: dict) -> dict:
    return {k: {"dtype": str(np.asarray(v).dtype), "shape": list(np.shape(v)), "data": np.asarray(v).ravel().tolist()}
            for k, v in results.items()}


def decode(saved: dict) -> dict:
    return {k: np.array(e["data"], dtype=e["dtype"]).reshape(e["shape"]) for k, e in saved.items()}


def run(name: str, quadrants: bool) -> dict:
    path = os.path.join(HERE, name + ".py")
    if not quadrants:
        src = open(path).read()
        if IMPORT not in src.splitlines():
            raise SystemExit(f"{path}: no line '{IMPORT}' to swap")
        tmp = tempfile.mkdtemp(prefix="qdx-example-")
        path = os.path.join(tmp, name + ".py")
        with open(path, "w") as f:
            f.write("\n".join("import qdexplorer.lang as qd" if ln == IMPORT else ln for ln in src.splitlines()) + "\n")
    return runpy.run_path(path, run_name="qd_example")["main"]()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("name", choices=EXAMPLES)
    ap.add_argument("--quadrants", action="store_true", help="run under real Quadrants (the reference)")
    ap.add_argument("--out", help="write the results as JSON here (default: stdout)")
    a = ap.parse_args()
    res = encode(run(a.name, a.quadrants))
    sys.stdout.flush()
    text = json.dumps(res, indent=None)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
