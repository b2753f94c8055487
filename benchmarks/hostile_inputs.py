"""Probe the CLI with hostile or broken inputs, as a careful user and an attacker would (issue 10).

Each case builds a project (or a folder, a cache, a symlink) in a fresh temporary folder, runs the
real `qdexplorer` CLI in a subprocess, and judges the outcome. A case that behaves as it should is
`well`; one that fails is counted in the class its failure would mean, fixed in advance per case:
`poor` (a traceback, a hang, a misleading message or exit code), `corrupted` (a wrong result
reported as fine), or `security` (a file outside where it belongs was written, read or deleted,
or code ran that should not have).

    python benchmarks/hostile_inputs.py            # table + JSON summary on the last line
    python benchmarks/hostile_inputs.py -k arch    # only cases whose name contains "arch"
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
    f = c.base / "one.py"
    f.write_text(INC)
    return bad_input(c.cli("override", "list", f), "single file")


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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", default="", help="only cases whose name contains this")
    ap.add_argument("--json", action="store_true", help="print only the JSON summary")
    a = ap.parse_args(argv)
    rows, counts = [], {"well": 0, "poor": 0, "corrupted": 0, "security": 0}
    for name, on_failure, fn in CASES:
        if a.k not in name:
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
    return 0 if counts["corrupted"] == counts["security"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
