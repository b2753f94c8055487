"""The corpus of real public programs: each run under real Quadrants 1.3.3 and under qdexplorer.lang on
the CPU, compared by the `checksum` lines they print.

Every program is `benchmarks/corpus/programs/SLUG.py` (format: benchmarks/corpus/README.md). For each
program, Quadrants' side is `python programs/SLUG.py` (cwd: a fresh temporary folder); ours is a child
interpreter that makes `import quadrants` mean qdexplorer.lang (`alias_quadrants()`) and runs the same
file as `__main__`. Both with a timeout, programs in parallel (`-j`), each side's wall time measured.

Verdicts:
- `same`: the same checksum labels, every value within the program's tolerance (floats:
  |ours - theirs| <= atol + rtol * |theirs|, NaN equal to NaN; ints: exactly);
- `fast_math`: different values, but with `qd.init(fast_math=False)` forced on both sides the same
  checksums: Quadrants' fast math (its default) lets LLVM reassociate float sums in its backend, which
  ours follows only in part, and the program amplifies the last bits; counted apart from `same`;
- `wrong`: ours ran to the end and printed different values or a different set of labels, also with
  fast math off;
- `error`: ours raised, crashed or timed out; `refused` where the exception is one of qdexplorer's own
  (`QdError` and its subclasses, qdexplorer/ir/errors.py: a clear message naming the construct),
  `internal` otherwise (an exception from inside our compiler or runtime, an LLVM error, a crash, a
  timeout);
- `quadrants_failed`: the port itself fails under Quadrants (no checksum, an exit status, a timeout): a
  porting bug to fix, never counted against ours (ours is then not run).

Usage:
  python benchmarks/corpus.py [--only SLUG ...] [--sample] [--determinism] [--json FILE] [-j N]
                              [--timeout S] [--programs DIR]
Exit status 0 unless the runner itself broke; CI decides from the JSON.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, asdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPUS = HERE / "corpus"
PROGRAMS = CORPUS / "programs"
SAMPLE = CORPUS / "ci_sample.txt"
AREAS = ("fluids", "solids", "mpm", "sph", "fem", "rigid", "cloth", "raytracing", "sparse", "autodiff",
         "image", "dp", "misc")
DEFAULT_RTOL, DEFAULT_ATOL = 1e-4, 1e-6
MARK = "QDX_CORPUS_ERROR"   # the line our child prints on stderr when the program raised

# The child for ours: `import quadrants` (and its public submodules) answered by qdexplorer.lang, the
# program run by path as __main__ with its own folder first on sys.path, as `python path` does. An
# exception is reported on one marked stderr line: refused (one of qdexplorer's errors) or internal.
OURS_CHILD = r"""
import os, runpy, sys, traceback
path = sys.argv[1]
try:
    from qdexplorer.lang.compat.module_paths import alias_quadrants
    alias_quadrants()
except ImportError:
    import qdexplorer.lang as qd
    sys.modules['quadrants'] = qd
try:
    from qdexplorer.ir.errors import QdError
except ImportError:
    QdError = ()
if os.environ.get('QDX_CORPUS_IEEE') == '1':
    exec(IEEE)
sys.argv = [path]
sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
try:
    runpy.run_path(path, run_name='__main__')
except SystemExit as e:
    if e.code not in (None, 0):
        sys.stdout.flush()
        print('%s internal SystemExit: %r' % (MARK, e.code), file=sys.stderr, flush=True)
        os._exit(3)
except BaseException as e:
    sys.stdout.flush()
    traceback.print_exc()
    kind = 'refused' if QdError and isinstance(e, QdError) else 'internal'
    text = ''.join(traceback.format_exception_only(type(e), e)).strip()
    first = text.splitlines()[0] if text else type(e).__name__
    print('%s %s %s' % (MARK, kind, first), file=sys.stderr, flush=True)
    os._exit(2)
sys.stdout.flush()
""".replace("MARK", repr(MARK))

# `qd.init(..., fast_math=False)` whatever the program asks: the re-check of a `wrong` program runs both
# sides so. Quadrants' fast math (its default) reassociates float sums in LLVM's backend, which ours
# follows only in part; where the two agree with it off, the difference is that rounding (`fast_math`).
IEEE = """
import quadrants as _qd
_real_init = _qd.init
def _ieee_init(*a, **k):
    k['fast_math'] = False
    return _real_init(*a, **k)
