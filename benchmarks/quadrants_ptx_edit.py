"""A real Quadrants program's task PTX edited through the explorer, rerun with QUADRANTS_LOAD_PTX.

Exports the generated PTX of `spin_kernel_1_range_for` (tests/quadrants/programs/gpu_loop.py),
adds TIMES dependent copies of the first floating-point instruction of its innermost loop (a
longer chain per iteration), reruns with `qdexplorer quadrants --load-ptx` and prints the
generated and edited runs side by side (peers from the same command), with the evidence that the
edit was used. Needs CUDA and Quadrants.

Usage: python benchmarks/quadrants_ptx_edit.py [OUTDIR] [--times N] [--steps N]
OUTDIR (optional) receives run.json (the full --json document) and dumps.tar (both folders).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "tests", "quadrants", "programs", "gpu_loop.py")
TASK = "spin_kernel_1_range_for"
_FP = re.compile(r"^(\s*)((?:fma|mul|add)(?:\.rn|\.rz|\.rm|\.rp)?(?:\.ftz)?(?:\.sat)?\.f32)\s+(%\w+),\s*([^,]+),(.*);\s*$")


def repeat_in_innermost_loop(ptx: str, times: int) -> str:
    """After the first f32 fma/mul/add inside a loop (a branch back to an earlier label), `times` more of it
    that each take the previous one's result (`fma d, d, b, c`): a longer dependent chain per iteration
    that ptxas cannot drop, since the value it computes is the one stored."""
    lines = ptx.splitlines()
    code = [ln.split("//", 1)[0].strip() for ln in lines]  # labels carry comments: `$L__BB1_5:  // %loop`
    labels = {c[:-1]: i for i, c in enumerate(code) if re.match(r"^\$?[\w$]+:$", c)}
    for i, ln in enumerate(lines):
        m = re.search(r"\bbra(?:\.uni)?\s+(\$?[\w$]+);", ln)
        if m and labels.get(m.group(1), i) < i:
            op = next((j for j in range(labels[m.group(1)], i) if _FP.match(lines[j])), None)
            if op is not None:
                indent, opcode, dst, _, rest = _FP.match(lines[op]).groups()
                extra = f"{indent}{opcode} {dst}, {dst},{rest};"
                return "\n".join(lines[:op + 1] + [extra] * times + lines[op + 1:]) + "\n"
    raise ValueError("no f32 fma/mul/add inside a loop in this PTX")


def qdx(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qdexplorer", "quadrants", *args], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))),
                          timeout=600)


def _save(out: str, doc: dict, edits: str):
    """run.json and dumps.tar (dump/, load/, edits/): what the window's "open a saved run" reads."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "run.json"), "w") as fh:
        json.dump(doc, fh)
    with tarfile.open(os.path.join(out, "dumps.tar"), "w") as tar:
        tar.add(doc["dump_dir"], arcname="dump")
        if (doc.get("edited_run") or {}).get("load"):
            tar.add(doc["edited_run"]["load"]["folder"], arcname="load")
        tar.add(edits, arcname="edits")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?")
    ap.add_argument("--times", type=int, default=8)
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--n", type=int, default=1 << 20)
    ap.add_argument("--repeat", type=int, default=20)
    a = ap.parse_args(argv)
    prog_args = ["--", str(a.n), str(a.steps), str(a.repeat)]
    edits = tempfile.mkdtemp(prefix="qdx-edits-")
    p = qdx(PROGRAM, "--arch", "cuda", "--load-ptx", edits, "--export", TASK, *prog_args)
    if p.returncode:
        print(p.stdout, p.stderr, file=sys.stderr)
        return 1
    path = p.stdout.strip()
    generated = open(path).read()
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "generated.ptx"), "w") as fh:
            fh.write(generated)
    try:
        edited = repeat_in_innermost_loop(generated, a.times)
    except ValueError as e:
        print(f"{e}:\n{generated[:6000]}", file=sys.stderr)
        return 1
    open(path, "w").write(edited)
    p = qdx(PROGRAM, "--arch", "cuda", "--load-ptx", edits, "--json", *prog_args)
    doc = json.loads(p.stdout) if p.stdout.strip().startswith("{") else None
    if doc is None:
        print(p.stdout, p.stderr, file=sys.stderr)
        return 1
    if a.out:
        _save(a.out, doc, edits)
    if not doc.get("edited_run") or not any(r["edited"] for r in doc.get("comparison", [])):
        print(json.dumps({"error": doc.get("error"), "edited_error": (doc.get("edited_run") or {}).get("error"),
                          "stderr": p.stderr[-4000:]}, indent=2))
        return 1
    row = next(r for r in doc["comparison"] if r["edited"])
    (e,) = doc["edited_run"]["load"]["edits"]
    print(json.dumps({"task": row["task"], "edit": f"{a.times} dependent copies of the first f32 fma/mul/add of "
                      f"the innermost loop (+{len(edited) - len(generated)} bytes of PTX)",
                      "used": e["used"], "evidence": e["evidence"], "state": e["state"],
                      "generated": row["generated"], "edited": row["edited_run"], "ratio": row["ratio"],
                      "stats": row["stats"],
                      "program_output": {"generated": doc["stdout"].strip().splitlines()[-1:],
                                         "edited": doc["edited_run"]["stdout"].strip().splitlines()[-1:]},
                      "arch": doc["arch"], "quadrants": doc["quadrants_version"], "exit_code": p.returncode},
                     indent=2))
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
