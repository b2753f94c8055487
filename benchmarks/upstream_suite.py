"""Quadrants' own test suite as the oracle: upstream's tests/python on the CPU, under real Quadrants
1.3.3 and under qdexplorer.lang, in one run.

    PYTHONPATH=. python benchmarks/upstream_suite.py                  # every file not measured yet
    PYTHONPATH=. python benchmarks/upstream_suite.py --files test_abs.py,test_pow.py   # re-run these under ours
    PYTHONPATH=. python benchmarks/upstream_suite.py --ours-all        # re-run every file under ours
    PYTHONPATH=. python benchmarks/upstream_suite.py --report-only     # the report from what is stored

The tests come from the mirror of Genesis-Embodied-AI/quadrants at commit 009f0a2d (2026-08-21;
1.3.3's own commit 00423caa is not in it), extracted with `git archive` into WORK/tree (upstream's
`tests/test_utils.py` unchanged; its `tests/python/conftest.py` trimmed, see
tests/upstream_sample/tree/tests/python/conftest.py, which CI runs too). Real Quadrants runs them first, keeping the first two cases of
each test function (`QD_WANTED_ARCHS=cpu`); then the cases it passed run under qdexplorer.lang, with
`import quadrants` and its submodules answered through upstream_harness/shim. Tests newer than the
1.3.3 wheel fail under Quadrants and drop out of the count by themselves.

Each file's outcome is stored per implementation under WORK/results, so a run re-runs only what it is
asked to (real Quadrants: files whose text changed; ours: files never measured, or those named).
The JSON report (stdout and --out) has the counts, per-file counts and a histogram of the first
failure line of each case Quadrants passes and we do not, normalised (numbers, paths and
addresses folded).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import io
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
HARNESS = HERE / "upstream_harness"
MIRROR = Path("/work/.mirror/Genesis-Embodied-AI+quadrants/repo")
COMMIT = "009f0a2d"

# Upstream files left out of the count: they test Quadrants' internals, not the language.
EXCLUDED = {
    "test_ast_resolver.py": "Quadrants' AST symbol resolver (quadrants.lang.ast)",
    "test_concurrent_kernels.py": "patches Quadrants' AST transformer (quadrants.lang.ast.transform_tree)",
    "test_callable_template_mapper.py": "Quadrants' template-mapper internals",
    "test_kernel_coverage.py": "Quadrants' kernel-coverage AST rewriter",
    "test_perf_dispatch.py": "Quadrants' performance-dispatch internals (quadrants.lang._perf_dispatch)",
    "test_cache.py": "Quadrants' kernel caches",
    "test_offline_cache.py": "Quadrants' offline (disk) cache",
    "test_error_load_ir_with_caching.py": "Quadrants' offline cache and IR loading",
    "test_warn_print_dump_ir_with_caching.py": "Quadrants' offline cache and IR dumps",
    "test_frozen_dc_dispatch_cache.py": "Quadrants' dataclass dispatch cache",
    "test_tensor_layout_cache.py": "Quadrants' tensor-layout cache internals (quadrants._tensor)",
    "test_stable_gtmp_offsets.py": "Quadrants' CHI IR (global temporary offsets)",
    "test_config.py": "Quadrants' IR debug-dump configuration",
    "test_internal_func.py": "Quadrants' runtime internals (impl.call_internal)",
    "test_type_system.py": "the type signatures of Quadrants' internal runtime functions (impl.call_internal)",
    "test_api.py": "Quadrants' own list of its names and matrix swizzle generator internals",
    "test_binding.py": "Quadrants' C++ bindings",
    "test_pyi_stubs.py": "Quadrants' C++ binding stubs",
    "test_cuda_internals.py": "CUDA (not the CPU)",
    "test_runtime_objects_chunk_alignment.py": "CUDA driver allocation (not the CPU)",
    "test_fatbin_arch_coverage.py": "CUDA fat binaries (not the CPU)",
    "test_demote_atomics_spirv.py": "SPIR-V (not the CPU)",
    "test_metal_many_ndarrays.py": "Metal (not the CPU)",
    "test_metal_shared_queue.py": "Metal (not the CPU)",
    "test_tools_check_non_ascii.py": "Quadrants' repository tooling",
    "test_tools_markdown_check.py": "Quadrants' repository tooling",
    "test_tools_run_modified_files_integration.py": "Quadrants' repository tooling",
    "test_xdist_worker_retirement.py": "Quadrants' test-runner machinery",
    "quadrants/": "tests/python/quadrants/lang/*: Quadrants' AST transformers, fast caching and kernel implementation",
    "gstaichi/": "tests/python/gstaichi/*: the Python backend of gstaichi",
    "bugs/": "tests/python/bugs/*: a SPIR-V regression (not the CPU)",
}


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, **kw)


def extract(work: Path, mirror: Path, commit: str) -> Path:
    """Upstream's tests/ at COMMIT into WORK/tree (again only when the commit changes)."""
    tree = work / "tree"
    stamp = tree / ".commit"
    if stamp.exists() and stamp.read_text() == commit:
        return tree
    if not mirror.exists():
        raise SystemExit(f"upstream_suite: the Quadrants mirror {mirror} is missing (--mirror)")
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    data = sh(["git", f"--git-dir={mirror}", "archive", commit, "tests"]).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        tf.extractall(tree, filter="data")
    shutil.copy(REPO / "tests/upstream_sample/tree/tests/python/conftest.py", tree / "tests/python/conftest.py")  # one copy, CI's
    (tree / "pytest.ini").write_text((tree / "tests/pytest.ini").read_text())
    stamp.write_text(commit)
    return tree