_qd.init = _ieee_init
"""
OURS_CHILD = OURS_CHILD.replace("exec(IEEE)", "exec(" + repr(IEEE) + ")")
QUADRANTS_IEEE_CHILD = ("import os, runpy, sys\npath = sys.argv[1]\nsys.argv = [path]\n"
                        "sys.path.insert(0, os.path.dirname(os.path.abspath(path)))\n" + IEEE +
                        "runpy.run_path(path, run_name='__main__')\n")

CHECKSUM = re.compile(r"^checksum\s+(\S+)\s+(\S+)\s*$")
TOLERANCE = re.compile(r"rtol\s*=\s*([0-9.eE+-]+)\s+atol\s*=\s*([0-9.eE+-]+)")


@dataclass
class Program:
    slug: str
    path: str
    area: str = ""
    source: str = ""
    license: str = ""
    port: str = ""
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL


def read_header(path: Path) -> Program:
    """The `# key: value` lines at the top of a port (format: benchmarks/corpus/README.md)."""
    prog = Program(slug=path.stem, path=str(path))
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            if line.strip():
                break
            continue
        key, _, value = line[1:].strip().partition(":")
        key, value = key.strip(), value.strip()
        if key == "corpus" and value:
            prog.slug = value
        elif key in ("area", "source", "license", "port"):
            setattr(prog, key, value)
        elif key == "tolerance":
            m = TOLERANCE.search(value.split("--")[0])
            if m:
                prog.rtol, prog.atol = float(m.group(1)), float(m.group(2))
    return prog


def parse_value(text: str):
    """An int where the text is one, else a float (repr() of a float, 'nan', 'inf' included);
    None where it is neither."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def parse_checksums(stdout: str) -> dict:
    """label -> value for every `checksum LABEL VALUE` line (a label printed twice: its last value)."""
    out = {}
    for line in stdout.splitlines():
        m = CHECKSUM.match(line.strip())
        if m:
            out[m.group(1)] = parse_value(m.group(2))
    return out


def close(ref, got, rtol: float, atol: float) -> bool:
    """Whether ours (`got`) matches Quadrants' (`ref`): ints exactly, floats within tolerance."""
    if ref is None or got is None:
        return False
    if isinstance(ref, int) and isinstance(got, int):
        return ref == got
    ref, got = float(ref), float(got)
    if math.isnan(ref) or math.isnan(got):
        return math.isnan(ref) and math.isnan(got)
    if math.isinf(ref) or math.isinf(got):
        return ref == got
    return abs(got - ref) <= atol + rtol * abs(ref)


def compare(ref: dict, got: dict, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL) -> list[str]:
    """What differs between two checksum sets: [] when they are the same."""
    diffs = []
    for label in ref:
        if label not in got:
            diffs.append(f"{label}: missing in ours")
        elif not close(ref[label], got[label], rtol, atol):
            diffs.append(f"{label}: quadrants {ref[label]!r} ours {got[label]!r}")
    diffs += [f"{label}: only in ours" for label in got if label not in ref]
    return diffs


@dataclass
class Side:
    rc: int | None = None            # None: timed out
    seconds: float = 0.0
    stdout: str = ""
    stderr: str = ""
    checksums: dict = field(default_factory=dict)


def run_side(prog: Program, ours: bool, timeout: float, ieee: bool = False) -> Side:
    env = dict(os.environ)
    if ours:
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        env["QDX_CORPUS_IEEE"] = "1" if ieee else "0"
        cmd = [sys.executable, "-c", OURS_CHILD, prog.path]
    elif ieee:
        cmd = [sys.executable, "-c", QUADRANTS_IEEE_CHILD, prog.path]
    else:
        cmd = [sys.executable, prog.path]
    env["PYTHONHASHSEED"] = "0"
    with tempfile.TemporaryDirectory(prefix=f"corpus-{prog.slug}-") as tmp:
        t0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=timeout,
                               errors="replace")
            side = Side(rc=p.returncode, stdout=p.stdout, stderr=p.stderr)
        except subprocess.TimeoutExpired as e:
            side = Side(rc=None, stdout=_text(e.stdout), stderr=_text(e.stderr))
        side.seconds = time.perf_counter() - t0
    side.checksums = parse_checksums(side.stdout)
    return side


def _text(b) -> str:
    if b is None:
        return ""
    return b.decode(errors="replace") if isinstance(b, bytes) else b


