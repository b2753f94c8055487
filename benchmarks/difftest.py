"""Differential testing against real Quadrants: random programs (tests/difftest) run under Quadrants
1.3.3 and under qdexplorer.lang, one long-lived child each, results compared bit for bit (floats
of programs with transcendental functions to a stated tolerance; see tests/difftest/compare.py).

Prints JSON: programs and kernels run, mismatches by kind and by named explanation, the
unexplained ones (seed, first difference), seconds. `--shrink SEED` prints a minimal reproducer
of that seed's mismatch instead.

Usage: python benchmarks/difftest.py [--seeds 0:1000] [--arch cpu|cuda] [--features map,atomic]
       python benchmarks/difftest.py --shrink 1234
"""
import argparse
import collections
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.difftest.explain import EXPLAINED, explain  # noqa: E402
from tests.difftest.program import generate  # noqa: E402
from tests.difftest.runner import Pair  # noqa: E402
from tests.difftest.shrink import shrink  # noqa: E402


def run(a) -> dict:
    lo, hi = (int(x) for x in a.seeds.split(":"))
    feats = tuple(a.features.split(",")) if a.features else None
    kinds: collections.Counter = collections.Counter()
    explained: collections.Counter = collections.Counter()
    classes: collections.Counter = collections.Counter()
    unexplained, kernels, t0 = [], 0, time.time()
    with Pair(arch=a.arch, timeout=a.timeout) as pair:
        for seed in range(lo, hi):
            prog = generate(seed, feats, arch=a.arch)
            classes[prog.cls] += 1
            kernels += prog.source.count("@qd.kernel")
            ms = pair.check(prog)
            if not ms:
                continue
            kinds[ms[0].kind] += 1
            name = explain(ms)
            if name:
                explained[name] += 1
            else:
                unexplained.append({"seed": seed, "class": prog.cls, "mismatch": [str(m)[:300] for m in ms[:3]]})
            if a.progress:
                print(seed, name or "UNEXPLAINED", str(ms[0])[:200], file=sys.stderr, flush=True)
        versions = {"quadrants": pair.ref.version, "ours": pair.ours.version}
    return {"arch": a.arch, "seeds": a.seeds, "programs": hi - lo, "kernels_run": kernels,
            "programs_by_class": dict(classes), "mismatches_by_kind": dict(kinds),
            "explained": dict(explained), "explanations": {k: EXPLAINED[k] for k in explained},
            "unexplained_count": len(unexplained), "unexplained": unexplained[:50],
            "versions": versions, "seconds": round(time.time() - t0, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0:200")
    ap.add_argument("--arch", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--features", default="")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--shrink", type=int)
    ap.add_argument("--progress", action="store_true")
    a = ap.parse_args()
    if a.shrink is not None:
        prog = generate(a.shrink, arch=a.arch)
        with Pair(arch=a.arch, timeout=a.timeout) as pair:
            small, tries = shrink(prog.source, lambda src: pair.check(prog, src))
            ms = pair.check(prog, small)
        print(small)
        print(f"# {tries} candidates run; " + "; ".join(str(m) for m in ms))
        return
    print(json.dumps(run(a), indent=1))


if __name__ == "__main__":
    main()
