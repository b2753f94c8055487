"""Where the suite's CPU goes, by test, file, folder, fixture and kind of process, from what
tests/_cpu_profile_plugin.py wrote during `QDX_TEST_CPU_LOG=FOLDER bash tests/suite.sh`.

A test's CPU here = its process's own (setup + call + teardown) + of the children it started and ended, the
larger of RUSAGE_CHILDREN and what the sampler saw them (and their descendants: forkserver helpers, Ray) spend
+ what the test process's long-lived children (module fixtures' children, the forkserver, `ray start`) spent
while it ran, sampled. A sampled interval goes to the test running at its midpoint.

    python benchmarks/suite_cpu_by_test.py FOLDER [--top-files 40] [--top-tests 60]
"""
from __future__ import annotations

import argparse
import collections
import json
import os

_KINDS = [   # (kind, words in the command line): the first that matches
    ("difftest Quadrants child", ("tests.difftest.child quadrants",)),
    ("difftest qdexplorer child", ("tests.difftest.child ours",)),
    ("mypy", ("-m mypy",)),
    ("Ray", ("ray::", "raylet", "gcs_server", "/ray/", "ray start", "default_worker", "dashboard", "runtime_env")),
    ("Quadrants bridge child", ("quadrants/child.py", "qdexplorer.quadrants.child")),
    ("CLI child", ("qdexplorer.cli", "-m qdexplorer ")),
    ("window child", ("qdexplorer.launcher",)),
    ("ptxas/nvdisasm", ("ptxas", "nvdisasm")),
    ("pytest in a child", ("-m pytest",)),
    ("python -c child", ("python -c", "python3 -c", "bin/python -c")),
]


def _kind(cmd: str) -> str:
    if "forkserver" in cmd:
        return "forkserver (server)"
    for kind, words in _KINDS:
        if any(w in cmd for w in words):
            return kind
    return "other child" if cmd else "(unnamed)"


def load(folder: str):
    tests = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".jsonl") and name != "sampler.jsonl":
            with open(os.path.join(folder, name)) as f:
                tests += [json.loads(line) for line in f if line.strip()]
    with open(os.path.join(folder, "sampler.jsonl")) as f:
        head, *samples = [json.loads(line) for line in f]
    return tests, head, samples


def attribute(folder, tests, head, samples):
    """Each process's sampled CPU deltas, with its kind and owner (the nearest ancestor that ran tests)."""
    hz = head["hz"]
    test_pids = {t["pid"] for t in tests}
    info: dict[tuple, list] = {}          # (pid, start) -> [ppid, cmd]
    by_pid: dict[int, tuple] = {}          # pid -> its latest key (ancestry by pid, as it was when seen)
    last: dict[tuple, int] = {}
    deltas = []                            # (t_mid, key, seconds)
    prev_t = samples[0]["t"]
    first = True
    for s in samples:
        for pid, start, ppid, cmd in s["new"]:
            info[(pid, start)] = [ppid, cmd]
            by_pid[pid] = (pid, start)
        for pid, start, ppid, ticks in s["p"]:
            key = (pid, start)
            before = last.get(key, None if first else 0)
            last[key] = ticks
            if before is not None and ticks > before:
                deltas.append(((prev_t + s["t"]) / 2, key, (ticks - before) / hz))
        prev_t, first = s["t"], False

    def lineage(key):
        chain, seen = [], set()
        while key in info and key not in seen:
            seen.add(key)
            chain.append(key)
            ppid = info[key][0]
            key = by_pid.get(ppid)
        return chain

    primaries = {int(n[8:]) for n in os.listdir(folder) if n.startswith("primary-")}
    procs = {}
    for key in info:
        chain = lineage(key)
        owner = next((k[0] for k in chain if k[0] in test_pids), None)
        cmds = [info[k][1] for k in chain]
        if key[0] == head["self"]:
            kind = "the sampler"
        elif key[0] in test_pids:
            kind = "pytest process (in-process)"
        elif key[0] in primaries:
            kind = "xdist controller"
        elif not any(k[0] in test_pids or k[0] in primaries for k in chain):
            kind = "outside the suite (other users of the machine)"
        elif any("forkserver" in c for c in cmds[1:]):
            kind = "forkserver helper"
        else:
            kind = _kind(info[key][1])
        top = next((k for k in chain if info[k][0] == owner), None)   # the test process's own child above it
        procs[key] = {"kind": kind, "owner": owner, "cmd": info[key][1], "chain": chain, "top": top,
                      "long_lived": False}
    for tm, key, sec in deltas:
        p = procs[key]
        p["first"], p["last"] = min(p.get("first", tm), tm), max(p.get("last", tm), tm)
        p["cpu"] = p.get("cpu", 0.0) + sec
    return procs, deltas


