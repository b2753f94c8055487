"""A fuzzer of the command line (issue 41): every subcommand, found by walking the argparse parsers,
with a hostile value for one option at a time: numbers (nan, ±inf, -1, 0, 1e308, 2**64, 'abc', ''),
paths (a FIFO, /dev/zero, a symbolic link to a file outside, a folder of another user that anyone can
write, a 1 GB sparse file of zeros, a missing path) and text (empty, very long, control characters,
'..', an option-like '-x').

Each case runs `qdexplorer.cli.main` in a forked child of a process that has already imported the
CLI (a case that fails at parse time costs milliseconds, not an interpreter start), with HOME, the
XDG folders, TMPDIR and QDEXPLORER_DATA_DIR/CACHE_DIR/CONFIG_DIR inside a sandbox. A case is well when:
- it exits 0-3 (or, still running at its time limit, stops within STOP_S of SIGTERM with 143:
  a valid but huge request, such as a billion rounds, is not a failure if it can be stopped);
- its stderr holds no traceback;
- its peak memory (ru_maxrss of the child and what it waited for) stays under MAX_RSS_MB;
- nothing outside the sandbox changed: a guarded victim file, a folder outside, the bundled demo.
Used by tests/harden/test_fuzz_cli.py (a fixed seed and a time budget) and benchmarks/fuzz_cli.py.
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import signal
import stat
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

NUMBERS = ["nan", "inf", "-inf", "-1", "0", "1e308", str(2**64), "abc", ""]
TEXT = ["", "x" * 5000, "a\tb\x1bc", "..", "-x", "ümlaut-名前"]
PATHS = ["fifo", "dev_zero", "link", "other_users_folder", "sparse_1g", "missing"]
STOP_S = 3.0
MAX_RSS_MB = 3000
GUARDED = b"the victim's own bytes\n"
SKIP = {"gui", "install-desktop"}   # the window (Qt), and a command that writes into the user's menus by design
LIGHT = {"run": ["--workload", "saxpy_1m"], "bench": ["--workload", "saxpy_1m", "--rounds", "1", "--repeat", "1"],
         "sweep": ["--workload", "saxpy_1m", "--rounds", "1", "--repeat", "1", "--over", "block_dim=64"],
         "compare": ["now", "now", "--rounds", "1", "--repeat", "1"], "counters": ["--task", "saxpy_kernel_0_range_for"]}


@dataclass
class Case:
    cmd: str
    option: str                 # the option (or positional's name) under attack
    kind: str                   # number | path | text | choice
    value: str
    args: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    case: Case
    rc: int
    seconds: float
    rss_mb: float
    stderr: str
    problems: list[str]

    @property
    def well(self) -> bool:
        return not self.problems


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {name: p for name, p in sub.choices.items() if name not in SKIP}


def _kind(a: argparse.Action) -> str | None:
    from qdexplorer.cli.arg_types import Number
    if isinstance(a, (argparse._HelpAction, argparse._StoreTrueAction, argparse._StoreFalseAction,
                      argparse._StoreConstAction)):
        return None
    if isinstance(a.type, Number):
        return "number"
    if a.choices:
        return "choice"
    words = f"{a.dest} {a.metavar or ''} {a.help or ''}".lower()
    if any(w in words for w in ("dir", "file", "folder", "path", "project", "script", "out", ".png", "exe", "ncu")):
        return "path"
    return "text"


def cases(parser: argparse.ArgumentParser, sandbox: Path) -> list[Case]:
    out = []
    for name, p in subparsers(parser).items():
        for a in p._actions:
            kind = _kind(a)
            if kind is None:
                continue
            flag = a.option_strings[0] if a.option_strings else None
            values = {"number": NUMBERS, "text": TEXT, "choice": ["", "nope", "x" * 300],
                      "path": [str(hostile_path(sandbox, k)) for k in PATHS]}[kind]
            for v in values:
                out.append(Case(name, flag or a.dest, kind, v, _argv(name, p, a, v)))
    return out


def _argv(cmd: str, p: argparse.ArgumentParser, target: argparse.Action, value: str) -> list[str]:
    """CMD, what it requires (the hostile value where the attacked positional goes), the option."""
    argv = [cmd]
    positionals = [a for a in p._actions if not a.option_strings and a.nargs != argparse.SUPPRESS]
    for a in positionals:
        if a is target:
            argv.append(value)
        elif cmd in LIGHT and cmd == "compare" and a.dest in ("a", "b"):
            continue   # LIGHT gives them
        elif a.nargs in (None, 1) and a.dest not in ("project",):
            argv.append(next(iter(a.choices)) if a.choices else "x")
    extra = list(LIGHT.get(cmd, []))
    for a in p._actions:
        if a.option_strings and a.required and a is not target and a.option_strings[0] not in extra:
            extra += [a.option_strings[0], "x"]
    if target.option_strings:
        # drop a LIGHT option that is the one under attack
        for i in range(len(extra) - 1, -1, -1):
            if extra[i] in target.option_strings:
                del extra[i:i + 2]
        extra.append(f"{target.option_strings[0]}={value}")
    return argv + extra


def hostile_path(sandbox: Path, kind: str) -> Path:
    return sandbox / "hostile" / kind


def make_sandbox(root: Path) -> Path:
    """The sandbox: home, data, cache, config and temp folders; the hostile paths; a victim file and a
    folder outside the sandbox that no case may touch."""
    for d in ("home", "data", "cache", "config", "tmp", "hostile", "cwd"):
        (root / d).mkdir(parents=True, exist_ok=True)
    h = root / "hostile"
    os.mkfifo(h / "fifo")
    os.symlink("/dev/zero", h / "dev_zero")
    outside = root.parent / f"{root.name}-outside"
    outside.mkdir(exist_ok=True)
    (outside / "victim").write_bytes(GUARDED)
    os.symlink(outside / "victim", h / "link")
    other = h / "other_users_folder"
    other.mkdir()
    os.chmod(other, 0o777)
    if os.geteuid() == 0:
        os.chown(other, 65534, 65534)
    with open(h / "sparse_1g", "wb") as f:
        f.truncate(1 << 30)
    return outside


def snapshot(outside: Path) -> dict:
    from qdexplorer.project.loader import bundled_demo
    seen = {}
    for base in (outside, bundled_demo()):
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for n in filenames + dirnames:
                p = os.path.join(dirpath, n)
                st = os.lstat(p)
                seen[p] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return seen


def _child(case: Case, sandbox: Path, out: Path, err: Path) -> None:
    """In the forked child: the sandbox's environment, output to files, then the CLI."""
    os.setsid()
    env = {"HOME": "home", "XDG_DATA_HOME": "data", "XDG_CACHE_HOME": "cache", "XDG_CONFIG_HOME": "config",
           "QDEXPLORER_DATA_DIR": "data", "QDEXPLORER_CACHE_DIR": "cache", "QDEXPLORER_CONFIG_DIR": "config",
           "TMPDIR": "tmp"}
    for k, v in env.items():
        os.environ[k] = str(sandbox / v)
    import tempfile
    tempfile.tempdir = None
    os.chdir(sandbox / "cwd")
    fo, fe = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), os.open(err, os.O_WRONLY | os.O_CREAT |
                                                                                  os.O_TRUNC, 0o600)
    os.dup2(fo, 1)
    os.dup2(fe, 2)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    sys.stdout = os.fdopen(1, "w", buffering=1, errors="backslashreplace")
    sys.stderr = os.fdopen(2, "w", buffering=1, errors="backslashreplace")
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    rc = 70
    try:
        from qdexplorer.cli import main
        rc = main(case.args)
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:   # noqa: BLE001 - a traceback is what the fuzzer looks for
        import traceback
        traceback.print_exc()
        rc = 70
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc if isinstance(rc, int) and 0 <= rc < 256 else 71)


