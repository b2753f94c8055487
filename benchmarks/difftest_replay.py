"""Replays saved difftest programs (Quadrants text, one .py each) under both implementations on
each `--arch`, and saves every result, not only the first difference, for the analysis of a
mismatch that was seen on a machine one cannot keep (the H200).

Writes a pickle {program: {arch: {"want": reply, "got": reply, "mismatch": [text]}}} and prints a
one-line summary per program and arch.

Usage: python benchmarks/difftest_replay.py DIR --arch cuda,cpu --out replay.pkl
"""
import argparse
import os
import pickle
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.difftest.compare import compare, narrowest  # noqa: E402
from tests.difftest.program import Program  # noqa: E402
from tests.difftest.runner import Pair  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--arch", default="cuda,cpu")
    ap.add_argument("--out", default="replay.pkl")
    ap.add_argument("--timeout", type=float, default=120.0)
    a = ap.parse_args()
    names = sorted(n for n in os.listdir(a.folder) if n.endswith(".py"))
    results: dict = {n: {} for n in names}
    for arch in a.arch.split(","):
        with Pair(arch=arch, timeout=a.timeout) as pair:
            for n in names:
                text = open(os.path.join(a.folder, n)).read()
                m = re.search(r"# difftest seed (\d+), class (\w+)", text)
                prog = Program(int(m.group(1)) if m else 0, m.group(2) if m else "exact", text)
                want, got = pair.run(prog)
                ms = [str(x) for x in compare(want, got, prog.cls, narrowest(text))]
                results[n][arch] = {"want": want, "got": got, "mismatch": ms}
                print(n, arch, "same" if not ms else ms[0][:200], flush=True)
                with open(a.out, "wb") as f:
                    pickle.dump(results, f)


if __name__ == "__main__":
    main()