REAPED: list = []   # (CPU s, the long-lived child, the test whose RUSAGE_CHILDREN it was taken from)


def _long_lived_children(procs, spans):
    """A child of a test process that outlives the test that started it (a module fixture's Quadrants child,
    the session's `ray start`, the forkserver) works for the tests that come after: its subtree is sampled
    and put on the tests that ran while it worked. When it is reaped, the reaping test's RUSAGE_CHILDREN gets
    all it ever spent: that is taken out again where it shows (the sampler does not see an idle process go)."""
    tree = collections.defaultdict(list)   # a direct child -> the processes of its subtree
    for key, p in procs.items():
        if p["top"] is not None and "first" in p:
            tree[p["top"]].append(p)
    for top, members in tree.items():
        first, last = min(m["first"] for m in members), max(m["last"] for m in members)
        owner = members[0]["owner"]
        if not any(first <= a and b <= last and b - a >= 0.5 for a, b, r in spans[owner]):
            continue   # no test of its owner (of half a second or more) ran wholly inside its working life
        for m in members:
            m["long_lived"] = True
        cpu = sum(m["cpu"] for m in members)
        after = [r for a, b, r in spans[owner] if b >= last][:2]
        reaper = next((r for r in after if r["kids"] >= 0.8 * cpu), None)
        if reaper is not None:
            reaper["kids"] = max(0.0, reaper["kids"] - cpu)
            REAPED.append((round(cpu, 1), procs[top]["cmd"][:90], reaper["test"]))


def per_test(tests, procs, deltas):
    """A test's CPU: its own, its long-lived children's (sampled), and of the children it started and
    ended, the larger of RUSAGE_CHILDREN (misses what no one waited for: a forkserver's helpers, Ray's
    orphans) and what the sampler saw (misses processes shorter than its period)."""
    spans = collections.defaultdict(list)   # owner pid -> [(start, end, row)]
    for t in tests:
        t["self"] = sum(t.get(p, [0, 0, 0])[1] for p in ("setup", "call", "teardown"))
        t["kids"] = sum(t.get(p, [0, 0, 0])[2] for p in ("setup", "call", "teardown"))
        t["wall"] = sum(t.get(p, [0, 0, 0])[0] for p in ("setup", "call", "teardown"))
        t["long_lived"], t["short_sampled"] = 0.0, 0.0
        t["by_kind"] = collections.Counter()
        spans[t["pid"]].append((t["start"], t["end"], t))
    for v in spans.values():
        v.sort(key=lambda x: x[0])
    _long_lived_children(procs, spans)
    between = collections.Counter()
    for tm, key, sec in deltas:
        p = procs[key]
        if p["owner"] is None or p["kind"] == "pytest process (in-process)":
            continue
        row = next((r for a, b, r in spans[p["owner"]] if a <= tm <= b), None)
        if row is None:
            between[p["kind"]] += sec
            continue
        row["by_kind"][p["kind"]] += sec
        row["long_lived" if p["long_lived"] else "short_sampled"] += sec
    for t in tests:
        t["children"] = max(t["kids"], t["short_sampled"])
        t["total"] = t["self"] + t["long_lived"] + t["children"]
    return between


def _file(nodeid: str) -> str:
    return nodeid.split("::")[0]


