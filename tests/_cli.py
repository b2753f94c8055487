"""`python -m qdexplorer.cli ARGS` for tests that check what the command prints, returns or writes.

A child Python costs ~0.35 s of CPU to import the package before its work, and the suite started
hundreds of them (issue 42). `run_cli` runs the same entry (`qdexplorer.cli._main`, what
`python -m qdexplorer.cli` runs under `main`) in this process and returns a
`subprocess.CompletedProcess` as `subprocess.run(..., capture_output=True, text=True)` would:

- stdout and stderr are captured at the file-descriptor level (fds 1 and 2 point at temporary files
  while it runs, and sys.stdout/sys.stderr write through to them), so what a helper process the
  command starts writes to an inherited fd is captured as in a child, in the same order;
- the returncode is the command's return value, a SystemExit's code (argparse: 2), or 1 with the
  traceback on stderr for an exception the command let out, as the interpreter would;
- `env` (variables to set; None unsets one) and `cwd` are applied and put back afterwards, as are
  sys.argv, sys.path, the signal handlers, the warning filters and the module-level caches the
  command fills (loaded projects, the CUDA probe's answer, the counters probe), so one call neither
  sees nor leaves another's state; modules a project's import added (files under the temporary
  folder, where tests write their projects) are dropped again.

Not for tests of process behaviour (signals, timeouts that kill children, hangs, what an import leaves
running, exit handlers, stdin, start-up): those call `subprocess` themselves, or pass `subprocess=True`.
A command whose project import leaves a thread running or an exit handler registered (what `main`
handles at exit) raises here: such a test must run the real process.

QDX_TEST_CLI_SUBPROCESS=1 in the environment makes every call a real child again (the reference:
a test that passes both ways checks the in-process path against it).
"""
from __future__ import annotations

import contextlib
import io
import locale
import os
import signal
import subprocess
import sys
import tempfile
import traceback
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUBPROCESS = os.environ.get("QDX_TEST_CLI_SUBPROCESS", "") not in ("", "0")
_SIGNALS = tuple(getattr(signal, s) for s in ("SIGINT", "SIGTERM", "SIGHUP", "SIGALRM") if hasattr(signal, s))
# a module that appeared during a call from a file under here came from the project under test (its own imports)
_TMP = os.path.realpath(tempfile.gettempdir()) + os.sep
_KEEP = tuple(os.path.join(os.path.realpath(p), "") for p in {sys.prefix, sys.base_prefix, ROOT})


def run_cli(*args, env: dict | None = None, cwd=None, timeout: float = 300, check: bool = False,
            subprocess: bool = False, **kw) -> "subprocess.CompletedProcess[str]":
    """`python -m qdexplorer.cli *args` with `env` added to this process's environment (PYTHONPATH=ROOT
    in a child). `check`: raise CalledProcessError on a non-zero status. Extra keywords (stdin, input,
    ...) mean a real child: they are about the process."""
    argv = [str(a) for a in args]
    if subprocess or SUBPROCESS or kw:
        p = _child(argv, env, cwd, timeout, kw)
    else:
        p = _in_process(argv, env, cwd)
    if check:
        p.check_returncode()
    return p


def _child(argv, env, cwd, timeout, kw):
    e = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    for k, v in (env or {}).items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = str(v)
    return subprocess.run([sys.executable, "-m", "qdexplorer.cli", *argv], capture_output=True, text=True,
                          env=e, cwd=cwd, timeout=timeout, **kw)


