"""Run the vendored upstream programs under real Quadrants and under qdexplorer.lang, and compare.

    python examples/upstream/run_upstream.py NAME...            # qdexplorer, compared with reference/
    python examples/upstream/run_upstream.py --reference NAME   # real Quadrants -> reference/NAME.json
    python examples/upstream/run_upstream.py --table            # every program, the README's table

The files are upstream text, not edited to run here: qdexplorer answers their `import quadrants`
through `qdexplorer.quadrants.ours.run_ours` (the `qdexplorer quadrants PROG --ours` child), and
Quadrants runs them through `qdexplorer.quadrants.program.run_program`; both force `qd.init` onto the
CPU, so `arch=qd.gpu` in a doc snippet is not a difference. A program's result is what it prints
(its checksum lines), less Quadrants' banner and the lines programs.json says vary run to run
(timings).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # the checkout's qdexplorer, run as a script

from qdexplorer.quadrants.ours import run_ours  # noqa: E402
from qdexplorer.quadrants.program import run_program  # noqa: E402

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)\b")
REL = 1e-4  # float noise: parallel sums reassociate, libm and LLVM's fast paths differ in the last bits


def programs() -> dict:
    with open(os.path.join(HERE, "programs.json")) as f:
        return json.load(f)


def printed(stdout: str, ignore: list[str]) -> list[str]:
    """The lines a program printed that are its result."""
    keep = []
    for line in stdout.splitlines():
        if line.startswith("[Quadrants]") or any(re.search(p, line) for p in ignore):
            continue
        keep.append(line.rstrip())
    return keep


def run(name: str, quadrants: bool, timeout: float = 300.0, arch: str = "cpu") -> dict:
    """{'lines': printed result lines, 'error': the error's first line or None, 'full_error'} of one
    program under either."""
    prog = programs()[name]
    script = os.path.join(HERE, prog["file"])
    if quadrants:
        r = run_program(script, prog["args"], arch="cpu", timeout=timeout, dump=False)
        stdout, error = r.stdout, r.error
    else:
        r = run_ours(script, prog["args"], arch=arch, timeout=timeout)
        stdout, error = r["stdout"], r["error"]
    return {"lines": printed(stdout, prog["ignore"]), "error": error.strip().splitlines()[0] if error else None,
            "full_error": error}


def _numbers_match(got: list[str], want: list[str], atol: float | None = None) -> bool:
    """Integers exactly; a line's floats to REL of the largest magnitude printed on that line, or
    to `atol` for a program whose printed floats are statistics of random draws."""
    def is_int(s):
        return not any(c in s for c in ".eEni")
    scale = max((abs(float(w)) for w in want if "n" not in w), default=0.0)
    for g, w in zip(got, want):
        if is_int(g) and is_int(w):
            if int(g) != int(w):
                return False
            continue
        gf, wf = float(g), float(w)
        if wf != wf or gf != gf:
            if not (wf != wf and gf != gf):
                return False
        elif abs(gf - wf) > (atol if atol is not None else REL * abs(wf) + REL * scale + 1e-6):
            return False
    return True


def differences(got: dict, want: dict, atol: float | None = None) -> list[str]:
    """How qdexplorer's run differs from Quadrants': the error, or the printed lines where text
    outside numbers differs or a number differs beyond float noise (beyond `atol`, programs.json's
    statistical tolerance, for one that draws random numbers). Empty when they match."""
    if got["error"] or want["error"]:
        if got["error"] != want["error"]:
            return [f"error: {got['error']!r} (Quadrants: {want['error']!r})"]
    out = []
    if len(got["lines"]) != len(want["lines"]):
        out.append(f"{len(got['lines'])} lines printed, Quadrants printed {len(want['lines'])}")
    for i, (g, w) in enumerate(zip(got["lines"], want["lines"])):
        gn, wn = NUMBER.findall(g), NUMBER.findall(w)
        if NUMBER.sub("#", g) != NUMBER.sub("#", w) or len(gn) != len(wn) or not _numbers_match(gn, wn, atol):
            out.append(f"line {i + 1}: {g!r} (Quadrants: {w!r})")
    return out


def reference(name: str) -> dict:
    with open(os.path.join(HERE, "reference", name + ".json")) as f:
        return json.load(f)


def make_reference(name: str) -> dict:
    import quadrants  # noqa: F401 - fail here, clearly, without the quadrants extra
    res = run(name, quadrants=True)
    del res["full_error"]
    res["quadrants"] = ".".join(map(str, quadrants.__version__))
    os.makedirs(os.path.join(HERE, "reference"), exist_ok=True)
    with open(os.path.join(HERE, "reference", name + ".json"), "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    return res


def checksum(res: dict, width: int = 70) -> str:
    """A table cell: the printed lines joined, or the error."""
    text = "; ".join(res["lines"]) if not res["error"] else "error: " + res["error"]
    text = text.replace("|", "\\|")
    return text if len(text) <= width else text[:width - 1] + "…"


def table(names: list[str]) -> str:
    rows = ["| program | source | Quadrants 1.3.3 (CPU) | qdexplorer (CPU) | match |", "| --- | --- | --- | --- | --- |"]
    progs = programs()
    for n in names:
        p, want = progs[n], reference(n)
        got = run(n, quadrants=False)
        by_path: dict = {}
        for s in p["sources"]:
            key = f"{s['repo'].split('/')[1]}:{s['path'].replace('docs/source/user_guide/', 'docs/')}"
            by_path.setdefault(key, []).append("L" + s["lines"].replace("-", "-L"))
        src = "; ".join(f"{k}#{','.join(v)}" for k, v in by_path.items())
        diff = differences(got, want, p.get("atol"))
        if p.get("left_out") and got["error"] and p["left_out"] in got["error"]:
            diff = []  # the expected outcome: a one-line error naming the left-out feature
            got = dict(got, error=got["error"].split(": ", 1)[-1].replace(os.path.dirname(HERE) + os.sep, ""))
        verdict = "left out (one-line error)" if p.get("left_out") and not diff else \
            ("no" if diff else "yes, in distribution" if p.get("atol") else "yes")
        rows.append(f"| `{n}`{' ' + ' '.join(p['args']) if p['args'] else ''} | {src} | {checksum(want)} | "
                    f"{checksum(got, 90 if p.get('left_out') else 70)} | {verdict} |")
        print(rows[-1], file=sys.stderr)
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*", help="programs (default: all)")
    ap.add_argument("--reference", action="store_true", help="run under real Quadrants, write reference/NAME.json")
    ap.add_argument("--table", action="store_true", help="print the results table (markdown)")
    ap.add_argument("--arch", default="cpu", choices=["cpu", "cuda"],
                    help="qdexplorer's backend (the references are Quadrants on the CPU)")
    a = ap.parse_args()
    names = a.names or sorted(programs())
    if a.table:
        print(table(names))
        return
    bad = 0
    for n in names:
        if a.reference:
            res = make_reference(n)
            print(f"{n}: {res['error'] or '; '.join(res['lines'])[:150]}")
            continue
        diff = differences(run(n, quadrants=False, arch=a.arch), reference(n), programs()[n].get("atol"))
        bad += bool(diff)
        print(f"{n}: " + ("matches Quadrants 1.3.3" if not diff else "\n  ".join(["DIFFERS"] + diff)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
