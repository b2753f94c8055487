"""`python SCRIPT ARGS` and `python -c CODE ARGS` for tests that run many real programs, each in a process
of its own, forked from a server that has already imported what the programs import.

Tests of the upstream programs, the Quadrants-style examples and the corpus start a fresh interpreter per
program that spends ~0.3 s of CPU importing the language, NumPy and LLVM's binding (or Quadrants) for
~0.1 s of work (issue 42). Here one server per test module imports them once (`preload`) and forks a
child per program, so each program still runs alone, from the same freshly imported state: nothing a
program does reaches the server or a later program (the server never runs one), a program that crashes
or hangs ends only itself (a timeout kills its process group), and its result cannot depend on which
program ran before. The child is what the interpreter would run:

- a session and process group of its own, stdin from /dev/null, stdout and stderr to files (read back
  whole, as `capture_output=True` would);
- the request's environment, working directory, `sys.argv` and `sys.path[0]` (the script's folder, or
  '' for `-c`), the program run as `__main__`; NumPy's global random state drawn afresh (Python's
  `random` is reseeded by the interpreter itself at fork), as a new process would have it;
- the exit status of `SystemExit` (None 0, an int as is, anything else printed and 1), or 1 with the
  traceback (from the program's own frames) for an uncaught exception; then non-daemon threads are
  joined and exit handlers run, as at the interpreter's exit; a signal that kills it is the status's -N.

What cannot be applied after the start is not: a request whose interpreter settings (the PYTHON*
variables) differ from the server's runs as a real child, as does any command but `python SCRIPT` or
`python -c CODE`, and every one off Linux or where QDX_TEST_FORK_SUBPROCESS=1 is set (the
reference: a test passes both ways). A server may name more variables that its preloaded modules read
while being imported (`same_vars`: Quadrants' QD_LOG_LEVEL, ENABLE_QUADRANTS_HEADER_PRINT, ...): a
request where one differs runs as a real child too. What a preloaded module printed while being imported
(Quadrants' version banner) was printed once by the server, not by each child, unless the server replays
it (`replay_import_output`: each child writes it first, as a program whose first act is that import
prints it). `tempfile`'s folder, which an import may have looked up with the server's TMPDIR, is looked
up again by the child with its own. Tests of process start-up itself keep a real child; each file that
uses this keeps one test that does.

`popen_through` stands in for `subprocess` where product code starts the program with `Popen`
(qdexplorer/quadrants/process_group.py): only the start is replaced, everything around it (the
timeout, the group kill, the orphan search, the notes) is the product's own.
"""
from __future__ import annotations

import json
import locale
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import types
from dataclasses import dataclass

# Linux only: elsewhere (macOS system libraries are not fork-safe once threads ran) a real child, as before
SUBPROCESS = os.environ.get("QDX_TEST_FORK_SUBPROCESS", "") not in ("", "0") or not sys.platform.startswith("linux")


@dataclass
class Finished:
    returncode: int | None   # None: timed out (the process group was killed)
    stdout: str
    stderr: str
    timed_out: bool


class Server:
    """One preloaded interpreter that forks a child per `run`; `close()` ends it (and a child in flight).
    `same_vars(name)`: a variable that must be the server's in a forked request (PYTHON* always)."""

    def __init__(self, preload: list[str], env: dict | None = None, same_vars=None,
                 replay_import_output: bool = False):
        self.env = dict(os.environ if env is None else env)
        self.same_vars = same_vars or (lambda name: False)
        self.proc = None
        self.lock = threading.Lock()   # one program at a time; a caller that finds it busy runs a real child
        if not SUBPROCESS:
            self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__),
                                          json.dumps({"preload": preload, "replay": replay_import_output})],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=self.env, bufsize=0)

    def _startup_vars(self, env: dict) -> dict:
        return {k: v for k, v in env.items() if k.startswith("PYTHON") or self.same_vars(k)}

    def forkable(self, cmd: list[str], env: dict) -> bool:
        return (self.proc is not None and cmd[0] == sys.executable and len(cmd) > 1
                and (cmd[1] == "-c" and len(cmd) > 2 or not cmd[1].startswith("-"))
                and self._startup_vars(env) == self._startup_vars(self.env))

    def run(self, cmd: list[str], env: dict, cwd=None, timeout: float = 300.0) -> Finished | None:
        """The program's run, or None where it must be a real child (see the module's docstring)."""
        cmd = [str(c) for c in cmd]
        if not self.forkable(cmd, env) or not self.lock.acquire(blocking=False):
            return None
        try:
            with tempfile.TemporaryDirectory(prefix="qdx-forked-") as tmp:
                out, err = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
                pid = self.start(cmd, env, cwd, out, err)
                try:
                    status = self.finish(timeout)
                    timed_out = False
                except TimeoutError:
                    _kill_group(pid)
                    status, timed_out = self.finish(None), True
                _kill_group(pid)   # nothing the program started outlives it
                texts = [_read(p) for p in (out, err)]
        finally:
            self.lock.release()
        return Finished(None if timed_out else int(status), texts[0], texts[1], timed_out)

    def start(self, cmd: list[str], env: dict, cwd, stdout: str, stderr: str) -> int:
        """Fork the program (the caller holds `lock` and checked `forkable`); its pid, the leader of its
        own process group. `finish` waits for it."""
        request = {"argv": [str(c) for c in cmd[1:]], "env": dict(env), "cwd": os.path.abspath(cwd or os.getcwd()),
                   "stdout": stdout, "stderr": stderr}
        data = json.dumps(request).encode() + b"\n"
        while data:
            data = data[self.proc.stdin.write(data):]
        return int(self._reply(None))

    def finish(self, timeout) -> int:
        """The started program's exit status (-N: killed by signal N); TimeoutError after `timeout` s
        (still running: kill its group, then call again)."""
        return int(self._reply(timeout))

    def _reply(self, timeout):
        if timeout is not None:
            ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
            if not ready:
                raise TimeoutError
        line = self.proc.stdout.readline()   # unbuffered: nothing read ahead hides from select
        if not line:
            raise RuntimeError(f"the forking server ended (status {self.proc.wait()})")
        return line.decode().strip()

    def close(self) -> None:
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
            self.proc.stdout.close()
            self.proc = None


