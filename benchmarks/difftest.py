"""Differential testing against real Quadrants: random programs (tests/difftest) run under Quadrants
1.3.3 and under qdexplorer.lang, one long-lived child each, results compared bit for bit (floats
of programs with transcendental functions to a stated tolerance; see tests/difftest/compare.py).

Prints JSON: programs and kernels run, mismatches by kind and by named explanation, the
unexplained ones (seed, first difference), seconds. `--shrink SEED` prints a minimal reproducer
of that seed's mismatch instead.

Usage: python benchmarks/difftest.py [--seeds 0:1000] [--arch cpu|cuda] [--jobs 4] [--features map,atomic]
       [--classes vector,struct]
       python benchmarks/difftest.py --shrink 1234
       nice -n 19 python benchmarks/difftest.py --seeds 20000:30000 --out-dir /tmp/dt-long   # resumable
       python benchmarks/difftest.py --merge /tmp/dt-long
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


def run_seeds(seeds: list[int], arch: str, feats, timeout: float, progress: bool, deadline: float = 0.0,
              small: bool = False, pair: Pair | None = None, save_dir: str = "", retry_timeout: float = 0.0,
              tally: str = "", classes: tuple | None = None) -> dict:
    """`save_dir`: write there the text of every program that mismatched or timed out (seed_SEED.py).
    `tally`: a JSON file rewritten after every program with the totals so far, so that a run killed
    from outside (a machine's time limit) still leaves its counts (`--merge` adds such files up)."""
    kinds: collections.Counter = collections.Counter()
    explained: collections.Counter = collections.Counter()
    by_class: collections.Counter = collections.Counter()
    unexplained: list = []
    ran: list[int] = []
    ref_timeouts: list[int] = []
    count = {"kernels": 0, "compared": 0}
    pair = pair if pair is not None else Pair(arch=arch, timeout=timeout, retry_timeout=retry_timeout or None)
    first_retry = len(pair.retried)  # a chunked run keeps one pair for every chunk: count this chunk's only

    def totals() -> dict:
        return {"programs": len(ran), "kernels_run": count["kernels"], "kernels_compared": count["compared"],
                "programs_by_class": dict(by_class), "mismatches_by_kind": dict(kinds), "explained": dict(explained),
                "unexplained": unexplained, "quadrants_timed_out_twice": ref_timeouts,
                "timeouts_retried": len(pair.retried) - first_retry, "retried": pair.retried[first_retry:], "versions": {"quadrants": pair.ref.version, "ours": pair.ours.version}}

    with pair:
        for seed in seeds:
            if deadline and time.time() > deadline:
                break
            prog = generate(seed, feats, arch=arch, small=small, classes=classes)
            n_kernels = prog.source.count("@qd.kernel")
            ms = pair.check(prog)
            ran.append(seed)
            by_class[prog.cls] += 1
            count["kernels"] += n_kernels
            if ms and save_dir:
                os.makedirs(save_dir, exist_ok=True)
                with open(os.path.join(save_dir, f"{arch}_seed_{seed}.py"), "w") as f:
                    f.write(prog.source + "".join(f"# {m}\n" for m in ms[:5]))
            if ms and ms[0].kind == "ref_timeout_twice":  # no answer from Quadrants: not compared
                ref_timeouts.append(seed)
                name = "QUADRANTS TIMED OUT TWICE"
            else:
                count["compared"] += n_kernels
                name = None
                if ms:
                    kinds[ms[0].kind] += 1
                    name = explain(ms)
                    if name:
                        explained[name] += 1
                    else:
                        unexplained.append({"seed": seed, "class": prog.cls, "mismatch": [str(m)[:300] for m in ms[:3]]})
            if progress and ms:
                print(seed, name or "UNEXPLAINED", str(ms[0])[:200], file=sys.stderr, flush=True)
            if tally:
                with open(tally + ".tmp", "w") as f:
                    json.dump(totals(), f)
                os.replace(tally + ".tmp", tally)
        return totals()


def _shard(job):
    return run_seeds(*job)


class _Kept(Pair):
    """A pair that outlives each chunk's `with` (the children start once per process)."""

    def __exit__(self, *exc):
        return None


def run_chunks(a) -> None:
    """Seeds lo:hi in chunks of `--chunk`, one JSON file per chunk in `--out-dir`; a chunk whose
    file exists is skipped, so a stopped run resumes where it was. `--merge DIR` adds them up."""
    lo, hi = (int(x) for x in a.seeds.split(":"))
    feats = tuple(a.features.split(",")) if a.features else None
    os.makedirs(a.out_dir, exist_ok=True)
    import signal
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # `kill PID` still stops the two children
    pair = _Kept(arch=a.arch, timeout=a.timeout, retry_timeout=a.retry_timeout or None)
    try:
        for start in range(lo, hi, a.chunk):
            end = min(hi, start + a.chunk)
            path = os.path.join(a.out_dir, f"{a.arch}_{start}_{end}.json")
            if os.path.exists(path):
                continue
            t0 = time.time()
            part = run_seeds(list(range(start, end)), a.arch, feats, a.timeout, a.progress, 0.0, a.small, pair,
                             a.save_dir or "", 0.0, "", _classes(a))
            part.update(seeds=f"{start}:{end}", arch=a.arch, small=a.small, seconds=round(time.time() - t0, 1))
            with open(path + ".tmp", "w") as f:
                json.dump(part, f, indent=1)
            os.replace(path + ".tmp", path)
    finally:
        pair.close()


def merge(folder: str) -> dict:
    parts = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name)) as f:
                parts.append(json.load(f))
    return {"chunks": len(parts), **add_up(parts)}