def last_error_line(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def short_error(text: str, path: str) -> str:
    """The error's line without the exception's module (`QdCompileError: ...`) and with the program's
    own path as its file name."""
    text = text.replace(os.path.abspath(path), os.path.basename(path))
    return re.sub(r"^(?:[A-Za-z_][\w]*\.)+([A-Za-z_]\w*(?:Error|Exception|Exit)\b)", r"\1", text)


def classify_ours(side: Side, timeout: float) -> tuple[str, str]:
    """(error class, one line) of a side that did not run to its end: refused or internal."""
    if side.rc is None:
        return "internal", f"timed out after {timeout:g} s"
    for line in reversed(side.stderr.splitlines()):
        if line.startswith(MARK + " "):
            kind, _, text = line[len(MARK) + 1:].partition(" ")
            return kind, text
    if side.rc < 0:
        return "internal", f"crashed: signal {-side.rc}; {last_error_line(side.stderr)}".rstrip("; ")
    return "internal", f"exit status {side.rc}; {last_error_line(side.stderr)}".rstrip("; ")


@dataclass
class Result:
    slug: str
    area: str
    verdict: str                     # same, fast_math, wrong, error, quadrants_failed
    error_class: str = ""            # for error: refused or internal
    error: str = ""                  # one line: the error, or the differing checksums
    quadrants_s: float | None = None
    ours_s: float | None = None
    ratio: float | None = None
    quadrants_checksums: dict = field(default_factory=dict)
    ours_checksums: dict = field(default_factory=dict)
    diffs: list = field(default_factory=list)
    ours_stderr_tail: str = ""
    quadrants_stderr_tail: str = ""


def judge(prog: Program, q: Side, o: Side | None, timeout: float) -> Result:
    """The verdict for one program from its two sides (o: None where ours was not run)."""
    r = Result(slug=prog.slug, area=prog.area, verdict="", quadrants_s=round(q.seconds, 3),
               quadrants_checksums=q.checksums)
    if q.rc != 0 or not q.checksums:
        r.verdict = "quadrants_failed"
        r.error = (f"timed out after {timeout:g} s" if q.rc is None else
                   f"exit status {q.rc}; {last_error_line(q.stderr)}" if q.rc != 0 else "no checksum line")
        r.quadrants_stderr_tail = q.stderr[-3000:]
        return r
    if o is None:
        r.verdict, r.error_class, r.error = "error", "internal", "not run"
        return r
    r.ours_s, r.ours_checksums = round(o.seconds, 3), o.checksums
    r.ratio = round(o.seconds / q.seconds, 3) if q.seconds > 0 else None
    if o.rc != 0:
        r.verdict = "error"
        r.error_class, r.error = classify_ours(o, timeout)
        r.error = short_error(r.error, prog.path)
        r.ours_stderr_tail = o.stderr[-3000:]
        return r
    r.diffs = compare(q.checksums, o.checksums, prog.rtol, prog.atol)
    if r.diffs:
        r.verdict, r.error = "wrong", "; ".join(r.diffs)
    else:
        r.verdict = "same"
    return r


def run_program(prog: Program, timeout: float, determinism: bool = False) -> dict:
    q = run_side(prog, ours=False, timeout=timeout)
    ok = q.rc == 0 and bool(q.checksums)
    o = run_side(prog, ours=True, timeout=timeout) if ok else None
    res = asdict(judge(prog, q, o, timeout))
    if res["verdict"] == "wrong":   # the same program with fast math off on both sides: same there?
        qi, oi = run_side(prog, False, timeout, ieee=True), run_side(prog, True, timeout, ieee=True)
        ieee = judge(prog, qi, oi, timeout)
        res["ieee_verdict"], res["ieee_diffs"] = ieee.verdict, ieee.diffs
        if ieee.verdict == "same":
            res["verdict"], res["explained"] = "fast_math", (
                "with qd.init(fast_math=False) both print the same checksums: the difference is Quadrants' "
                "fast-math reassociation of float sums (its default), amplified by the program")
    if determinism and ok:
        q2 = run_side(prog, ours=False, timeout=timeout)
        res["deterministic"] = q2.rc == 0 and _lines(q.stdout) == _lines(q2.stdout)
        if not res["deterministic"]:
            res["determinism_diff"] = compare(q.checksums, q2.checksums, 0.0, 0.0) or ["exit status or lines differ"]
    return res


def _lines(stdout: str) -> list[str]:
    return [ln.strip() for ln in stdout.splitlines() if CHECKSUM.match(ln.strip())]


def discover(programs: Path) -> list[Program]:
    return [read_header(p) for p in sorted(programs.glob("*.py")) if not p.name.startswith("_")]


def read_sample(path: Path = SAMPLE) -> list[str]:
    return [ln.split("#")[0].strip() for ln in path.read_text().splitlines() if ln.split("#")[0].strip()]


def summarize(results: list[dict]) -> dict:
    count = {v: sum(r["verdict"] == v for r in results)
             for v in ("same", "fast_math", "wrong", "error", "quadrants_failed")}
    ratios = [r["ratio"] for r in results if r["ratio"] and r["verdict"] in ("same", "fast_math", "wrong")]
    return {"programs": len(results), **count,
            "refused": sum(r["verdict"] == "error" and r["error_class"] == "refused" for r in results),
            "internal": sum(r["verdict"] == "error" and r["error_class"] == "internal" for r in results),
            "ratio_median": round(statistics.median(ratios), 3) if ratios else None,
            "ratio_geomean": round(math.exp(sum(map(math.log, ratios)) / len(ratios)), 3) if ratios else None}


def summary_line(s: dict) -> str:
    return (f"corpus: {s['programs']} programs, {s['same']} same, {s['fast_math']} same with fast math off "
            f"(Quadrants' fast-math rounding), {s['wrong']} wrong, {s['error']} error "
            f"({s['refused']} refused, {s['internal']} internal), {s['quadrants_failed']} quadrants_failed; "
            f"time ratio ours/quadrants median {s['ratio_median']}, geomean {s['ratio_geomean']}")


def table(results: list[dict]) -> str:
    def f(x):
        return "-" if x is None else f"{x:.2f}"
    rows = [("slug", "area", "verdict", "quadrants s", "ours s", "ratio", "error")]
    for r in results:
        verdict = r["verdict"] + (f"/{r['error_class']}" if r["verdict"] == "error" else "")
        rows.append((r["slug"], r["area"], verdict, f(r["quadrants_s"]), f(r["ours_s"]), f(r["ratio"]),
                     (r["error"] or "")[:120]))
    widths = [max(len(row[i]) for row in rows) for i in range(6)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row[:6], widths)) + "  " + row[6] for row in rows)


