"""Run one example under qdexplorer (default) or real Quadrants and write its results as JSON.

    python examples/quadrants_style/run_example.py heat_jacobi [--quadrants] [--out FILE]
    python examples/quadrants_style/run_example.py heat_jacobi --check   # against reference/


Each example imports `quadrants as qd` (and maybe `quadrants.math`); with qdexplorer (the default)
only those import lines are changed, to `import qdexplorer.lang as qd` (`qdexplorer.lang.math`), so
the same file runs on both. Results are each
example's `main()` dict plus the kernels' printed output (`stdout`).
`make_reference.py` runs every example under Quadrants and keeps the results in `reference/`.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import runpy
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
IMPORT = "import quadrants as qd"
PORTED_IMPORTS = {"import quadrants as qd": "import qdexplorer.lang as qd",
                  "import quadrants.math as ": "import qdexplorer.lang.math as ",
                  "from quadrants.math import ": "from qdexplorer.lang.math import "}


def port_line(line: str) -> str:
    """An import line of Quadrants as the same import of qdexplorer; any other line unchanged."""
    for old, new in PORTED_IMPORTS.items():
        if line == old or (old.endswith(" ") and line.startswith(old)):
            return new + line[len(old):]
    return line
EXAMPLES = ["heat_jacobi", "particles", "histogram", "template_library", "ndarray_pipeline",
            "debug_print", "rigid_bodies", "scan_and_locals", "nbody_softened", "monte_carlo", "math_module", "mpm88", "structs", "data_oriented"]


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
            f.write("\n".join(port_line(ln) for ln in src.splitlines()) + "\n")
    return runpy.run_path(path, run_name="qd_example")["main"]()


def tolerance(name: str) -> dict:
    """An example's `TOLERANCE = {result: absolute tolerance}`: results that are statistics of random
    draws (whose sequence differs from Quadrants') match in distribution, not digit for digit."""
    with open(os.path.join(HERE, name + ".py")) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "TOLERANCE" for t in node.targets):
            return ast.literal_eval(node.value)
    return {}


def mismatches(got: dict, want: dict, tol: dict | None = None) -> list[str]:
    """How `got` differs from Quadrants' `want` (decoded arrays): integers must match exactly, floats
    to 1e-4 of the array's scale (parallel float sums are reassociated differently), and the results
    named in `tol` to within that absolute tolerance."""
    out = []
    tol = tol or {}
    if sorted(got) != sorted(want):
        out.append(f"results {sorted(got)} != reference {sorted(want)}")
    for k in sorted(set(got) & set(want)):
        g, w = got[k], want[k]
        if g.shape != w.shape or g.dtype != w.dtype:
            out.append(f"{k}: {g.dtype}{list(g.shape)} != reference {w.dtype}{list(w.shape)}")
        elif k in tol:
            if not np.allclose(g, w, rtol=0, atol=tol[k]):
                out.append(f"{k}: largest difference {float(np.max(np.abs(g - w))):.3g} (tolerance {tol[k]})")
        elif np.issubdtype(w.dtype, np.floating):
            finite = np.abs(w[np.isfinite(w)])
            scale = float(np.max(finite)) if finite.size else 0.0
            if not np.allclose(g, w, rtol=1e-4, atol=1e-4 * scale + 1e-7, equal_nan=True):
                out.append(f"{k}: largest difference {float(np.max(np.abs(g - w))):.3g} (scale {scale:.3g})")
        elif not np.array_equal(g, w):
            out.append(f"{k}: {int(np.sum(g != w))} of {w.size} values differ")
    return out


def check(name: str) -> int:
    """Run `name` under qdexplorer in its own process (kernel prints go to that process's stdout) and
    compare with reference/<name>.json; 0 when everything matches."""
    import subprocess
    with open(os.path.join(HERE, "reference", name + ".json")) as f:
        ref = json.load(f)
    printed = ref.pop("stdout")
    out = os.path.join(tempfile.mkdtemp(prefix="qdx-example-"), "out.json")
    p = subprocess.run([sys.executable, os.path.abspath(__file__), name, "--out", out], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"{name}: failed to run\n{p.stderr[-3000:]}", file=sys.stderr)
        return 1
    with open(out) as f:
        problems = mismatches(decode(json.load(f)), decode(ref), tolerance(name))
    if p.stdout.splitlines() != printed:
        problems.append(f"printed output differs: {p.stdout.splitlines()[:3]}... != {printed[:3]}...")
    for msg in problems:
        print(f"{name}: {msg}")
    if not problems:
        print(f"{name}: matches Quadrants 1.3.3 ({len(ref)} arrays, {len(printed)} printed lines)")
    return 1 if problems else 0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("name", choices=EXAMPLES)
    ap.add_argument("--quadrants", action="store_true", help="run under real Quadrants (the reference)")
    ap.add_argument("--out", help="write the results as JSON here (default: stdout)")
    ap.add_argument("--check", action="store_true", help="run under qdexplorer and compare with reference/")
    a = ap.parse_args()
    if a.check:
        sys.exit(check(a.name))
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