def run_case(case: Case, sandbox: Path, outside: Path, limit_s: float, before: dict | None = None) -> Outcome:
    before = snapshot(outside) if before is None else before
    out, err = sandbox / "stdout.txt", sandbox / "stderr.txt"
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:   # pragma: no cover - the child
        try:
            _child(case, sandbox, out, err)
        finally:
            os._exit(72)
    problems: list[str] = []
    status, usage, stopped = _wait(pid, t0 + limit_s)
    if status is None:   # still running at its limit: SIGTERM, and it must stop soon
        os.kill(pid, signal.SIGTERM)
        stopped = True
        status, usage, _ = _wait(pid, time.monotonic() + STOP_S)
        if status is None:
            problems.append(f"did not stop within {STOP_S:g} s of SIGTERM after {limit_s:g} s")
            _kill_group(pid)
            status, usage, _ = _wait(pid, time.monotonic() + 10)
    _kill_group(pid)   # anything it left in its session (a worker, a pool) goes too
    seconds = time.monotonic() - t0
    rc = os.waitstatus_to_exitcode(status) if status is not None else -9
    text = err.read_text(errors="replace") if err.exists() else ""
    allowed = {0, 1, 2, 3} | ({128 + signal.SIGTERM} if stopped else set())
    if rc not in allowed:
        problems.append(f"exit {rc}")
    if "Traceback (most recent call last)" in text:
        problems.append("a traceback")
    rss_mb = (usage.ru_maxrss / 1024) if usage is not None else 0.0
    if rss_mb > MAX_RSS_MB:
        problems.append(f"peak memory {rss_mb:.0f} MB")
    after = snapshot(outside)
    if after != before:
        changed = sorted(set(after.items()) ^ set(before.items()))
        problems.append(f"changed outside the sandbox: {changed[0][0]}")
    if (outside / "victim").read_bytes() != GUARDED:
        problems.append("wrote into the victim file through a link")
    return Outcome(case, rc, seconds, rss_mb, text[-2000:], problems)