def run_all(progs: list[Program], jobs: int, timeout: float, determinism: bool = False, echo=print) -> list[dict]:
    results = []
    with cf.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futs = {pool.submit(run_program, p, timeout, determinism): p for p in progs}
        for fut in cf.as_completed(futs):
            r = fut.result()
            results.append(r)
            if echo:
                echo(f"[{len(results)}/{len(progs)}] {r['slug']}: {r['verdict']}"
                     + (f" ({r['error_class']}) {r['error'][:100]}" if r["verdict"] == "error" else
                        f" {r['error'][:100]}" if r["error"] else ""), flush=True)
    return sorted(results, key=lambda r: r["slug"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="+", metavar="SLUG", help="run only these programs")
    ap.add_argument("--sample", action="store_true", help=f"the CI sample ({SAMPLE.relative_to(ROOT)})")
    ap.add_argument("--determinism", action="store_true",
                    help="also run Quadrants a second time; list programs whose checksum lines differ")
    ap.add_argument("--json", metavar="FILE", help="write the results and the summary as JSON")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per side (default 120)")
    ap.add_argument("--programs", default=str(PROGRAMS), help="folder of ports (default: the corpus)")
    a = ap.parse_args(argv)
    progs = discover(Path(a.programs))
    wanted = list(a.only or []) + (read_sample() if a.sample else [])
    if wanted:
        by_slug = {p.slug: p for p in progs}
        unknown = [s for s in wanted if s not in by_slug]
        if unknown:
            print(f"corpus: unknown program(s): {' '.join(unknown)}", file=sys.stderr)
            return 2
        progs = [by_slug[s] for s in dict.fromkeys(wanted)]
    results = run_all(progs, a.jobs, a.timeout, a.determinism)
    print(table(results))
    s = summarize(results)
    if a.determinism:
        nondet = [r["slug"] for r in results if r.get("deterministic") is False]
        s["nondeterministic"] = nondet
        print(f"determinism: {len(nondet)} of {sum('deterministic' in r for r in results)} programs differ "
              f"between two Quadrants runs" + (f": {' '.join(nondet)}" if nondet else ""))
    print(summary_line(s))
    if a.json:
        Path(a.json).write_text(json.dumps({"summary": s, "summary_line": summary_line(s), "results": results},
                                           indent=1, sort_keys=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