def add_up(parts: list[dict]) -> dict:
    """The totals of several runs' JSON (older chunk files lack the newer keys: counted as 0)."""
    total: dict = {"programs": 0, "kernels_run": 0, "kernels_compared": 0, "timeouts_retried": 0, "seconds": 0.0}
    counters = {k: collections.Counter() for k in ("programs_by_class", "mismatches_by_kind", "explained")}
    unexplained: list = []
    ref_timeouts: list = []
    retried: list = []  # "quadrants dt_SEED_N" / "ours dt_SEED_N": which side missed the first limit
    for p in parts:
        retried += p.get("retried", [])
        for k in total:
            total[k] += p.get(k, 0)
        for k, c in counters.items():
            c.update(p[k])
        unexplained += p["unexplained"]
        ref_timeouts += p.get("quadrants_timed_out_twice", [])
    total["seconds"] = round(total["seconds"], 1)
    return {**total, **{k: dict(c) for k, c in counters.items()},
            "explanations": {k: EXPLAINED[k] for k in counters["explained"]},
            "quadrants_timed_out_twice": sorted(ref_timeouts), "retried": retried[:100],
            "unexplained_count": len(unexplained), "unexplained": sorted(unexplained, key=lambda u: u["seed"])[:50]}


def _classes(a) -> tuple | None:
    return tuple(a.classes.split(",")) if a.classes else None


def run(a) -> dict:
    """Seeds lo:hi, split over `--jobs` processes (each with its own pair of children)."""
    lo, hi = (int(x) for x in a.seeds.split(":"))
    feats = tuple(a.features.split(",")) if a.features else None
    t0 = time.time()
    seeds = list(range(lo, hi))
    deadline = t0 + a.budget_s if a.budget_s else 0.0
    if a.tally_dir:
        os.makedirs(a.tally_dir, exist_ok=True)
    jobs = [(seeds[k::a.jobs], a.arch, feats, a.timeout, a.progress, deadline, a.small, None, a.save_dir or "",
             a.retry_timeout, os.path.join(a.tally_dir, f"{a.arch}_shard{k}.json") if a.tally_dir else "", _classes(a))
            for k in range(a.jobs)]
    if a.jobs == 1:
        parts = [_shard(jobs[0])]
    else:
        import multiprocessing
        with multiprocessing.get_context("spawn").Pool(a.jobs) as pool:
            parts = pool.map(_shard, jobs)
    total = add_up(parts)
    total["seconds"] = round(time.time() - t0, 1)
    return {"arch": a.arch, "seeds": a.seeds, "classes": a.classes or "all", "small": a.small, "jobs": a.jobs, **total,
            "versions": parts[0]["versions"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0:200")
    ap.add_argument("--arch", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--features", default="")
    ap.add_argument("--classes", default="", help="the program classes seeds may draw (default all: exact, trans, "
                    "scalar, vector, struct, ndarray); 'exact,trans' gives every seed its program from before the "
                    "new classes (issue 39)")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--shrink", type=int)
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--small", action="store_true", help="the CI profile: one kernel per program")
    ap.add_argument("--jobs", type=int, default=1, help="processes, each with its own two children")
    ap.add_argument("--budget-s", type=float, default=0.0, help="start no program after this many seconds")
    ap.add_argument("--out-dir", help="run in resumable chunks, one JSON file each, into this folder")
    ap.add_argument("--chunk", type=int, default=50, help="seeds per chunk with --out-dir")
    ap.add_argument("--merge", help="print the totals of the chunk files in this folder")
    ap.add_argument("--save-dir", help="write the text of every mismatching program into this folder")
    ap.add_argument("--tally-dir", help="each process keeps its running totals there (kill-safe; --merge DIR)")
    ap.add_argument("--retry-timeout", type=float, default=0.0,
                    help="the limit of a timed-out program's second run, alone (default 4x --timeout)")
    a = ap.parse_args()
    if a.merge:
        print(json.dumps(merge(a.merge), indent=1))
        return
    if a.out_dir:
        run_chunks(a)
        print(json.dumps(merge(a.out_dir), indent=1))
        return
    if a.shrink is not None:
        prog = generate(a.shrink, arch=a.arch, small=a.small, classes=_classes(a))
        with Pair(arch=a.arch, timeout=a.timeout) as pair:
            text, tries = shrink(prog.source, lambda src: pair.check(prog, src))
            ms = pair.check(prog, text)
        print(text)
        print(f"# {tries} candidates run; " + "; ".join(str(m) for m in ms))
        return
    print(json.dumps(run(a), indent=1))


if __name__ == "__main__":
    main()