def test_files(tree: Path) -> list[str]:
    return sorted(p.name for p in (tree / "tests/python").glob("test_*.py") if p.name not in EXCLUDED)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def run_pytest(tree: Path, files: list[str], mode: str, select, out: Path, workers: int, timeout: int,
               log: Path) -> None:
    """One pytest session over FILES; the plugin appends one JSON line per case to OUT."""
    env = dict(os.environ, QD_WANTED_ARCHS="cpu", QDX_SUITE_OUT=str(out), QDX_SUITE_SELECT=str(select),
               PYTHONDONTWRITEBYTECODE="1", QDX_SUITE_EXPECT="qdexplorer.lang" if mode == "ours" else "quadrants")
    path = [str(HARNESS / "plugin"), str(tree)]
    if mode == "ours":
        path = [str(HARNESS / "shim")] + path + [str(REPO)]
    env["PYTHONPATH"] = os.pathsep.join(path)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "qdx_suite_plugin", "-p", "no:cacheprovider",
           "-p", "no:randomly", f"--timeout={timeout}", "-o", "addopts=", "--rootdir", str(tree),
           "-c", str(tree / "pytest.ini"), "-W", "ignore", "--tb=line", "--continue-on-collection-errors"]
    if workers > 1:
        cmd += ["-n", str(workers)]
    else:
        cmd += ["-p", "no:xdist"]
    cmd += [f"tests/python/{f}" for f in files]
    with open(log, "a") as lf:
        lf.write(f"\n### {mode}: {' '.join(files)}\n")
        lf.flush()
        subprocess.run(cmd, cwd=tree, env=env, stdout=lf, stderr=subprocess.STDOUT, check=False)


def parse(out: Path) -> tuple[dict, dict]:
    """{nodeid: (outcome, cause)} and {file: collection error} from the plugin's lines."""
    cases: dict = {}
    collect: dict = {}
    if not out.exists():
        return cases, collect
    for line in out.read_text().splitlines():
        rec = json.loads(line)
        if "collect_error" in rec:
            collect[rec["collect_error"].split("::")[0]] = rec["cause"]
            continue
        nid, when, outcome = rec["nodeid"], rec["when"], rec["outcome"]
        prev = cases.get(nid)
        if prev and prev[0] != "passed":
            continue  # the first failure of a case (setup, call or teardown) is its cause
        if outcome == "passed" and when != "call":
            continue
        if outcome == "skipped" and prev is None:
            cases[nid] = ("skipped", rec.get("cause", ""))
        elif outcome == "failed":
            cases[nid] = ("failed", rec.get("cause", ""))
        elif outcome == "passed":
            cases[nid] = ("passed", "")
    return cases, collect