def _wait(pid: int, deadline: float):
    while True:
        try:
            got, status, usage = os.wait4(pid, os.WNOHANG)
        except ChildProcessError:
            return 0, None, False
        if got == pid:
            return status, usage, False
        if time.monotonic() >= deadline:
            return None, None, False
        time.sleep(0.01)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def fuzz(root: Path, seed: int, budget_s: float, limit_s: float, only: set[str] | None = None,
         log=None) -> list[Outcome]:
    """Cases in an order fixed by `seed`, run one at a time until `budget_s` is spent."""
    from qdexplorer.cli import build_parser
    if root.exists():
        shutil.rmtree(root)
    outside = make_sandbox(root)
    todo = cases(build_parser(), root)
    if only:
        todo = [c for c in todo if c.cmd in only]
    rng = random.Random(seed)
    rng.shuffle(todo)
    # one case of each command first (the cheapest kind: a number is refused at parse time), then one of
    # each (command, kind), then the rest: a short budget still reaches every command
    cheap = {"number": 0, "choice": 1, "text": 2, "path": 3}
    phase1, phase2, rest, cmds, kinds = [], [], [], set(), set()
    for c in sorted(todo, key=lambda c: cheap[c.kind]):
        if c.cmd not in cmds:
            phase1.append(c)
        elif (c.cmd, c.kind) not in kinds:
            phase2.append(c)
        else:
            rest.append(c)
        cmds.add(c.cmd)
        kinds.add((c.cmd, c.kind))
    rest.sort(key=lambda c: todo.index(c))
    firsts = phase1 + phase2
    results = []
    start = time.monotonic()
    before = snapshot(outside)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for c in firsts + rest:
        if time.monotonic() - start > budget_s:
            break
        o = run_case(c, root, outside, limit_s, before)
        results.append(o)
        if log is not None:
            log(o)
        if not o.well:
            before = snapshot(outside)   # report each change once
        for d in ("tmp", "cwd"):
            shutil.rmtree(root / d, ignore_errors=True)
            (root / d).mkdir()
    _restore_hostile(root)
    return results


def _restore_hostile(root: Path) -> None:
    h = root / "hostile"
    for p in h.iterdir():
        if p.is_dir() and not p.is_symlink():
            try:
                os.chmod(p, stat.S_IRWXU)
            except OSError:
                pass


def describe(o: Outcome) -> str:
    return (f"{'WELL' if o.well else 'POOR'} {o.case.cmd} {o.case.option}={o.case.value[:40]!r} ({o.case.kind}): "
            f"exit {o.rc}, {o.seconds:.1f} s, {o.rss_mb:.0f} MB" + (f" -- {'; '.join(o.problems)}" if o.problems else ""))


def main(argv: list[str] | None = None) -> int:
    import json
    ap = argparse.ArgumentParser(description="fuzz the qdexplorer command line (issue 41)")
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--budget", type=float, default=25.0, help="seconds of cases in all")
    ap.add_argument("--limit", type=float, default=20.0, help="seconds a case may run before SIGTERM")
    ap.add_argument("--root", default=None, help="sandbox folder (default: a new temporary one)")
    ap.add_argument("--only", action="append", help="only this subcommand (repeatable)")
    ap.add_argument("--json", metavar="OUT", help="write every outcome here")
    ap.add_argument("--quiet", action="store_true", help="print only the poor cases and the summary")
    a = ap.parse_args(argv)
    import tempfile
    root = Path(a.root) if a.root else Path(tempfile.mkdtemp(prefix="qdx-fuzz-")) / "sandbox"
    t0 = time.monotonic()
    results = fuzz(root, a.seed, a.budget, a.limit, set(a.only) if a.only else None,
                   log=lambda o: (print(describe(o), flush=True) if not (a.quiet and o.well) else None))
    poor = [o for o in results if not o.well]
    cmds = sorted({o.case.cmd for o in results})
    print(f"fuzz: seed {a.seed}, {len(results)} cases over {len(cmds)} subcommands in {time.monotonic() - t0:.1f} s: "
          f"{len(results) - len(poor)} well, {len(poor)} poor; slowest {max((o.seconds for o in results), default=0):.1f} s, "
          f"peak memory {max((o.rss_mb for o in results), default=0):.0f} MB", flush=True)
    if a.json:
        Path(a.json).write_text(json.dumps([{"cmd": o.case.cmd, "option": o.case.option, "kind": o.case.kind,
                                              "value": o.case.value[:200], "rc": o.rc, "seconds": round(o.seconds, 2),
                                              "rss_mb": round(o.rss_mb), "problems": o.problems,
                                              "stderr_tail": o.stderr[-500:]} for o in results], indent=1))
    shutil.rmtree(root.parent if not a.root else root, ignore_errors=True)
    shutil.rmtree(Path(str(root) + "-outside"), ignore_errors=True)
    return 1 if poor else 0


if __name__ == "__main__":
    sys.exit(main())