def run_group_through(server: Server, real):
    """A stand-in for `qdexplorer.quadrants.process_group.run_group` (`real`) that forks from `server`."""
    from qdexplorer.quadrants.process_group import Finished as GroupFinished

    def run_group(cmd, env, cwd=None, timeout=300.0, keep_children=False, what="the program"):
        f = None if keep_children else server.run(cmd, env, cwd, timeout)
        if f is None:
            return real(cmd, env, cwd=cwd, timeout=timeout, keep_children=keep_children, what=what)
        return GroupFinished(-signal.SIGKILL if f.timed_out else f.returncode, f.stdout, f.stderr, f.timed_out)
    return run_group


def subprocess_through(server):
    """A stand-in for the `subprocess` module whose `run(cmd, env=, cwd=, capture_output=True, text=True,
    timeout=)` forks from `server` (a Server, or a function of the command that picks one) and returns
    (or raises) as `subprocess.run` would."""
    pick = server if callable(server) else (lambda cmd: server)

    class Stand:
        TimeoutExpired = subprocess.TimeoutExpired
        CompletedProcess = subprocess.CompletedProcess

        @staticmethod
        def run(cmd, env=None, cwd=None, timeout=None, capture_output=False, text=False, **kw):
            f = None
            if capture_output and text and set(kw) <= {"errors"}:
                f = pick(cmd).run(cmd, dict(os.environ if env is None else env), cwd, timeout)
            if f is None:
                return subprocess.run(cmd, env=env, cwd=cwd, timeout=timeout, capture_output=capture_output,
                                      text=text, **kw)
            if f.timed_out:
                raise subprocess.TimeoutExpired(cmd, timeout, output=f.stdout, stderr=f.stderr)
            return subprocess.CompletedProcess(cmd, f.returncode, f.stdout, f.stderr)
    return Stand


def popen_through(server: Server):
    """A stand-in for the `subprocess` module as qdexplorer/quadrants/process_group.py uses it: its
    `Popen(cmd, stdin=DEVNULL, stdout=FILE, stderr=FILE, env=, cwd=, start_new_session=True)` forks the
    program from `server` (output into the files by name); any other call, a command the server must not
    fork, or a server busy with another program (a second thread) starts a real child."""
    stand = types.SimpleNamespace(**{k: getattr(subprocess, k) for k in dir(subprocess) if not k.startswith("__")})

    def popen(cmd, *a, stdin=None, stdout=None, stderr=None, env=None, cwd=None, start_new_session=False, **kw):
        real = lambda: subprocess.Popen(cmd, *a, stdin=stdin, stdout=stdout, stderr=stderr, env=env,  # noqa: E731
                                        cwd=cwd, start_new_session=start_new_session, **kw)
        cmd_ = [str(c) for c in cmd] if isinstance(cmd, (list, tuple)) else None
        env_ = dict(os.environ if env is None else env)
        if (a or kw or not start_new_session or stdin != subprocess.DEVNULL or cmd_ is None
                or not all(hasattr(f, "name") and hasattr(f, "fileno") for f in (stdout, stderr))
                or not server.forkable(cmd_, env_) or not server.lock.acquire(blocking=False)):
            return real()
        try:
            pid = server.start(cmd_, env_, cwd, stdout.name, stderr.name)
        except BaseException:
            server.lock.release()
            raise
        return _ForkedPopen(server, cmd_, pid)

    stand.Popen = popen
    return stand