def _in_process(argv, env, cwd):
    from qdexplorer import cli
    from qdexplorer.project import import_guard
    threads_before = set(import_guard.threads_left_running())
    handlers_before = import_guard.exit_handlers_added()
    with _state_restored(env, cwd, argv), _captured() as (out, err):
        try:
            rc = _exit_status(cli._main(argv, None))   # `python -m qdexplorer.cli`: sys.exit(main())
        except SystemExit as e:
            rc = _exit_status(e.code)
        except KeyboardInterrupt:   # the command turns its own into a status: this one stops the tests
            raise
        except BaseException:  # noqa: BLE001 - what the interpreter does with an uncaught exception
            traceback.print_exc()
            rc = 1
        sys.stdout.flush()
        sys.stderr.flush()
    if set(import_guard.threads_left_running()) - threads_before or import_guard.exit_handlers_added() != handlers_before:
        raise RuntimeError(f"qdexplorer {' '.join(argv)}: the project's import left a thread or an exit handler, "
                           f"which only a real process handles (cli.main's exit): run it with subprocess=True")
    return subprocess.CompletedProcess(["qdexplorer.cli", *argv], rc, out.text, err.text)


def _exit_status(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


class _Text:
    text = ""


@contextlib.contextmanager
def _captured():
    """fds 1 and 2 (and sys.stdout/sys.stderr over them) into temporary files, decoded as text=True does."""
    out, err = _Text(), _Text()
    enc = locale.getpreferredencoding(False)
    files = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]
    old_streams = sys.stdout, sys.stderr
    for s in old_streams:
        with contextlib.suppress(Exception):
            s.flush()
    saved = [os.dup(1), os.dup(2)]
    streams = []
    try:
        os.dup2(files[0].fileno(), 1)
        os.dup2(files[1].fileno(), 2)
        # a pipe's stream in a child: block-buffered there, but nothing else writes between flushes here
        streams = [io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding=enc, write_through=True)
                   for fd in (1, 2)]
        sys.stdout, sys.stderr = streams
        yield out, err
    finally:
        for s in streams:
            with contextlib.suppress(Exception):
                s.flush()
        sys.stdout, sys.stderr = old_streams
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved:
            os.close(fd)
        texts = []
        for f in files:
            f.seek(0)
            texts.append(f.read().decode(enc).replace("\r\n", "\n").replace("\r", "\n"))
            f.close()
        out.text, err.text = texts


@contextlib.contextmanager
def _state_restored(env, cwd, argv):
    from qdexplorer.codegen import math_lib
    from qdexplorer.counters import locate, probe
    from qdexplorer.project import loader
    from qdexplorer.runtime.cuda import detect
    old_env = dict(os.environ)
    old_cwd = os.getcwd()
    old_argv, old_path = sys.argv[:], sys.path[:]
    old_modules = set(sys.modules)
    old_handlers = {s: signal.getsignal(s) for s in _SIGNALS}
    caches = [(loader._cache, dict(loader._cache)), (probe._cache, dict(probe._cache)),
              (locate._versions, dict(locate._versions)), (math_lib._cached, dict(math_lib._cached))]
    old_status = detect._status[:]
    try:
        for k, v in (env or {}).items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = str(v)
        if any(k.startswith(("QDEXPLORER_DISABLE_CUDA", "CUDA_")) for k in env or {}):
            detect._status.clear()   # probed again under the test's environment, as a child would
        for live, _ in caches:
            live.clear()   # each command loads its project and probes its tools afresh, as a child does
        if cwd is not None:
            os.chdir(cwd)
        sys.argv = [os.path.join(ROOT, "qdexplorer", "cli", "__main__.py"), *argv]
        with warnings.catch_warnings():
            yield
    finally:
        os.chdir(old_cwd)
        os.environ.clear()
        os.environ.update(old_env)
        sys.argv = old_argv
        sys.path[:] = old_path
        for s, h in old_handlers.items():
            if h is not None:
                signal.signal(s, h)
        for live, saved in caches:
            live.clear()
            live.update(saved)
        detect._status[:] = old_status
        for name in set(sys.modules) - old_modules:
            f = getattr(sys.modules.get(name), "__file__", None) or ""
            f = os.path.realpath(f) if f else ""
            # a test's own project files (under the temp folder) go; the environment's packages stay, even
            # where the checkout and its venv are under the temp folder too (a clone in /tmp: numpy's
            # extension modules cannot be imported twice in one process)
            if name.startswith("qdx_project_") or (f.startswith(_TMP) and not f.startswith(_KEEP)):
                sys.modules.pop(name, None)
