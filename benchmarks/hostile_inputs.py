"""Probe the CLI with hostile or broken inputs, as a careful user and an attacker would (issues 10, 21).

Each case builds a project (or a folder, a cache, a symlink) in a fresh temporary folder, runs the
real `qdexplorer` CLI in a subprocess, and judges the outcome. A case that behaves as it should is
`well`; one that fails is counted in the class its failure would mean, fixed in advance per case:
`poor` (a traceback, a hang, a misleading message or exit code), `corrupted` (a wrong result
reported as fine), `security` (a file outside where it belongs was written, read or deleted,
or code ran that should not have), or `orphan` (a process the command started outlived it;
benchmarks/hostile_round3.py says how that is checked).

    python benchmarks/hostile_inputs.py            # table + JSON summary on the last line
    python benchmarks/hostile_inputs.py -k arch    # only cases whose name contains "arch"
    python benchmarks/hostile_inputs.py --skip r3: # rounds 1 and 2 only
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEMO = ROOT / "qdexplorer" / "resources" / "demo"
TASK = "saxpy_kernel_0_range_for"

INC = textwrap.dedent("""\
    import numpy as np
    import qdexplorer.lang as qd

    @qd.kernel
    def inc(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1.0

    @qd.workload(inc, check=lambda b, a: np.testing.assert_allclose(a["x"], b["x"] + 1.0))
    def w(rng):
        return dict(x=np.zeros(16, np.float32))
    """)

COPY = textwrap.dedent("""\
    import numpy as np
    import qdexplorer.lang as qd

    @qd.kernel
    def copy(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            y[i] = x[i]

    @qd.kernel
    def scale(x: qd.types.ndarray(dtype=qd.f32, ndim=1), n: qd.i32):
        for i in range(n):
            x[i] = x[i] * 2.0

    @qd.workload(copy, check=lambda b, a: np.testing.assert_allclose(a["y"], b["x"]))
    def w(rng):
        return dict({args})
    """)

SPIN = textwrap.dedent("""\
    import numpy as np
    import qdexplorer.lang as qd

    @qd.kernel
    def spin(x: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(x.shape[0]):
            while x[i] >= 0:
                x[i] = x[i] + 0

    @qd.workload(spin)
    def hang(rng):
        return dict(x=np.zeros(4, np.int32))
    """)

NAMED = textwrap.dedent("""\
    import qdexplorer.lang as qd

    def k(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = 1.0
    k.__name__ = {name!r}
    k = qd.kernel(k)
    """)


def ptx_for(task):
    return f".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry {task}(\n)\n{{\nret;\n}}\n"


@dataclass
class Outcome:
    rc: int | None
    out: str
    err: str
    seconds: float

    @property
    def text(self):
        return self.out + self.err

    @property
    def clean(self):
        return "Traceback" not in self.text


class Ctx:
    """One case's sandbox: `base/` holds the project, a cache, and 'outside' files to guard."""

    def __init__(self, base: Path):
        self.base = base
        self.proj = base / "proj"
        self.cache = base / "cache"
        self.outside = base / "outside"
        self.outside.mkdir()
        self.env = {"QDEXPLORER_CACHE_DIR": str(self.cache), "QDEXPLORER_CONFIG_DIR": str(base / "config")}

    def project(self, files: dict | None = None, demo: bool = False, toml: str | None = None) -> Path:
        if demo:
            shutil.copytree(DEMO, self.proj)
        else:
            self.proj.mkdir(exist_ok=True)
        for name, text in (files or {}).items():
            p = self.proj / name
            p.write_bytes(text if isinstance(text, bytes) else text.encode())
        if toml is not None:
            (self.proj / "qdexplorer.toml").write_bytes(toml.encode() if isinstance(toml, str) else toml)
        return self.proj

    def cli(self, *args, env=None, timeout=180, as_user=None) -> Outcome:
        e = dict(os.environ, PYTHONPATH=str(ROOT), **self.env)
        e.update(env or {})
        cmd = [sys.executable, "-m", "qdexplorer.cli", *map(str, args)]
        if as_user is not None:
            cmd = ["setpriv", f"--reuid={as_user}", f"--regid={as_user}", "--clear-groups", *cmd]
            e["HOME"] = "/tmp"
        t0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=timeout, cwd=self.base)
            return Outcome(p.returncode, p.stdout, p.stderr, time.perf_counter() - t0)
        except subprocess.TimeoutExpired as x:
            return Outcome(None, _s(x.stdout), _s(x.stderr) + "\n[hung: killed after timeout]", timeout)


def _s(b):
    return b.decode(errors="replace") if isinstance(b, bytes) else (b or "")


CASES: list = []


def case(name, on_failure, issue_text=""):
    def deco(fn):
        CASES.append((name, on_failure, fn))
        return fn
    return deco


def bad_input(o: Outcome, *needles, rc=2) -> tuple[bool, str]:
    """One clear message: the exit code, no traceback, the expected words, at most 3 lines."""
    lines = [ln for ln in o.err.splitlines() if ln.strip() and "importing the Python files" not in ln
             and not ln.startswith(("usage:", " "))]  # argparse's usage block is not the message
    ok = o.rc == rc and o.clean and all(n.lower() in o.text.lower() for n in needles) and len(lines) <= 3
    return ok, (lines[-1] if lines else o.out.strip().splitlines()[-1] if o.out.strip() else f"rc={o.rc}")[:160]


def untouched(*paths_and_content):
    return all(Path(p).read_text() == c for p, c in paths_and_content)


# ---------------------------------------------------------------- paths built from input
@case("arch: --arch /some/dir writes nothing there", "security")
def _(c: Ctx):
    target = c.outside / "archdir"
    o = c.cli("compile", "--arch", target)
    ok, note = bad_input(o, "expected an SM architecture")
    return ok and not target.exists() and not list(c.cache.rglob("*archdir*")), note


@case("arch: --arch ../escape", "security")
def _(c: Ctx):
    o = c.cli("compile", "--arch", "../escape")
    return bad_input(o, "expected an SM architecture")[0] and not (c.base / "escape").exists(), o.err[-120:]


@case("arch: --arch sm_banana", "poor")
def _(c: Ctx):
    return bad_input(c.cli("compile", "--arch", "sm_banana"), "sm_banana")


@case("arch: toml arch = '/tmp/x'", "security")
def _(c: Ctx):
    c.project({"k.py": INC}, toml=f'[project]\narch = "{c.outside / "x"}"\n')
    o = c.cli("compile", c.proj)
    return bad_input(o, "arch must be")[0] and not (c.outside / "x").exists(), o.err[-120:]


for _name, _label in (("../ESC", "dotdot"), ("a\x00b", "NUL"), ("k" * 210, "long"), ("a/b", "slash")):
    def _mk(name=_name, label=_label):
        @case(f"names: kernel named {label} cannot dump outside the folder", "security")
        def _(c: Ctx):
            c.project({"k.py": NAMED.format(name=name)})
            dump = c.base / "dump" / "inner"
            o = c.cli("compile", c.proj, "--dump", dump)
            escaped = [p for p in c.base.rglob("*") if "ESC" in p.name or p.name.startswith("b_kernel")]
            return o.rc == 2 and o.clean and not escaped, o.err.strip().splitlines()[-1][:140] if o.err.strip() else ""
    _mk()


@case("names: override revert PROJ ../../victim deletes nothing outside", "security")
def _(c: Ctx):
    c.project(demo=True)
    for s in (".ptx", ".json"):
        (c.base / f"victim{s}").write_text("keep")
    (c.proj / ".qdexplorer" / "overrides").mkdir(parents=True)
    o = c.cli("override", "revert", c.proj, "../../victim")
    return bad_input(o, "not an identifier")[0] and (c.base / "victim.ptx").exists() and \
        (c.base / "victim.json").exists(), o.err.strip()[-120:]


@case("names: override set PROJ ../../victim FILE writes nothing outside", "security")
def _(c: Ctx):
    c.project(demo=True)
    f = c.base / "edit.ptx"
    f.write_text(ptx_for("victim"))
    o = c.cli("override", "set", c.proj, "../../victim", f)
    return o.rc == 2 and o.clean and not (c.base / "victim.ptx").exists(), o.err.strip()[-120:]


@case("names: override set PROJ a/b FILE", "security")
def _(c: Ctx):
    c.project(demo=True)
    f = c.base / "edit.ptx"
    f.write_text(ptx_for("b"))
    o = c.cli("override", "set", c.proj, "a/b", f)
    return o.rc == 2 and o.clean and not list(c.proj.rglob("b.ptx")), o.err.strip()[-120:]


@case("symlinks: a symlink in the dump folder is refused, its target untouched", "security")
def _(c: Ctx):
    victim = c.outside / "victim.txt"
    victim.write_text("precious")
    dump = c.base / "dump"
    dump.mkdir()
    os.symlink(victim, dump / f"{TASK}.ptx")
    o = c.cli("compile", "--dump", dump)
    ok, note = bad_input(o, "symbolic link")
    return ok and victim.read_text() == "precious", note


@case("symlinks: a symlinked override file is refused, never printed or loaded", "security")
def _(c: Ctx):
    c.project(demo=True)
    secret = c.outside / "secret.ptx"
    secret.write_text(ptx_for(TASK) + "// SECRET\n")
    (c.proj / ".qdexplorer" / "overrides").mkdir(parents=True)
    os.symlink(secret, c.proj / ".qdexplorer" / "overrides" / f"{TASK}.ptx")
    comp = c.cli("compile", c.proj, "--json")
    show = c.cli("show", c.proj, TASK)
    return comp.rc == 1 and "symbolic link" in comp.out and "SECRET" not in show.out and show.rc == 2, \
        show.err.strip()[-120:]


@case("symlinks: a symlinked override folder gets nothing written through it", "security")
def _(c: Ctx):
    c.project(demo=True)
    (c.proj / ".qdexplorer").mkdir()
    os.symlink(c.outside, c.proj / ".qdexplorer" / "overrides")
    c.cli("compile", c.proj)
    f = c.base / "edit.ptx"
    f.write_text(ptx_for(TASK))
    o = c.cli("override", "set", c.proj, TASK, f)
    return o.rc == 2 and o.clean and not list(c.outside.iterdir()), o.err.strip()[-120:]


@case("symlinks: a symlinked override folder: revert deletes nothing through it", "security")
def _(c: Ctx):
    c.project(demo=True)
    (c.proj / ".qdexplorer").mkdir()
    os.symlink(c.outside, c.proj / ".qdexplorer" / "overrides")
    (c.outside / f"{TASK}.ptx").write_text("keep")
    o = c.cli("override", "revert", c.proj, TASK)
    return o.rc == 2 and (c.outside / f"{TASK}.ptx").exists(), o.err.strip()[-120:]


@case("symlinks: --load-ptx folder entry that is a symlink is refused", "security")
def _(c: Ctx):
    load = c.base / "load"
    load.mkdir()
    secret = c.outside / "s.ptx"
    secret.write_text(ptx_for(TASK))
    os.symlink(secret, load / f"{TASK}.ptx")
    o = c.cli("compile", "--load-ptx", load, "--json")
    return o.rc == 1 and "symbolic link" in o.out, "refused" if "symbolic link" in o.out else o.err[-120:]


for _listed in ("../../../etc/passwd", "ABS", "../outside/evil.py"):
    def _mk(listed=_listed):
        @case(f"toml: files = [{listed!r}] stays inside the project", "security")
        def _(c: Ctx):
            (c.outside / "evil.py").write_text("open(__file__ + '.ran', 'w').write('ran')\n")
            name = str(c.outside / "evil.py") if listed == "ABS" else listed
            c.project({"k.py": INC}, toml=f'[project]\nfiles = ["k.py", "{name}"]\n')
            o = c.cli("compile", c.proj)
            ok, note = bad_input(o, "outside the project folder")
            return ok and not (c.outside / "evil.py.ran").exists(), note
    _mk()


@case("toml: files = [link.py] whose target is outside", "security")
def _(c: Ctx):
    (c.outside / "evil.py").write_text("open(__file__ + '.ran', 'w').write('ran')\n")
    c.project({"k.py": INC}, toml='[project]\nfiles = ["k.py", "link.py"]\n')
    os.symlink(c.outside / "evil.py", c.proj / "link.py")
    o = c.cli("compile", c.proj)
    ok, note = bad_input(o, "outside the project folder")
    return ok and not (c.outside / "evil.py.ran").exists(), note


# ---------------------------------------------------------------- caches
def _host_entries(c: Ctx):
    return sorted((c.cache / "host").rglob("*.o"))


@case("cache: a valid entry planted under another key is not executed", "security")
def _(c: Ctx):
    two = INC + textwrap.dedent("""\

        @qd.kernel
        def dec(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
            for i in range(x.shape[0]):
                x[i] = x[i] - 1.0

        @qd.workload(dec, check=lambda b, a: np.testing.assert_allclose(a["x"], b["x"] - 1.0))
        def w2(rng):
            return dict(x=np.zeros(16, np.float32))
        """)
    c.project({"k.py": two})
    c.cli("run", c.proj)
    a, b = _host_entries(c)
    shutil.copy(a, b)   # each task would now run the other's code
    o = c.cli("run", c.proj)
    return o.rc == 0 and o.out.count("PASSED") == 2, o.out.strip().splitlines()[-1][:120]


@case("cache: a folder others can write is not loaded from", "security")
def _(c: Ctx):
    c.project({"k.py": INC})
    c.cli("run", c.proj)
    c.cache.chmod(0o777)
    o = c.cli("run", c.proj, "--json")
    return o.rc == 0 and "writable by other users" in o.err, o.err.strip().splitlines()[-1][:140]


@case("cache: a symlinked entry is not followed", "security")
def _(c: Ctx):
    c.project({"k.py": INC})
    c.cli("run", c.proj)
    (e,) = _host_entries(c)
    other = c.outside / "x.o"
    shutil.move(e, other)
    os.symlink(other, e)
    o = c.cli("run", c.proj)
    return o.rc == 0 and "PASSED" in o.out and other.exists() and not e.is_symlink(), o.out.strip()[-80:]


@case("cache: a folder in an entry's place does not switch the disk tier off", "poor")
def _(c: Ctx):
    c.project({"k.py": INC})
    c.cli("run", c.proj)
    (e,) = _host_entries(c)
    e.unlink()
    e.mkdir()
    o = c.cli("run", c.proj)
    return o.rc == 0 and "memory-only" not in o.err, o.out.strip()[-80:]


@case("cache: --cache-dir that is a file degrades to memory with one warning", "poor")
def _(c: Ctx):
    f = c.base / "file"
    f.write_text("x")
    o = c.cli("compile", "--cache-dir", f / "sub")
    return o.rc == 0 and "memory-only" in o.err and o.clean, o.err.strip().splitlines()[-1][:120]


# ---------------------------------------------------------------- one-line errors
@case("input: missing project folder", "poor")
def _(c: Ctx):
    return bad_input(c.cli("compile", c.base / "nope"), "not found")


@case("input: empty folder", "poor")
def _(c: Ctx):
    c.project({})
    return bad_input(c.cli("compile", c.proj), "no @qd.kernel")


@case("input: syntax error", "poor")
def _(c: Ctx):
    c.project({"k.py": "def (:\n"})
    return bad_input(c.cli("compile", c.proj), "k.py:1", "syntax error")


@case("input: non-UTF-8 source without a coding line", "poor")
def _(c: Ctx):
    c.project({"k.py": ("# café\n" + INC).encode("latin-1")})
    return bad_input(c.cli("compile", c.proj), "k.py", "utf-8")


@case("input: latin-1 source with a coding line runs", "poor")
def _(c: Ctx):
    c.project({"k.py": ("# -*- coding: latin-1 -*-\n# café\n" + INC).encode("latin-1")})
    o = c.cli("run", c.proj)
    return o.rc == 0 and "PASSED" in o.out, o.out.strip()[-80:]


@case("input: binary garbage as k.py", "poor")
def _(c: Ctx):
    c.project({"k.py": b"\x7fELF\x02\x01\x01\x00garbage\x00\xff\xfe"})
    return bad_input(c.cli("compile", c.proj), "k.py")


@case("input: unknown coding cookie", "poor")
def _(c: Ctx):
    c.project({"k.py": "# coding: no-such-codec\n" + INC})
    return bad_input(c.cli("compile", c.proj), "k.py")


def _unreadable(c: Ctx, what):
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return True, "skipped: root without setpriv"
    user = 65534 if os.geteuid() == 0 else None
    for p in (c.base, c.base.parent):
        p.chmod(0o755)
    c.project({"k.py": INC})
    c.cache.mkdir()
    if user is not None:
        os.chown(c.cache, user, user)
    if what == "file":
        (c.proj / "k.py").chmod(0)
        needle = "cannot read"
    else:
        c.proj.chmod(0o311)
        needle = "cannot read project folder"
    o = c.cli("compile", c.proj, as_user=user)
    c.proj.chmod(0o755)
    (c.proj / "k.py").chmod(0o644)
    return bad_input(o, needle)


@case("input: unreadable kernel file", "poor")
def _(c: Ctx):
    return _unreadable(c, "file")


@case("input: unreadable project folder", "poor")
def _(c: Ctx):
    return _unreadable(c, "folder")


@case("input: invalid TOML", "poor")
def _(c: Ctx):
    c.project({"k.py": INC}, toml="[project\nname=")
    return bad_input(c.cli("compile", c.proj), "qdexplorer.toml", "invalid TOML")


for _key, _val in (("cache_dir", "7"), ("files", "[1]"), ("files", '"k.py"'), ("offline_cache", '"no"'),
                   ("block_dim", '"big"'), ("block_dim", "-1"), ("arch", '"sm_banana"'), ("backend", '"tpu"'),
                   ("name", "3"), ("bogus", "1")):
    def _mk(key=_key, val=_val):
        @case(f"toml: {key} = {val}", "poor")
        def _(c: Ctx):
            c.project({"k.py": INC}, toml=f"[project]\n{key} = {val}\n")
            return bad_input(c.cli("compile", c.proj), "qdexplorer.toml", key)
    _mk()


@case("toml: non-UTF-8 qdexplorer.toml", "poor")
def _(c: Ctx):
    c.project({"k.py": INC}, toml=b'[project]\nname = "caf\xe9"\n')
    return bad_input(c.cli("compile", c.proj), "qdexplorer.toml", "UTF-8")


@case("import: an endless loop at top level is interrupted", "poor")
def _(c: Ctx):
    c.project({"k.py": INC + "\nwhile True:\n    pass\n"})
    return bad_input(c.cli("compile", c.proj, env={"QDEXPLORER_IMPORT_TIMEOUT": "2"}, timeout=60),
                     "did not finish within 2 s")


@case("import: an exception at top level names the line", "poor")
def _(c: Ctx):
    c.project({"k.py": INC + "\nraise ValueError('boom')\n"})
    return bad_input(c.cli("compile", c.proj), "k.py:13", "boom")


@case("import: exit() at top level", "poor")
def _(c: Ctx):
    c.project({"k.py": INC + "\nimport sys\nsys.exit(3)\n"})
    return bad_input(c.cli("compile", c.proj), "k.py", "exit")


@case("import: the CLI says it imports the project's Python", "security")
def _(c: Ctx):
    c.project({"k.py": INC})
    o = c.cli("compile", c.proj)
    return o.rc == 0 and "importing the Python files of" in o.err, o.err.strip().splitlines()[0][:120]


@case("import: show never imports the project", "security")
def _(c: Ctx):
    c.project({"k.py": INC})
    c.cli("compile", c.proj)
    (c.proj / "k.py").write_text(INC + "\nopen(__file__ + '.ran', 'w').write('ran')\n")
    o = c.cli("show", c.proj, "inc_kernel_0_range_for")
    return o.rc == 0 and ".entry" in o.out and not (c.proj / "k.py.ran").exists(), o.out.strip()[:60]


@case("import: override list/revert never import the project", "security")
def _(c: Ctx):
    c.project({"k.py": INC + "\nopen(__file__ + '.ran', 'w').write('ran')\n"})
    a = c.cli("override", "list", c.proj)
    b = c.cli("override", "revert", c.proj, "inc_kernel_0_range_for")
    return a.rc == 0 and b.rc == 0 and not (c.proj / "k.py.ran").exists(), b.out.strip()[:80]


@case("flags: --dump path that is a file", "poor")
def _(c: Ctx):
    f = c.base / "f"
    f.write_text("x")
    return bad_input(c.cli("compile", "--dump", f), "not a folder")


@case("flags: --dump into an unwritable place", "poor")
def _(c: Ctx):
    return bad_input(c.cli("compile", "--dump", "/proc/qdx-dump"), "/proc/qdx-dump")


for _t in ("0", "-1", "nan", "inf"):
    def _mk(t=_t):
        @case(f"flags: --timeout {t}", "poor")
        def _(c: Ctx):
            return bad_input(c.cli("run", "--timeout", t), "greater than 0")
    _mk()


@case("flags: --repeat 0", "poor")
def _(c: Ctx):
    return bad_input(c.cli("run", "--repeat", "0"), "repeat")


@case("flags: --workload unknown", "poor")
def _(c: Ctx):
    return bad_input(c.cli("run", "--workload", "nope"), "no workload named")


@case("show: unknown task", "poor")
def _(c: Ctx):
    return bad_input(c.cli("show", "no_such_task"), "no task named")


@case("show: before any compile says what to do", "poor")
def _(c: Ctx):
    c.project({"k.py": INC})
    return bad_input(c.cli("show", c.proj, "inc_kernel_0_range_for"), "qdexplorer compile")


@case("show: non-ASCII source on an ASCII console", "poor")
def _(c: Ctx):
    c.project({"k.py": ("# -*- coding: latin-1 -*-\n" + INC.replace("x[i] = x[i] + 1.0", "x[i] = x[i] + 1.0  # é")).encode("latin-1")})
    c.cli("compile", c.proj)
    o = c.cli("show", c.proj, "inc_kernel_0_range_for", "--what", "source", env={"PYTHONIOENCODING": "ascii"})
    return o.rc == 0 and o.clean and "x[i] + 1.0" in o.out, (o.out.strip() or o.err.strip())[-100:]


# ---------------------------------------------------------------- overrides and load folders
def _set(c: Ctx, content: bytes, needle: str):
    c.project(demo=True)
    c.cli("compile", c.proj)
    f = c.base / "edit.ptx"
    f.write_bytes(content)
    o = c.cli("override", "set", c.proj, TASK, f)
    ok, note = bad_input(o, needle)
    return ok and not (c.proj / ".qdexplorer" / "overrides" / f"{TASK}.ptx").exists(), note


@case("override: a text file that is not PTX is refused", "poor")
def _(c: Ctx):
    return _set(c, b"hello\n", "does not look like PTX")


@case("override: a binary file is refused", "poor")
def _(c: Ctx):
    return _set(c, b"\x7fELF\x00\xff\xfe\x00", "not UTF-8")


@case("override: another task's PTX is refused", "corrupted")
def _(c: Ctx):
    return _set(c, ptx_for("copy_kernel_0_range_for").encode(), f".entry {TASK}(")


@case("override: a non-PTX file placed by hand is refused at compile", "corrupted")
def _(c: Ctx):
    c.project(demo=True)
    (c.proj / ".qdexplorer" / "overrides").mkdir(parents=True)
    (c.proj / ".qdexplorer" / "overrides" / f"{TASK}.ptx").write_text("garbage\n")
    o = c.cli("compile", c.proj, "--json")
    row = {t["task"]: t for t in json.loads(o.out)["tasks"]}[TASK] if o.out.startswith("{") else {}
    return row.get("override") == "refused" and o.rc == 1, str(row.get("error", o.err))[:120]


@case("override: set with a missing file", "poor")
def _(c: Ctx):
    c.project(demo=True)
    return bad_input(c.cli("override", "set", c.proj, TASK, c.base / "nope.ptx"), "existing")


@case("override: set without a task", "poor")
def _(c: Ctx):
    c.project(demo=True)
    return bad_input(c.cli("override", "set", c.proj), "TASK")


@case("override: on a single-file project", "poor")
def _(c: Ctx):
    f = c.base / "one.py"   # a single file's overrides live in its folder's .qdexplorer, as a project's do
    f.write_text(INC)
    o = c.cli("override", "list", f)
    return o.rc == 0 and "no overrides for" in o.out and "Traceback" not in o.err, o.out + o.err


@case("override: an orphaned override is reported", "poor")
def _(c: Ctx):
    c.project(demo=True)
    c.cli("compile", c.proj)
    ptx = c.cli("show", c.proj, TASK).out
    f = c.base / "e.ptx"
    f.write_text(ptx + "// edit\n")
    c.cli("override", "set", c.proj, TASK, f)
    s = (c.proj / "saxpy.py").read_text().replace("def saxpy(", "def saxpy2(").replace("(saxpy,", "(saxpy2,")
    (c.proj / "saxpy.py").write_text(s)
    c.cli("compile", c.proj)
    o = c.cli("override", "list", c.proj)
    return f"{TASK}  orphaned" in o.out, o.out.strip()[:100]


@case("override: a missing sidecar makes the state unknown", "poor")
def _(c: Ctx):
    c.project(demo=True)
    c.cli("compile", c.proj)
    f = c.base / "e.ptx"
    f.write_text(c.cli("show", c.proj, TASK).out + "// edit\n")
    c.cli("override", "set", c.proj, TASK, f)
    (c.proj / ".qdexplorer" / "overrides" / f"{TASK}.json").unlink()
    o = c.cli("compile", c.proj, "--json")
    return {t["task"]: t["override"] for t in json.loads(o.out)["tasks"]}.get(TASK) == "unknown", "unknown"


@case("load-ptx: a missing folder", "poor")
def _(c: Ctx):
    return bad_input(c.cli("compile", "--load-ptx", c.base / "nope"), "does not exist")


@case("load-ptx: a folder matching no task says so", "poor")
def _(c: Ctx):
    d = c.base / "load"
    d.mkdir()
    (d / "other.ptx").write_text(ptx_for("other"))
    o = c.cli("compile", "--load-ptx", d)
    return o.rc == 0 and "matches a task" in o.err, o.err.strip().splitlines()[-1][:120]


@case("load-ptx: a non-PTX file named like a task is refused", "corrupted")
def _(c: Ctx):
    d = c.base / "load"
    d.mkdir()
    (d / f"{TASK}.ptx").write_text("not ptx")
    o = c.cli("compile", "--load-ptx", d, "--json")
    return o.rc == 1 and "refused" in o.out, "refused" if "refused" in o.out else o.err[-100:]


# ---------------------------------------------------------------- wrong results
def _copy(c: Ctx, args: str, needle: str):
    c.project({"k.py": COPY.format(args=args)})
    o = c.cli("run", c.proj)
    ok = o.rc == 1 and "PASSED" not in o.out and needle.lower() in o.text.lower() and o.clean
    return ok, next((ln.strip() for ln in o.out.splitlines() if "error" in ln), o.err.strip()[-120:])[:160]


@case("args: a float64 array for an f32 kernel", "corrupted")
def _(c: Ctx):
    return _copy(c, "x=np.full(8, 2.0), y=np.zeros(8, np.float32)", "float64")


@case("args: an int8 array", "poor")
def _(c: Ctx):
    return _copy(c, "x=np.ones(8, np.int8), y=np.zeros(8, np.float32)", "int8")


@case("args: an output shorter than the loop range", "corrupted")
def _(c: Ctx):
    return _copy(c, "x=np.ones(1 << 20, np.float32), y=np.zeros(16, np.float32)", "'y' has shape")


@case("args: a non-contiguous input", "corrupted")
def _(c: Ctx):
    return _copy(c, "x=np.ones(32, np.float32)[::2], y=np.zeros(16, np.float32)", "contiguous")


@case("args: a list instead of an array", "poor")
def _(c: Ctx):
    return _copy(c, "x=[1.0, 2.0], y=np.zeros(2, np.float32)", "'x'")


def _scale(c: Ctx, n, needle):
    src = COPY.format(args="x=np.ones(4, np.float32), y=np.zeros(4, np.float32)") + textwrap.dedent(f"""\

        @qd.workload(scale)
        def s(rng):
            return dict(x=np.ones(8, np.float32), n={n})
        """)
    c.project({"k.py": src})
    o = c.cli("run", c.proj, "--workload", "s")
    return o.rc == 1 and needle in o.out and o.clean, next((ln.strip() for ln in o.out.splitlines() if "error" in ln), o.err[-100:])[:160]


@case("args: a float for a used qd.i32", "poor")
def _(c: Ctx):
    return _scale(c, "2.5", "'n'")


@case("args: a scalar range longer than the array", "corrupted")
def _(c: Ctx):
    return _scale(c, "1000", "'x' has shape")


@case("args: a scalar outside i32", "corrupted")
def _(c: Ctx):
    return _scale(c, "2**40", "does not fit")


def _trips(c: Ctx, loop):
    src = textwrap.dedent(f"""\
        import numpy as np
        import qdexplorer.lang as qd

        @qd.kernel
        def big(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
            {loop}
                x[0] = 1.0

        @qd.workload(big)
        def w(rng):
            return dict(x=np.zeros(8, np.float32))
        """)
    c.project({"k.py": src})
    o = c.cli("run", c.proj, timeout=120)
    return o.rc == 1 and "32-bit loop index" in o.out and o.clean, \
        next((ln.strip() for ln in o.out.splitlines() if "error" in ln), o.err[-100:])[:160]


@case("trips: range(2**32 + 5) is refused, never 5 iterations", "corrupted")
def _(c: Ctx):
    return _trips(c, "for i in range(2**32 + 5):")


@case("trips: qd.ndrange(70000, 70000) is refused, never wrapped", "corrupted")
def _(c: Ctx):
    return _trips(c, "for i, j in qd.ndrange(70000, 70000):")


@case("run: a workload that raises while building inputs", "poor")
def _(c: Ctx):
    c.project({"k.py": INC.replace("return dict(x=np.zeros(16, np.float32))", "raise RuntimeError('no data')")})
    o = c.cli("run", c.proj)
    return o.rc == 1 and "no data" in o.out and o.clean, o.out.strip().splitlines()[-1][:100]


@case("run: a check that raises", "poor")
def _(c: Ctx):
    c.project({"k.py": INC.replace("np.testing.assert_allclose(a[\"x\"], b[\"x\"] + 1.0)", "1 / 0")})
    o = c.cli("run", c.proj)
    return o.rc == 1 and "ZeroDivisionError" in o.out and o.clean, o.out.strip().splitlines()[-1][:100]


@case("run: a workload returning the wrong type", "poor")
def _(c: Ctx):
    c.project({"k.py": INC.replace("return dict(x=np.zeros(16, np.float32))", "return 42")})
    o = c.cli("run", c.proj)
    return o.rc == 1 and "dict or tuple" in o.out and o.clean, o.out.strip().splitlines()[-1][:100]


@case("run: an unsupported construct names file:line", "poor")
def _(c: Ctx):
    c.project({"k.py": INC.replace("x[i] = x[i] + 1.0", "x[i] = [1 for _ in x]")})
    return bad_input(c.cli("compile", c.proj), "k.py:7")


@case("run: cuda backend without a GPU is one message", "poor")
def _(c: Ctx):
    from qdexplorer.runtime.cuda.detect import cuda_status
    if cuda_status().available:
        return True, "skipped: a GPU is present"
    return bad_input(c.cli("run", "--backend", "cuda"), "cuda")


# ---------------------------------------------------------------- processes and signals
@case("proc: a hanging launch times out per launch with a clear message", "poor")
def _(c: Ctx):
    c.project({"k.py": SPIN})
    o = c.cli("run", c.proj, "--timeout", "3", timeout=120)
    return o.rc == 1 and "timed out" in o.out and o.clean, next((ln.strip() for ln in o.out.splitlines() if "error" in ln), "")[:140]


@case("proc: a segfaulting task names the signal", "poor")
def _(c: Ctx):
    src = INC.replace("x[i] = x[i] + 1.0", "if i >= 0:\n                x[i * 100000000] = 1.0")
    c.project({"k.py": src})
    o = c.cli("run", c.proj, timeout=120)
    return o.rc == 1 and "SIGSEGV" in o.out and "exit code None" not in o.out, \
        next((ln.strip() for ln in o.out.splitlines() if "error" in ln), o.err[-100:])[:140]


def _children(pid):
    out = set()
    for t in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out |= {int(x) for x in (t / "children").read_text().split()}
        except OSError:
            pass
    return out


def _alive(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _signal_run(c: Ctx, sig):
    if not Path("/proc/self/task").is_dir():
        return True, "skipped: no /proc"
    c.project({"k.py": SPIN})
    e = dict(os.environ, PYTHONPATH=str(ROOT), **c.env)
    p = subprocess.Popen([sys.executable, "-m", "qdexplorer.cli", "run", str(c.proj), "--timeout", "600"],
                         env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    kids = set()
    try:
        end = time.monotonic() + 120
        while time.monotonic() < end and not any(b"spawn_main" in _cmd(k) for k in _children(p.pid)):
            time.sleep(0.1)
        time.sleep(3)
        kids = _children(p.pid)
        p.send_signal(sig)
        p.wait(30)
        end = time.monotonic() + 10
        while time.monotonic() < end and any(_alive(k) for k in kids):
            time.sleep(0.1)
        left = [k for k in kids if _alive(k)]
        ok = not left and (sig == signal.SIGKILL or p.returncode == 128 + sig)
        return ok, f"exit {p.returncode}, {len(left)} helper(s) left"
    finally:
        p.kill()
        for k in kids:
            if _alive(k):
                os.kill(k, signal.SIGKILL)


def _cmd(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


@case("proc: SIGTERM during a run exits and leaves no device worker", "poor")
def _(c: Ctx):
    return _signal_run(c, signal.SIGTERM)


@case("proc: SIGKILL during a run leaves no spinning device worker", "poor")
def _(c: Ctx):
    return _signal_run(c, signal.SIGKILL)


# ================================================================ round two (issue 21)
def _interruptible():
    """Ctrl-C as a terminal sends it: a probe run under nohup or `&` inherits SIGINT ignored, and so
    would the CLI it starts (Python installs no KeyboardInterrupt handler for an ignored SIGINT)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _py(c: Ctx, code: str, *args, env=None, timeout=180, preexec=None, stdin=None) -> Outcome:
    """Run a Python script (a user's script, not the CLI) in the sandbox."""
    e = dict(os.environ, PYTHONPATH=str(ROOT), **c.env)
    e.update(env or {})
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, env=e,
                           timeout=timeout, cwd=c.base, preexec_fn=preexec, stdin=stdin)
        return Outcome(p.returncode, p.stdout, p.stderr, time.perf_counter() - t0)
    except subprocess.TimeoutExpired as x:
        return Outcome(None, _s(x.stdout), _s(x.stderr) + "\n[hung: killed after timeout]", timeout)


def _workload_error(o: Outcome) -> str:
    return next((ln.strip() for ln in o.out.splitlines() if "error" in ln or "FAILED" in ln), o.err.strip()[-140:])[:160]


WIDE = textwrap.dedent("""\
    import numpy as np
    import qdexplorer.lang as qd

    @qd.kernel
    def count(x: qd.types.ndarray(dtype=qd.i64, ndim=1), n: qd.i64):
        for i in range(n):
            qd.atomic_add(x[0], 1)

    @qd.kernel
    def index(x: qd.types.ndarray(dtype=qd.i64, ndim=1), lo: qd.i64):
        for i in range(lo, lo + 10):
            x[i - lo] = i

    @qd.workload(count)  # no check: a wrapped count would PASS
    def wcount(rng):
        return dict(x=np.zeros(1, np.int64), n={n})

    @qd.workload(index, check=lambda b, a: np.testing.assert_array_equal(a["x"], np.arange(2**32, 2**32 + 10)))
    def windex(rng):
        return dict(x=np.zeros(10, np.int64), lo=2**32)
    """)

for _n in ("2**32 + 5", "2**31 + 9", "2**40"):
    def _mk(n=_n):
        @case(f"trips: an i64 n = {n} is refused with the count, never wrapped", "corrupted")
        def _(c: Ctx):
            c.project({"k.py": WIDE.format(n=n)})
            o = c.cli("run", c.proj, "--workload", "wcount", timeout=120)
            return o.rc == 1 and f"{eval(n)} iterations" in o.out and "PASSED" not in o.out and o.clean, \
                _workload_error(o)
    _mk()


@case("trips: range(2**32, 2**32 + 10) runs the indices 2**32..2**32+9", "corrupted")
def _(c: Ctx):
    c.project({"k.py": WIDE.format(n=1)})
    o = c.cli("run", c.proj, "--workload", "windex")
    return o.rc == 0 and "PASSED" in o.out, _workload_error(o)


NARROW = textwrap.dedent("""\
    import numpy as np
    import qdexplorer.lang as qd

    @qd.kernel
    def put(x: qd.types.ndarray(dtype=qd.{dt}, ndim=1), v: qd.{dt}):
        for i in range(x.shape[0]):
            x[i] = v

    @qd.workload(put, check=lambda b, a: np.testing.assert_array_equal(a["x"], [{v}] * 4))
    def w(rng):
        return dict(x=np.zeros(4, np.{np}), v={v})
    """)

for _dt, _np, _v in (("i8", "int8", "300"), ("i16", "int16", "70000"), ("u8", "uint8", "-1"), ("u64", "uint64", "-1")):
    def _mk(dt=_dt, npt=_np, v=_v):
        @case(f"args: {dt} {v} is refused, never wrapped", "corrupted")
        def _(c: Ctx):
            c.project({"k.py": NARROW.format(dt=dt, np=npt, v=v)})
            o = c.cli("run", c.proj)
            return o.rc == 1 and f"does not fit in {dt}" in o.out and o.clean, _workload_error(o)
    _mk()


FROZEN_SCRIPT = textwrap.dedent("""\
    import numpy as np
    import qdexplorer.lang as qd
    qd.init(arch=qd.cpu)

    @qd.kernel
    def fill(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = 7.0

    raw = bytes(16)
    x = {make}
    try:
        fill(x)
    except TypeError as e:
        print("refused:", e)
    print("intact" if raw == bytes(16) and not np.asarray(x).any() else "WRITTEN")
    """)

for _label, _make in (("writeable=False", "np.zeros(4, np.float32); x.flags.writeable = False"),
                      ("np.frombuffer(bytes)", "np.frombuffer(raw, np.float32)")):
    def _mk(label=_label, make=_make):
        @case(f"readonly: a script's {label} array is refused, never written", "corrupted")
        def _(c: Ctx):
            script = c.base / "script.py"  # kernels need their source: a real file, as a user's script is
            script.write_text(FROZEN_SCRIPT.replace("x = {make}", "x = " + make.replace("; x.", "\nx.")))
            o = _py(c, "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')", script)
            return "intact" in o.out and "'x' is read-only" in o.out and o.clean, (o.out + o.err).strip()[-140:]
    _mk()


@case("readonly: a read-only array in a workload is one message", "poor")
def _(c: Ctx):
    src = INC.replace("return dict(x=np.zeros(16, np.float32))",
                      "x = np.zeros(16, np.float32)\n    x.flags.writeable = False\n    return dict(x=x)")
    c.project({"k.py": src})
    o = c.cli("run", c.proj)
    return o.rc == 1 and "'x' is read-only" in o.out and o.clean, _workload_error(o)


@case("names: two files defining a kernel of one name are refused, never merged", "corrupted")
def _(c: Ctx):
    other = INC.replace("x[i] + 1.0", "x[i] + 2.0").replace("b[\"x\"] + 1.0", "b[\"x\"] + 2.0").replace("def w(", "def w2(")
    c.project({"a.py": INC, "b.py": other})
    o = c.cli("run", c.proj)
    return bad_input(o, "defined twice", "a.py", "b.py")


# ---------------------------------------------------------------- history paths
def _history_of(c: Ctx) -> Path:
    return c.proj / ".qdexplorer" / "history.sqlite"


@case("history: a symlinked history.sqlite is refused, its target never created", "security")
def _(c: Ctx):
    c.project({"k.py": INC})
    (c.proj / ".qdexplorer").mkdir()
    target = c.outside / "made.sqlite"
    os.symlink(target, _history_of(c))
    o = c.cli("bench", c.proj, "--save", "x", "--repeat", "2")
    return o.rc == 2 and "symbolic link" in o.err and not target.exists() and o.clean, o.err.strip()[-140:]


@case("history: a link to another SQLite file gets no tables", "security")
def _(c: Ctx):
    import sqlite3
    c.project({"k.py": INC})
    (c.proj / ".qdexplorer").mkdir()
    other = c.outside / "app.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE mine (x)")
    con.commit()
    con.close()
    before = other.read_bytes()
    os.symlink(other, _history_of(c))
    o = c.cli("bench", c.proj, "--save", "x", "--repeat", "2")
    return o.rc == 2 and other.read_bytes() == before, o.err.strip()[-140:]


@case("history: a symlinked .qdexplorer folder is refused for the history", "security")
def _(c: Ctx):
    c.project({"k.py": INC})
    os.symlink(c.outside, c.proj / ".qdexplorer")
    o = c.cli("bench", c.proj, "--save", "x", "--repeat", "2")
    return o.rc == 2 and "symbolic link" in o.err and not list(c.outside.iterdir()), o.err.strip()[-140:]


# ---------------------------------------------------------------- load folders
def _dumped(c: Ctx, mode=0o700):
    c.project({"k.py": INC})
    d = c.base / "ir"
    c.cli("compile", c.proj, "--target", "host", "--dump", d)
    f = d / "inc_kernel_0_range_for_before_ptx.ll"
    f.write_bytes(f.read_bytes().replace(b"0x3ff0000000000000", b"0x4000000000000000"))  # + 2.0: a planted edit
    d.chmod(mode)
    return d, f


@case("load-ir: a QD_LOAD_IR folder others can write is refused, nothing loaded", "security")
def _(c: Ctx):
    d, _ = _dumped(c, 0o777)
    o = c.cli("run", c.proj, env={"QD_LOAD_IR": "1", "QD_DEBUG_DUMP_PATH": str(d)})
    return bad_input(o, "writable by other users")


@case("load-ir: a planted file of another user is refused, never run", "security")
def _(c: Ctx):
    if os.geteuid() != 0:
        return True, "skipped: chown needs root"
    d, f = _dumped(c)
    os.chown(f, 65534, 65534)
    o = c.cli("run", c.proj, env={"QD_LOAD_IR": "1", "QD_DEBUG_DUMP_PATH": str(d)})
    return o.rc == 1 and "belongs to another user" in o.out and "PASSED" not in o.out and o.clean, _workload_error(o)


@case("load-ir: run says on stderr which task runs loaded IR", "security")
def _(c: Ctx):
    d, f = _dumped(c)
    o = c.cli("run", c.proj, env={"QD_LOAD_IR": "1", "QD_DEBUG_DUMP_PATH": str(d)})
    lines = [ln for ln in o.err.splitlines() if "in place of the generated" in ln]
    return len(lines) == 1 and "inc_kernel_0_range_for" in lines[0] and str(f) in lines[0], (lines or [o.err[-120:]])[0][:150]


@case("load-ir: a script says on stderr which task runs loaded IR", "security")
def _(c: Ctx):
    d, f = _dumped(c)
    code = ("import numpy as np\nimport qdexplorer.lang as qd\nqd.init(arch=qd.cpu)\n"
            "import importlib.util, sys\nspec = importlib.util.spec_from_file_location('k', sys.argv[1])\n"
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
            "x = np.zeros(16, np.float32); m.inc(x); print(x[0])\n")
    o = _py(c, code, c.proj / "k.py", env={"QD_LOAD_IR": "1", "QD_DEBUG_DUMP_PATH": str(d)})
    return "2.0" in o.out and "in place of the generated LLVM IR" in o.err, (o.err.strip() or o.out.strip())[-140:]


@case("load-ir: the default folder is the user's, not /tmp/ir", "security")
def _(c: Ctx):
    c.project({"k.py": INC})
    o = c.cli("run", c.proj, env={"QD_LOAD_IR": "1", "XDG_CACHE_HOME": str(c.base / "xdg")})
    return bad_input(o, str(c.base / "xdg" / "qdexplorer" / "ir"), "does not exist")


# ---------------------------------------------------------------- quadrants processes
def _have_quadrants():
    import importlib.util
    return importlib.util.find_spec("quadrants") is not None


QPROG = textwrap.dedent("""\
    import subprocess, sys, time
    import quadrants as qd
    qd.init(arch=qd.cpu)
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]{redirect})
    open(sys.argv[1], "w").write(str(helper.pid))
    print("started", flush=True)
    {tail}
    """)


def _qprog(c: Ctx, redirect=", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL", tail=""):
    c.proj.mkdir()
    p = c.proj / "prog.py"
    p.write_text(QPROG.format(redirect=redirect, tail=tail))
    return p, c.base / "helper.pid"


def _reap(pidfile: Path) -> bool:
    """Whether the helper is gone (killed here if not, so no probe leaves one behind)."""
    try:
        pid = int(pidfile.read_text())
    except (OSError, ValueError):
        return True
    end = time.monotonic() + 10
    while time.monotonic() < end:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    return False


for _sig in (signal.SIGTERM, signal.SIGINT):
    def _mk(sig=_sig):
        @case(f"quadrants: {sig.name} kills the program's process group, leaves no files", "poor")
        def _(c: Ctx):
            if not _have_quadrants():
                return True, "skipped: Quadrants not installed"
            prog, pidfile = _qprog(c, tail="time.sleep(600)")
            tmp = c.base / "tmp"
            tmp.mkdir()
            e = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp), **c.env)
            p = subprocess.Popen([sys.executable, "-m", "qdexplorer.cli", "quadrants", str(prog), "--dump",
                                  str(c.base / "dump"), "--", str(pidfile)], env=e, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, preexec_fn=_interruptible)
            end = time.monotonic() + 90
            while time.monotonic() < end and not (pidfile.exists() and pidfile.read_text()):
                time.sleep(0.1)
            p.send_signal(sig)
            try:
                p.wait(30)
            finally:
                p.kill()
            gone = _reap(pidfile)
            time.sleep(1)
            left = list(tmp.iterdir())
            return gone and not left and p.returncode == 128 + sig, f"helper gone: {gone}, left: {[x.name for x in left]}"
    _mk()


@case("quadrants: background children of a finished program are ended", "poor")
def _(c: Ctx):
    if not _have_quadrants():
        return True, "skipped: Quadrants not installed"
    prog, pidfile = _qprog(c)
    o = c.cli("quadrants", prog, "--", pidfile, timeout=300)
    return o.rc == 0 and _reap(pidfile) and "background processes" in o.err, o.err.strip()[-140:]


@case("quadrants: a child holding stdout does not turn a finished program into a timeout", "poor")
def _(c: Ctx):
    if not _have_quadrants():
        return True, "skipped: Quadrants not installed"
    prog, pidfile = _qprog(c, redirect="")
    o = c.cli("quadrants", prog, "--timeout", "60", "--", pidfile, timeout=300)
    _reap(pidfile)
    return o.rc == 0 and "timed out" not in o.err and o.seconds < 45, f"rc {o.rc} in {o.seconds:.0f} s"


@case("quadrants: output past 4 MiB says it was truncated and where the whole is", "poor")
def _(c: Ctx):
    if not _have_quadrants():
        return True, "skipped: Quadrants not installed"
    c.proj.mkdir()
    prog = c.proj / "loud.py"
    prog.write_text("import sys\nimport quadrants as qd\nqd.init(arch=qd.cpu)\n"
                    "sys.stdout.write('x' * (6 << 20))\n")
    o = c.cli("quadrants", prog, timeout=300)
    note = next((ln for ln in o.err.splitlines() if "truncated" in ln), "")
    path = note.split("full output is in ")[-1].rstrip(")") if note else ""
    ok = o.rc == 0 and bool(path) and os.path.getsize(path) >= 6 << 20 if path and os.path.exists(path) else False
    if path and os.path.exists(path):
        os.unlink(path)
    return ok, note[:150] or o.err.strip()[-120:]


@case("quadrants: --timeout nan is refused", "poor")
def _(c: Ctx):
    return bad_input(c.cli("quadrants", DEMO / "saxpy.py", "--timeout", "nan"), "--timeout", "nan")


# ---------------------------------------------------------------- hangs
def _fifo_case(c: Ctx, where: str):
    c.project({"k.py": INC})
    c.cli("compile", c.proj)
    task = "inc_kernel_0_range_for"
    if where == "overrides":
        (c.proj / ".qdexplorer" / "overrides").mkdir(parents=True)
        os.mkfifo(c.proj / ".qdexplorer" / "overrides" / f"{task}.ptx")
        outs = [c.cli("compile", c.proj, timeout=60), c.cli("show", c.proj, task, timeout=60),
                c.cli("override", "list", c.proj, timeout=60)]
    else:
        d = c.base / "load"
        d.mkdir(mode=0o700)
        os.mkfifo(d / f"{task}.ptx")
        outs = [c.cli("compile", c.proj, "--load-ptx", d, timeout=60)]
    hung = [o for o in outs if o.rc is None]
    return not hung and all(o.clean for o in outs), f"{len(hung)} of {len(outs)} hung"


@case("hang: a FIFO in the overrides folder (compile, show, override list)", "poor")
def _(c: Ctx):
    return _fifo_case(c, "overrides")


@case("hang: a FIFO in a --load-ptx folder", "poor")
def _(c: Ctx):
    return _fifo_case(c, "load")


for _label, _tail in (("time.sleep", "import time\ntime.sleep(600)\n"), ("os.read(0)", "import os\nos.read(0, 1)\n"),
                      ("sys.stdin.read", "import sys\nsys.stdin.read()\n")):
    def _mk(label=_label, tail=_tail):
        @case(f"hang: a top-level {label} in a kernel file does not hang the import", "poor")
        def _(c: Ctx):
            c.project({"k.py": INC + "\n" + tail})
            r, w = os.pipe()
            try:
                e = dict(os.environ, PYTHONPATH=str(ROOT), QDEXPLORER_IMPORT_TIMEOUT="3", **c.env)
                t0 = time.perf_counter()
                try:
                    p = subprocess.run([sys.executable, "-m", "qdexplorer.cli", "compile", str(c.proj)], stdin=r,
                                       capture_output=True, text=True, env=e, timeout=60)
                    o = Outcome(p.returncode, p.stdout, p.stderr, time.perf_counter() - t0)
                except subprocess.TimeoutExpired:
                    return False, "hung"
            finally:
                os.close(r)
                os.close(w)
            return o.rc in (0, 2) and o.clean, (o.err.strip().splitlines() or ["rc 0"])[-1][:140]
    _mk()


@case("hang: a 49 MB kernel file is refused before compile(), naming the limit", "poor")
def _(c: Ctx):
    c.project({"k.py": INC + ("#" + "x" * 1023 + "\n") * (49 << 10)})
    o = c.cli("compile", c.proj, timeout=120)
    return bad_input(o, "k.py", "QDEXPLORER_MAX_FILE_MB")


# ---------------------------------------------------------------- history robustness
def _saved(c: Ctx, n=3):
    from qdexplorer.bench.context import RunContext
    from qdexplorer.bench.history import History
    from qdexplorer.bench.run import Launch, Run
    c.project({"k.py": INC})
    with History(_history_of(c)) as h:
        for k in range(n):
            h.save(Run(f"r{k}", RunContext(backend="cpu", device="x"), [Launch("t", "k", "w", r, 1.0 + k, 1, 1)
                                                                     for r in range(400)]))
        h.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


@case("history: bad JSON in a run's context: runs skips it with a warning", "poor")
def _(c: Ctx):
    import sqlite3
    _saved(c)
    con = sqlite3.connect(_history_of(c))
    con.execute("UPDATE runs SET context = '{oops' WHERE name = 'r1'")
    con.commit()
    con.close()
    o = c.cli("runs", c.proj)
    e = c.cli("export", c.proj, "r1", "--json", c.base / "o.json")
    return o.rc == 0 and "r0" in o.out and "r2" in o.out and "damaged" in o.err and o.clean and \
        bad_input(e, "damaged")[0], (o.err.strip() or o.out.strip())[-140:]


@case("history: a damaged page gives warnings, not tracebacks", "poor")
def _(c: Ctx):
    _saved(c, 6)
    db = _history_of(c)
    data = bytearray(db.read_bytes())
    for page in range(2, len(data) // 4096, 3):
        data[page * 4096 + 100:page * 4096 + 600] = b"\xa5" * 500
    db.write_bytes(bytes(data))
    outs = [c.cli("runs", c.proj), c.cli("export", c.proj, "r1", "--csv", c.base / "o.csv"),
            c.cli("bench", c.proj, "--save", "after", "--repeat", "2")]
    return all(o.clean and o.rc in (0, 1, 2) for o in outs), " | ".join((o.err.strip().splitlines() or [""])[-1][:50]
                                                                         for o in outs)


@case("history: latest~abc is one message", "poor")
def _(c: Ctx):
    _saved(c)
    return bad_input(c.cli("export", c.proj, "latest~abc", "--json", c.base / "o.json"), "latest~abc")


@case("history: --save latest is refused", "poor")
def _(c: Ctx):
    c.project({"k.py": INC})
    return bad_input(c.cli("bench", c.proj, "--save", "latest", "--repeat", "2"), "not allowed")


@case("history: --rename x latest~1 is refused", "poor")
def _(c: Ctx):
    _saved(c)
    return bad_input(c.cli("runs", c.proj, "--rename", "r0", "latest~1"), "not allowed")


@case("history: an interrupted bench keeps its context", "poor")
def _(c: Ctx):
    from qdexplorer.bench.history import History
    c.project({"k.py": SPIN})
    e = dict(os.environ, PYTHONPATH=str(ROOT), **c.env)
    p = subprocess.Popen([sys.executable, "-m", "qdexplorer.cli", "bench", str(c.proj), "--save", "cut", "--timeout",
                          "600"], env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_interruptible)
    end = time.monotonic() + 120
    while time.monotonic() < end and not _history_of(c).exists():
        time.sleep(0.2)
    time.sleep(3)
    p.send_signal(signal.SIGINT)
    try:
        p.wait(60)
    finally:
        p.kill()
    with History(_history_of(c)) as h:
        run = h.load("cut")
    ctx = run.context.to_dict()
    return run.status == "stopped" and all(ctx.get(k) for k in ("device", "arch", "mode")), sorted(ctx)[:6]


@case("history: deleting a run while bench writes it is refused", "poor")
def _(c: Ctx):
    c.project({"k.py": SPIN})
    e = dict(os.environ, PYTHONPATH=str(ROOT), **c.env)
    p = subprocess.Popen([sys.executable, "-m", "qdexplorer.cli", "bench", str(c.proj), "--save", "live", "--timeout",
                          "600"], env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_interruptible)
    try:
        end = time.monotonic() + 120
        while time.monotonic() < end and not _history_of(c).exists():
            time.sleep(0.2)
        time.sleep(2)
        o = c.cli("runs", c.proj, "--delete", "live")
    finally:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(60)
        finally:
            p.kill()
    return bad_input(o, "being written")


@case("history: a file-size limit is named, the history intact", "poor")
def _(c: Ctx):
    import resource
    _saved(c)
    db = _history_of(c)
    limit = db.stat().st_size + 4096

    def cap():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    code = ("import sys\nfrom qdexplorer.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    o = _py(c, code, "bench", c.proj, "--save", "big", "--repeat", "400", preexec=cap, timeout=300)
    from qdexplorer.bench.history import History
    with History(db) as h:  # the runs saved before are all there; the cut-off one is kept as far as it got
        intact = {"r0", "r1", "r2"} <= {s.label for s in h.list()} and \
            h.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    return bad_input(o, "file-size limit", str(db))[0] and intact, o.err.strip()[-140:]


# ---------------------------------------------------------------- numeric options
for _args, _fail in ((("bench", "--timeout", "0"), "poor"), (("bench", "--timeout", "-1"), "poor"),
                     (("bench", "--timeout", "nan"), "poor"), (("bench", "--warmup", "-5"), "poor"),
                     (("compare", "a", "b", "--alpha", "2"), "poor"), (("compare", "a", "b", "--threshold", "-50"), "poor"),
                     (("compare", "a", "b", "--fail-if-slower", "nan"), "corrupted")):
    def _mk(args=_args, fail=_fail):
        @case(f"flags: {' '.join(args)} is refused", fail)
        def _(c: Ctx):
            c.env["QDEXPLORER_DATA_DIR"] = str(c.base / "data")  # a value let through must not save a run
            return bad_input(c.cli(*args), args[-2], args[-1])
    _mk()


@case("memory: an input larger than memory is one message", "poor")
def _(c: Ctx):
    n = 64 << 20
    c.project({"k.py": INC.replace("check=lambda b, a: np.testing.assert_allclose(a[\"x\"], b[\"x\"] + 1.0)",
                                   "check=lambda b, a: None").replace("np.zeros(16, np.float32)",
                                                                      f"np.ones({n}, np.float32)")})
    code = ("import resource, sys\nfrom qdexplorer.engine import Engine\neng = Engine(sys.argv[1], in_process=True)\n"
            "eng.compile()\nvm = next(int(l.split()[1]) * 1024 for l in open('/proc/self/status') if l.startswith('VmSize'))\n"
            f"resource.setrlimit(resource.RLIMIT_AS, (vm + {int(2.5 * n * 4)}, resource.RLIM_INFINITY))\n"
            "r = eng.run()[0]\nprint(r.status, '|', r.error)\n")
    o = _py(c, code, c.proj, timeout=300)
    return o.clean and o.out.startswith("error") and "memory" in o.out, (o.out.strip() or o.err.strip())[-140:]


# ---------------------------------------------------------------- messages
@case("export: --csv onto an existing folder names it and leaves no temp file", "poor")
def _(c: Ctx):
    _saved(c)
    d = c.base / "outdir"
    d.mkdir()
    o = c.cli("export", c.proj, "r0", "--csv", d)
    return bad_input(o, str(d))[0] and not list(d.iterdir()) and ".tmp" not in o.err, o.err.strip()[-140:]


@case("override: an LLVM-IR override with the wrong signature is refused", "corrupted")
def _(c: Ctx):
    c.project({"k.py": INC})
    d = c.base / "d"
    c.cli("compile", c.proj, "--target", "host", "--dump", d)
    f = d / "inc_kernel_0_range_for_before_ptx.ll"
    text = f.read_bytes()
    head = text[text.index(b"define"):].split(b"\n", 1)[0]
    f.write_bytes(text.replace(head, head.replace(b"(", b"(i32 %extra, ", 1)))
    o = c.cli("override", "set", c.proj, "inc_kernel_0_range_for", f, "--stage", "ll", "--target", "host")
    return bad_input(o, "generated one takes")


for _kind in ("fifo", "devzero", "folder"):
    def _mk(kind=_kind):
        @case(f"input: a {kind} named *.py is refused by name, no phantom toml", "poor")
        def _(c: Ctx):
            c.project({"k.py": INC})
            odd = c.proj / "odd.py"
            {"fifo": os.mkfifo, "devzero": lambda p: os.symlink("/dev/zero", p), "folder": os.mkdir}[kind](odd)
            o = c.cli("compile", c.proj, timeout=60)
            return bad_input(o, "odd.py")[0] and "listed file not found" not in o.err, o.err.strip()[-140:]
    _mk()


@case("input: output past the file-size limit names what failed", "poor")
def _(c: Ctx):
    import resource

    def cap():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    with open(c.base / "out.json", "w") as out:
        e = dict(os.environ, PYTHONPATH=str(ROOT), **c.env)
        p = subprocess.run([sys.executable, "-m", "qdexplorer.cli", "compile", "--json"], stdout=out,
                           stderr=subprocess.PIPE, text=True, env=e, preexec_fn=cap, timeout=180)
    return p.returncode == 2 and "qdexplorer::" not in p.stderr and "output" in p.stderr, p.stderr.strip()[-120:]


# ---------------------------------------------------------------- project files and limits
@case("toml: default discovery refuses a *.py link whose target is outside", "security")
def _(c: Ctx):
    (c.outside / "evil.py").write_text("open(__file__ + '.ran', 'w').write('ran')\n")
    c.project({"k.py": INC})
    os.symlink(c.outside / "evil.py", c.proj / "link.py")
    o = c.cli("compile", c.proj)
    ok, note = bad_input(o, "outside the project folder")
    return ok and not (c.outside / "evil.py.ran").exists(), note


@case("limits: a 1500-deep chain of qd.func calls is one message", "poor")
def _(c: Ctx):
    lines = ["import qdexplorer.lang as qd", "", "@qd.func", "def f0(v):", "    return v + 1.0"]
    for i in range(1, 1500):
        lines += ["@qd.func", f"def f{i}(v):", f"    return f{i - 1}(v)"]
    lines += ["", "@qd.kernel", "def deep(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):",
              "    for i in range(x.shape[0]):", "        x[i] = f1499(x[i])", ""]
    c.project({"k.py": "\n".join(lines)})
    o = c.cli("compile", c.proj)
    return o.rc in (1, 2) and o.clean and "nests too deeply" in o.text, (o.err.strip() or o.out.strip())[-140:]


@case("limits: a 20000-term expression is one message", "poor")
def _(c: Ctx):
    c.project({"k.py": INC.replace("x[i] = x[i] + 1.0", "x[i] = " + " + ".join(["x[i]"] * 20000))})
    o = c.cli("compile", c.proj)
    return o.rc in (1, 2) and o.clean and "nests too deeply" in o.text, (o.err.strip() or o.out.strip())[-140:]


# ================================================================ own cases (issue 21: not in either list)
SCALAR_SCRIPT = textwrap.dedent("""\
    import numpy as np
    import qdexplorer.lang as qd
    qd.init(arch=qd.cpu)

    @qd.kernel
    def k(x: qd.types.ndarray(dtype=qd.{adt}, ndim=1), v: qd.{dt}):
        {body}

    x = np.zeros({size}, np.{anp})
    try:
        k(x, {value})
        print("ran", x.tolist()[:4])
    except (TypeError, ValueError) as e:
        print("refused:", e)
    """)


def _scalar(c: Ctx, dt, value, body="for i in range(x.shape[0]):\n            x[i] = v", adt="f32", anp="float32",
            size=4):
    script = c.base / "s.py"
    script.write_text(SCALAR_SCRIPT.format(dt=dt, value=value, body=body, adt=adt, anp=anp, size=size))
    return _py(c, "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')", script, timeout=120)


@case("own: a kernel file linked to another file inside the project is still imported", "poor")
def _(c: Ctx):
    c.project({"real.txt": INC})
    os.symlink(c.proj / "real.txt", c.proj / "k.py")
    o = c.cli("run", c.proj)
    return o.rc == 0 and "PASSED" in o.out, _workload_error(o)


@case("own: inf for an f32 is passed as given", "poor")
def _(c: Ctx):
    o = _scalar(c, "f32", "float('inf')")
    return "ran [inf" in o.out and o.clean, o.out.strip()[-140:]


@case("own: np.uint64(2**63) for an i32 is refused", "corrupted")
def _(c: Ctx):
    o = _scalar(c, "i32", "np.uint64(2**63)")
    return "does not fit in i32" in o.out and o.clean, o.out.strip()[-140:]


@case("own: a u64 loop bound of 2**63 + 1 is refused, never wrapped negative", "corrupted")
def _(c: Ctx):
    o = _scalar(c, "u64", "2**63 + 1", body="for i in range(v):\n            qd.atomic_add(x[0], 1)", adt="i64",
                anp="int64", size=1)
    return "refused" in o.out and "9223372036854775809" in o.out and o.clean, o.out.strip()[-140:]


@case("own: a u32 loop bound of 2**31 + 5 is refused, never wrapped negative", "corrupted")
def _(c: Ctx):
    o = _scalar(c, "u32", "2**31 + 5", body="for i in range(v):\n            qd.atomic_add(x[0], 1)", adt="i32",
                anp="int32", size=1)
    return "refused" in o.out and "2147483653" in o.out and o.clean, o.out.strip()[-140:]


@case("own: a negative 64-bit range gives the real indices", "corrupted")
def _(c: Ctx):
    o = _scalar(c, "i64", "-2**40", body="for i in range(v, v + 4):\n            x[i - v] = i", adt="i64",
                anp="int64")
    return f"ran {[-2**40 + k for k in range(4)]}" in o.out, o.out.strip()[-140:]


@case("own: a 2-D ndrange of i64 70000 x 70000 is refused", "corrupted")
def _(c: Ctx):
    o = _scalar(c, "i64", "70000", body="for i, j in qd.ndrange(v, v):\n            x[0] = 1.0")
    return "refused" in o.out and "4900000000 iterations" in o.out, o.out.strip()[-140:]


@case("own: an f16 scalar on the CPU names the type, not KeyError 'f16'", "poor")
def _(c: Ctx):
    script = c.base / "s.py"
    script.write_text(SCALAR_SCRIPT.format(dt="f16", value="1.0", body="for i in range(x.shape[0]):\n            x[i] = v",
                                           adt="f16", anp="float16", size=2).replace("except (TypeError, ValueError)",
                                                                                     "except Exception"))
    o = _py(c, "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')", script)
    return "f16 scalar argument" in o.out, o.out.strip()[-140:]


@case("own: a read-only input the kernel only reads runs and stays untouched", "poor")
def _(c: Ctx):
    src = COPY.format(args="x=np.frombuffer(np.ones(8, np.float32).tobytes(), np.float32), y=np.zeros(8, np.float32)")
    c.project({"k.py": src})
    o = c.cli("run", c.proj, "--workload", "w")
    return o.rc == 0 and "PASSED" in o.out, _workload_error(o)


@case("own: a chdir at import does not move a relative --dump", "security")
def _(c: Ctx):
    (c.outside / "cwd").mkdir()
    c.project({"k.py": INC + f"\nimport os\nos.chdir({str(c.outside / 'cwd')!r})\n"})
    o = c.cli("compile", c.proj, "--dump", "reldump")
    return o.rc == 0 and (c.base / "reldump").is_dir() and not list((c.outside / "cwd").iterdir()), o.err.strip()[-100:]


@case("own: a project that ignores SIGTERM is still stopped by it", "poor")
def _(c: Ctx):
    c.project({"k.py": INC + "\nimport signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"})
    e = dict(os.environ, PYTHONPATH=str(ROOT), **c.env)
    p = subprocess.Popen([sys.executable, "-m", "qdexplorer.cli", "run", str(c.proj), "--repeat", "100000000"], env=e,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(8)
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return False, "still running 30 s after SIGTERM"
    return p.returncode == 143, f"exit {p.returncode}"


@case("own: a thread left running by the import does not hold the exit", "poor")
def _(c: Ctx):
    c.project({"k.py": INC + "\nimport threading, time\nthreading.Thread(target=lambda: time.sleep(600)).start()\n"})
    o = c.cli("compile", c.proj, timeout=90)
    return o.rc == 0 and o.seconds < 60 and "still running" in o.err, f"rc {o.rc} in {o.seconds:.0f} s"


@case("own: an exit handler registered at import does not hold the exit", "poor")
def _(c: Ctx):
    c.project({"k.py": INC + "\nimport atexit, time\natexit.register(lambda: time.sleep(600))\n"})
    o = c.cli("compile", c.proj, timeout=60)
    return o.rc == 0 and o.seconds < 50, f"rc {o.rc} in {o.seconds:.0f} s"


@case("own: QDEXPLORER_IMPORT_TIMEOUT=nan is one message", "poor")
def _(c: Ctx):
    c.project({"k.py": INC})
    return bad_input(c.cli("compile", c.proj, env={"QDEXPLORER_IMPORT_TIMEOUT": "nan"}), "QDEXPLORER_IMPORT_TIMEOUT")


@case("own: QDEXPLORER_MAX_FILE_MB=abc is one message", "poor")
def _(c: Ctx):
    c.project({"k.py": INC})
    return bad_input(c.cli("compile", c.proj, env={"QDEXPLORER_MAX_FILE_MB": "abc"}), "QDEXPLORER_MAX_FILE_MB")


@case("own: a run name with a newline is refused (it would forge lines in runs)", "poor")
def _(c: Ctx):
    c.project({"k.py": INC})
    return bad_input(c.cli("bench", c.proj, "--save", "a\nb  #9", "--repeat", "2"), "control character")


@case("own: an empty run name is refused", "poor")
def _(c: Ctx):
    c.project({"k.py": INC})
    return bad_input(c.cli("bench", c.proj, "--save", "", "--repeat", "2"), "not allowed")


@case("own: export into a FIFO writes into it and keeps it a FIFO", "security")
def _(c: Ctx):
    import stat
    import threading
    _saved(c)
    fifo = c.base / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    o = c.cli("export", c.proj, "r0", "--json", fifo, timeout=60)
    reader.join(10)
    return o.rc == 0 and stat.S_ISFIFO(os.lstat(fifo).st_mode) and bool(got and got[0]), o.err.strip()[-100:]


@case("own: export to a path in a missing folder under /proc is one message", "poor")
def _(c: Ctx):
    _saved(c)
    return bad_input(c.cli("export", c.proj, "r0", "--json", "/proc/qdx-nope/o.json"), "/proc/qdx-nope")


@case("own: a history.sqlite that is a folder is one message", "poor")
def _(c: Ctx):
    c.project({"k.py": INC})
    _history_of(c).mkdir(parents=True)
    return bad_input(c.cli("bench", c.proj, "--save", "x", "--repeat", "2"), "not a regular file")


@case("own: a .qdexplorer that is a file is one message for the history", "poor")
def _(c: Ctx):
    c.project({"k.py": INC})
    (c.proj / ".qdexplorer").write_text("x")
    return bad_input(c.cli("bench", c.proj, "--save", "x", "--repeat", "2"), "not a folder")


@case("own: QD_DEBUG_DUMP_PATH naming a file is not called a --load-ptx folder", "poor")
def _(c: Ctx):
    c.project({"k.py": INC})
    f = c.base / "f"
    f.write_text("x")
    o = c.cli("run", c.proj, env={"QD_LOAD_IR": "1", "QD_DEBUG_DUMP_PATH": str(f)})
    return bad_input(o, "QD_DEBUG_DUMP_PATH", "is not a folder")


@case("own: a project path that is a FIFO is one message", "poor")
def _(c: Ctx):
    fifo = c.base / "proj.fifo"
    os.mkfifo(fifo)
    return bad_input(c.cli("compile", fifo, timeout=60), str(fifo))


@case("own: a qdexplorer.toml that is a folder is one message", "poor")
def _(c: Ctx):
    c.project({"k.py": INC})
    (c.proj / "qdexplorer.toml").mkdir()
    return bad_input(c.cli("compile", c.proj), "qdexplorer.toml", "not a regular file")


@case("own: override set with a FIFO as the file does not hang", "poor")
def _(c: Ctx):
    c.project({"k.py": INC})
    c.cli("compile", c.proj)
    fifo = c.base / "edit.ptx"
    os.mkfifo(fifo)
    return bad_input(c.cli("override", "set", c.proj, "inc_kernel_0_range_for", fifo, timeout=60), "existing")


@case("own: --dump onto a FIFO is one message", "poor")
def _(c: Ctx):
    fifo = c.base / "dump"
    os.mkfifo(fifo)
    return bad_input(c.cli("compile", "--dump", fifo, timeout=60), "not a folder")


@case("own: quadrants with a missing --python is one message", "poor")
def _(c: Ctx):
    return bad_input(c.cli("quadrants", DEMO / "saxpy.py", "--python", c.base / "nope"), "cannot start")


@case("own: quadrants on a FIFO script is one message", "poor")
def _(c: Ctx):
    fifo = c.base / "prog.py"
    os.mkfifo(fifo)
    return bad_input(c.cli("quadrants", fifo, timeout=60), "not found")


@case("own: a kernel 90 ifs deep compiles or is one message", "poor")
def _(c: Ctx):
    lines = ["import qdexplorer.lang as qd", "", "@qd.kernel", "def nest(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):",
             "    for i in range(x.shape[0]):"]
    ind = "        "
    for _k in range(90):
        lines.append(ind + "if x[i] > -1.0:")
        ind += " "
    lines.append(ind + "x[i] = 1.0")
    c.project({"k.py": "\n".join(lines) + "\n"})
    o = c.cli("compile", c.proj, timeout=120)
    return o.rc in (0, 1, 2) and o.clean, (o.err.strip().splitlines() or ["ok"])[-1][:120]


@case("own: runs --delete of a run that does not exist is one message", "poor")
def _(c: Ctx):
    _saved(c)
    return bad_input(c.cli("runs", c.proj, "--delete", "nope"), "no run 'nope'")


# round 3 (issue 33): clusters, sweeps, install-desktop, daemons, the history under faults, signals
sys.path.insert(0, str(Path(__file__).resolve().parent))
from hostile_round3 import register as _register_round3  # noqa: E402

_register_round3(case, Ctx, Outcome, bad_input, ROOT)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", default="", help="only cases whose name contains this")
    ap.add_argument("--skip", action="append", default=[], help="leave out cases whose name contains this (repeatable)")
    ap.add_argument("--json", action="store_true", help="print only the JSON summary")
    a = ap.parse_args(argv)
    rows, counts = [], {"well": 0, "poor": 0, "corrupted": 0, "security": 0, "orphan": 0}
    for name, on_failure, fn in CASES:
        if a.k not in name or any(x in name for x in a.skip):
            continue
        base = Path(tempfile.mkdtemp(prefix="qdx-hostile-"))
        t0 = time.perf_counter()
        try:
            ok, note = fn(Ctx(base))
        except Exception as e:  # noqa: BLE001 - a probe that breaks counts against the product
            ok, note = False, f"probe raised {type(e).__name__}: {e}"
        finally:
            for p in (base, *base.rglob("*")):
                try:
                    if not p.is_symlink():
                        p.chmod(0o755 if p.is_dir() else 0o644)
                except OSError:
                    pass
            shutil.rmtree(base, ignore_errors=True)
        verdict = "well" if ok else on_failure
        counts[verdict] += 1
        rows.append({"case": name, "verdict": verdict, "seconds": round(time.perf_counter() - t0, 2),
                     "note": " ".join(str(note).split())})
        if not a.json:
            print(f"{verdict:<10} {rows[-1]['seconds']:6.1f}s  {name}\n{'':19}{rows[-1]['note'][:150]}", flush=True)
    summary = {"cases": len(rows), **counts, "not_well": [r["case"] for r in rows if r["verdict"] != "well"]}
    if not a.json:
        print("\n" + "  ".join(f"{k}: {v}" for k, v in counts.items()) + f"  (of {len(rows)})")
    print(json.dumps(summary))
    return 0 if counts["corrupted"] == counts["security"] == counts["orphan"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