class _ForkedPopen:
    """What process_group reads of a Popen (pid, wait, returncode, kill) for a program forked by a Server."""

    def __init__(self, server: Server, args: list[str], pid: int):
        self.server, self.args, self.pid, self.returncode = server, args, pid, None

    def wait(self, timeout=None):
        if self.returncode is None:
            try:
                self.returncode = self.server.finish(timeout)
            except TimeoutError:
                raise subprocess.TimeoutExpired(self.args, timeout) from None
            self.server.lock.release()
        return self.returncode

    def poll(self):
        try:
            return self.wait(0)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        if self.returncode is None:
            os.kill(self.pid, signal.SIGKILL)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def _read(path: str) -> str:
    with open(path, "rb") as f:
        return f.read().decode(locale.getpreferredencoding(False), "replace")


# ---- the server (this file run as a script) ----

def _serve(preload: list[str], replay: bool) -> None:
    requests, replies = os.fdopen(os.dup(0), "rb"), os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)   # what an import prints goes nowhere; fds 0 and 1 are the child's to set
    sys.path.pop(0)   # this file's folder, which `python PROGRAM` would not have
    printed = [b"", b""]
    stderr = os.dup(2)
    if replay:   # what the imports print, kept for each child to print
        captured = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]
        os.dup2(captured[0].fileno(), 1)
        os.dup2(captured[1].fileno(), 2)
    import importlib
    for name in preload:
        importlib.import_module(name)
    if replay:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(null, 1)
        os.dup2(stderr, 2)
        for i, f in enumerate(captured):
            f.seek(0)
            printed[i] = f.read()
            f.close()
    os.close(null)
    os.close(stderr)
    watch_exit = hasattr(os, "pidfd_open")
    for line in requests:
        req = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            requests.close()
            replies.close()
            _child(req, printed)   # never returns
        replies.write(f"{pid}\n".encode())
        replies.flush()
        ended = False
        if watch_exit:
            pidfd = os.pidfd_open(pid)
            ready, _, _ = select.select([requests, pidfd], [], [])
            os.close(pidfd)
            ended = requests in ready   # the test process ended (or closed us) with a program running
            if ended:
                _kill_group(pid)
        _, status = os.waitpid(pid, 0)
        if ended:
            return
        replies.write(f"{os.waitstatus_to_exitcode(status)}\n".encode())
        replies.flush()


def _child(req: dict, printed: list[bytes]) -> None:
    code = 1
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        for fd, path in ((1, req["stdout"]), (2, req["stderr"])):
            f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(f, fd)
            os.close(f)
            data = memoryview(printed[fd - 1])
            while data:
                data = data[os.write(fd, data):]
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        tempfile.tempdir = None   # looked up again, from this environment's TMPDIR
        if "numpy" in sys.modules:
            sys.modules["numpy"].random.seed()
        code = _run_main(req["argv"])
        import threading
        threading._shutdown()   # noqa: SLF001 - what the interpreter does at its exit
        import atexit
        atexit._run_exitfuncs()  # noqa: SLF001
    except BaseException:  # noqa: BLE001 - a failure of this file, not of the program
        import traceback
        traceback.print_exc()
    finally:
        for s in (sys.stdout, sys.stderr):
            try:
                s.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code)


def _run_main(argv: list[str]) -> int:
    import runpy
    import traceback
    import types
    try:
        if argv[0] == "-c":
            sys.argv = ["-c", *argv[2:]]
            sys.path.insert(0, "")
            main = types.ModuleType("__main__")
            main.__dict__["__builtins__"] = __builtins__
            sys.modules["__main__"] = main
            exec(compile(argv[1], "<string>", "exec"), main.__dict__)
        else:
            sys.argv = list(argv)
            sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
            runpy.run_path(argv[0], run_name="__main__")
        return 0
    except SystemExit as e:
        if e.code is None:
            return 0
        if isinstance(e.code, int):
            return e.code
        print(e.code, file=sys.stderr)
        return 1
    except BaseException as e:  # noqa: BLE001 - printed as the interpreter prints it
        tb = e.__traceback__
        while tb is not None and (tb.tb_frame.f_code.co_filename in (__file__, runpy.__file__)
                                  or "runpy" in tb.tb_frame.f_code.co_filename):
            tb = tb.tb_next
        traceback.print_exception(type(e), e, tb)
        return 1


if __name__ == "__main__":
    _how = json.loads(sys.argv[1])
    _serve(_how["preload"], _how["replay"])