def report(folder: str, top_files: int, top_tests: int) -> None:
    tests, head, samples = load(folder)
    procs, deltas = attribute(folder, tests, head, samples)
    between = per_test(tests, procs, deltas)
    hz = head["hz"]
    wall = samples[-1]["t"] - samples[0]["t"]
    busy = (samples[-1]["busy"] - samples[0]["busy"]) / hz
    kinds = collections.Counter()
    counts = collections.Counter()
    for tm, key, sec in deltas:
        kinds[procs[key]["kind"]] += sec
    for key, p in procs.items():
        counts[p["kind"]] += 1
    print(f"# sampled span {wall:.0f} s wall, machine busy {busy:.0f} s CPU (/proc/stat); sampled processes "
          f"{sum(kinds.values()):.0f} s; tests {len(tests)}")
    print(f"# sum over tests: {sum(t['total'] for t in tests):.0f} s = self {sum(t['self'] for t in tests):.0f} s"
          f" + children {sum(t['children'] for t in tests):.0f} s (RUSAGE_CHILDREN {sum(t['kids'] for t in tests):.0f},"
          f" sampled {sum(t['short_sampled'] for t in tests):.0f}) + long-lived children (sampled) "
          f"{sum(t['long_lived'] for t in tests):.0f} s;"
          f" descendants' CPU between tests: {sum(between.values()):.0f} s {dict(between.most_common(5))}")
    print("\n## Long-lived children, sampled and taken out of the reaping test's waited children\n"
          "| CPU s | child | reaped in |\n|---:|---|---|")
    for cpu, cmd, test in sorted(REAPED, reverse=True):
        print(f"| {cpu} | `{cmd}` | {test} |")
    print("\n## CPU by kind of process (sampled)\n| CPU s | processes | kind |\n|---:|---:|---|")
    for k, v in kinds.most_common():
        print(f"| {v:.1f} | {counts[k]} | {k} |")

    def table(title, groups, n):
        print(f"\n## {title}\n| total CPU s | self | children | long-lived children | wall s | tests |"
              " | \n|---:|---:|---:|---:|---:|---:|---|")
        rows = sorted(groups.items(), key=lambda kv: -sum(t["total"] for t in kv[1]))[:n]
        for name, ts in rows:
            print(f"| {sum(t['total'] for t in ts):.1f} | {sum(t['self'] for t in ts):.1f} | "
                  f"{sum(t['children'] for t in ts):.1f} | {sum(t['long_lived'] for t in ts):.1f} | "
                  f"{sum(t['wall'] for t in ts):.1f} | {len(ts)} | {name} |")

    folders, files = collections.defaultdict(list), collections.defaultdict(list)
    for t in tests:
        f = _file(t["test"])
        files[f].append(t)
        parts = f.split("/")
        folders["/".join(parts[:2]) if len(parts) > 2 else "tests/*.py"].append(t)
    table("By top-level tests/ folder", folders, 100)
    table(f"Top {top_files} test files", files, top_files)
    print(f"\n## Top {top_tests} tests\n| total | self | children | long-lived | setup s/cpu | call s/cpu | teardown s/cpu "
          "| test |\n|---:|---:|---:|---:|---|---|---|---|")
    for t in sorted(tests, key=lambda t: -t["total"])[:top_tests]:
        ph = [t.get(p, [0, 0, 0]) for p in ("setup", "call", "teardown")]
        print(f"| {t['total']:.1f} | {t['self']:.1f} | {t['children']:.1f} | {t['long_lived']:.1f} | "
              + " | ".join(f"{w:.1f}/{c + k:.1f}" for w, c, k in ph) + f" | {t['test']} |")
    fx = collections.defaultdict(list)
    for t in tests:
        su = t.get("setup", [0, 0, 0])
        for name in t["fixtures"]:
            fx[name].append(su[1] + su[2])
    print("\n## Setup CPU (self + waited children) of the tests that use each fixture (mean > 0.05 s, n >= 3)\n"
          "| setup CPU s in all | tests | mean | fixture |\n|---:|---:|---:|---|")
    for name, v in sorted(fx.items(), key=lambda kv: -sum(kv[1])):
        if len(v) >= 3 and sum(v) / len(v) > 0.05:
            print(f"| {sum(v):.1f} | {len(v)} | {sum(v) / len(v):.2f} | {name} |")
    print("\n## The `long` set\n| total | self | children | long-lived | wall | test |\n|---:|---:|---:|---:|---:|---|")
    for t in sorted((t for t in tests if t["long"]), key=lambda t: -t["total"]):
        print(f"| {t['total']:.1f} | {t['self']:.1f} | {t['children']:.1f} | {t['long_lived']:.1f} | {t['wall']:.1f} "
              f"| {t['test']} |")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--top-files", type=int, default=40)
    ap.add_argument("--top-tests", type=int, default=60)
    a = ap.parse_args()
    report(a.folder, a.top_files, a.top_tests)