def _by_file(cases: dict) -> dict:
    out: dict = {}
    for nid, v in cases.items():
        out.setdefault(nid.split("::")[0].rsplit("/", 1)[-1], {})[nid] = v
    return out


def measure(tree: Path, work: Path, files: list[str], mode: str, workers: int, timeout: int, batch: int,
            wanted: dict | None = None) -> None:
    """Run FILES under MODE in batches, storing each file's cases in WORK/results/MODE/FILE.json."""
    store = work / "results" / mode
    store.mkdir(parents=True, exist_ok=True)
    for i in range(0, len(files), batch):
        chunk = files[i:i + batch]
        out = work / f"{mode}.{os.getpid()}.jsonl"  # per process: two runs may share WORK (--reverse)
        out.unlink(missing_ok=True)
        select = "first2"
        if mode == "ours":
            select = work / f"ours_select.{os.getpid()}.json"
            select.write_text(json.dumps(sorted(n for f in chunk for n in wanted[f])))
        t0 = time.time()
        run_pytest(tree, chunk, mode, select, out, workers, timeout, work / f"{mode}.log")
        cases, collect = parse(out)
        per = _by_file(cases)
        for f in chunk:
            got = per.get(f, {})
            err = collect.get(f"tests/python/{f}")
            if mode == "ours":  # a case Quadrants passed that did not run here: why
                for nid in wanted[f]:
                    if nid not in got:
                        got[nid] = ("failed", f"collection: {err}" if err else "not collected under qdexplorer.lang")
            rec = {"file": f, "digest": _digest(tree / "tests/python" / f), "collect_error": err,
                   "cases": {n: list(v) for n, v in sorted(got.items())}}
            (store / f"{f}.json").write_text(json.dumps(rec, indent=0))
        print(f"[{mode}] {i + len(chunk)}/{len(files)} files, {time.time() - t0:.0f} s: {' '.join(chunk)}",
              file=sys.stderr, flush=True)


def load(work: Path, mode: str, f: str) -> dict | None:
    p = work / "results" / mode / f"{f}.json"
    return json.loads(p.read_text()) if p.exists() else None


_NORM = [(re.compile(r"0x[0-9a-fA-F]+"), "0xX"), (re.compile(r"(/[\w.+-]+)+\.py(:\d+)?"), "FILE"),
         (re.compile(r"<[^<>]*(string|kernel string)[^<>]*>(:\d+)?"), "FILE"), (re.compile(r"\b\d+(\.\d+)?\b"), "N"),
         (re.compile(r"\s+"), " ")]


def normalise(cause: str) -> str:
    c = cause.strip()
    for pat, rep in _NORM:
        c = pat.sub(rep, c)
    return c[:200]


def report(tree: Path, work: Path, files: list[str]) -> dict:
    per_file = {}
    hist: Counter = Counter()
    examples: dict = {}
    q_pass = ours_pass = q_cases = 0
    for f in files:
        real = load(work, "real", f)
        if real is None:
            continue
        passed = [n for n, (o, _) in real["cases"].items() if o == "passed"]
        q_cases += len(real["cases"])
        q_pass += len(passed)
        ours = load(work, "ours", f) if passed else None
        ok = 0
        for n in passed:
            o, cause = (ours or {"cases": {}})["cases"].get(n, ("failed", "not measured under qdexplorer.lang"))
            if o == "passed":
                ok += 1
            else:
                key = normalise(cause if o == "failed" else f"skipped: {cause}")
                hist[key] += 1
                examples.setdefault(key, n)
        ours_pass += ok
        per_file[f] = {"quadrants_cases": len(real["cases"]), "quadrants_passes": len(passed), "ours_passes": ok,
                       "ours_collect_error": (ours or {}).get("collect_error")}
    return {"upstream": f"Genesis-Embodied-AI/quadrants@{COMMIT} tests/python", "cases_per_function": 2,
            "files_measured": len(per_file), "files_left_out": EXCLUDED, "quadrants_cases": q_cases,
            "quadrants_passes": q_pass, "ours_passes_of_those": ours_pass,
            "percent": round(100.0 * ours_pass / q_pass, 1) if q_pass else None,
            "failure_causes": [{"count": c, "cause": k, "example": examples[k]} for k, c in hist.most_common()],
            "files": per_file}


def markdown(rep: dict, top: int = 15) -> str:
    """The report as the tables benchmarks/README.md shows: counts, files left out, top causes."""
    lines = [f"Files measured: {rep['files_measured']}; cases real Quadrants passes: {rep['quadrants_passes']} "
             f"(of {rep['quadrants_cases']} selected); of those, passing under qdexplorer.lang: "
             f"{rep['ours_passes_of_those']} ({rep['percent']}%).", "",
             "| count | first failure line (normalised) | example |", "| ---: | --- | --- |"]
    for c in rep["failure_causes"][:top]:
        cause = c["cause"].replace("|", "\\|").replace("`", "'")[:150]
        lines.append(f"| {c['count']} | `{cause}` | {c['example'].split('/')[-1][:70]} |")
    lines += ["", "| file left out | why |", "| --- | --- |"]
    lines += [f"| {f} | {why} |" for f, why in rep["files_left_out"].items()]  # upstream's names, not ours
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path(os.environ.get("QDX_UPSTREAM_WORK", "/tmp/qdx-upstream-suite")))
    ap.add_argument("--mirror", type=Path, default=MIRROR)
    ap.add_argument("--commit", default=COMMIT)
    ap.add_argument("--files", default="", help="comma-separated test files to (re-)run under qdexplorer.lang")
    ap.add_argument("--ours-all", action="store_true", help="re-run every file under qdexplorer.lang")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--markdown", action="store_true", help="print the report as markdown tables instead")
    ap.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (at most the CPU count)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per test case")
    ap.add_argument("--batch", type=int, default=8, help="files per pytest session")
    ap.add_argument("--order", choices=("name", "size"), default="name",
                    help="size: smallest files first (the most files measured soonest)")
    ap.add_argument("--reverse", action="store_true",
                    help="take the files last first (a second run sharing WORK meets the first in the middle)")
    ap.add_argument("--out", type=Path, default=HERE / "upstream_suite.json")
    a = ap.parse_args(argv)
    workers = max(1, min(os.cpu_count() or 1, a.workers))
    tree = extract(a.work, a.mirror, a.commit)
    files = test_files(tree)
    named = [f.strip() for f in a.files.split(",") if f.strip()]
    unknown = [f for f in named if f not in files]
    if unknown:
        raise SystemExit(f"upstream_suite: not an upstream test file here (or left out): {', '.join(unknown)}")
    if not a.report_only:
        order = named or files
        if a.order == "size":
            order = sorted(order, key=lambda f: (tree / "tests/python" / f).stat().st_size)
        if a.reverse:
            order = order[::-1]
        for i in range(0, len(order), a.batch):  # real then ours per batch: ours results come early
            chunk = order[i:i + a.batch]
            if not (named or a.ours_all):  # what another run sharing WORK has measured meanwhile
                chunk = [f for f in chunk if load(a.work, "ours", f) is None]
            todo_real = [f for f in chunk
                         if (load(a.work, "real", f) or {}).get("digest") != _digest(tree / "tests/python" / f)]
            if todo_real:
                measure(tree, a.work, todo_real, "real", workers, a.timeout, a.batch)
            wanted = {}
            for f in chunk:
                real = load(a.work, "real", f)
                wanted[f] = [n for n, (o, _) in real["cases"].items() if o == "passed"] if real else []
            rerun = bool(named) or a.ours_all
            todo = [f for f in chunk if wanted[f] and (rerun or load(a.work, "ours", f) is None)]
            if todo:
                measure(tree, a.work, todo, "ours", workers, a.timeout, a.batch, wanted)
    rep = report(tree, a.work, files)
    a.out.write_text(json.dumps(rep, indent=1) + "\n")
    if a.markdown:
        print(markdown(rep))
        return 0
    print(json.dumps({k: rep[k] for k in ("files_measured", "quadrants_cases", "quadrants_passes",
                                          "ours_passes_of_those", "percent")}
                     | {"top_causes": rep["failure_causes"][:25]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
