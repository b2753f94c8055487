"""tests/_forked_python.py, which the corpus, upstream-program and example tests run their programs with:
a forked program sees what `python SCRIPT` / `python -c` would give it, ends with the status the
interpreter would, and leaves nothing behind for the next program (state, processes), and a hang or a
crash ends only itself."""
import os
import subprocess
import sys
import time

import pytest

from tests import _forked_python


@pytest.fixture(scope="module")
def server():
    s = _forked_python.Server(["json"])
    if s.proc is None:
        pytest.skip("forking is off here (QDX_TEST_FORK_SUBPROCESS=1 or no fork)")
    yield s
    s.close()


def run(server, code, *args, timeout=30, **kw):
    f = server.run([sys.executable, "-c", code, *args], dict(os.environ), timeout=timeout, **kw)
    assert f is not None
    return f


def test_a_script_sees_what_a_fresh_interpreter_gives_it(server, tmp_path):
    script = tmp_path / "prog.py"
    script.write_text("import os, sys\nprint(sys.argv, sys.path[0], os.getcwd(), os.environ.get('QDX_X'), "
                      "__name__, __file__, sys.stdin.read())\n")
    env = dict(os.environ, QDX_X="1")
    cmd = [sys.executable, str(script), "a", "b"]
    fresh = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    forked = server.run(cmd, env, cwd=tmp_path, timeout=30)
    assert (forked.returncode, forked.stdout, forked.stderr) == (0, fresh.stdout, "") and "'a', 'b'" in fresh.stdout


def test_nothing_a_program_does_reaches_the_next(server):
    assert run(server, "import json; json.MARK = 1; print(__name__)").stdout == "__main__\n"
    assert run(server, "import json, sys; print(hasattr(json, 'MARK'), sys.argv)", "x").stdout == \
        "False ['-c', 'x']\n"


def test_exit_statuses_are_the_interpreters(server):
    assert run(server, "raise SystemExit(3)").returncode == 3
    f = run(server, "raise SystemExit('bye')")
    assert (f.returncode, f.stderr) == (1, "bye\n")
    f = run(server, "def f():\n    1 / 0\nf()")
    fresh = subprocess.run([sys.executable, "-c", "def f():\n    1 / 0\nf()"], capture_output=True, text=True)
    assert (f.returncode, f.stderr) == (1, fresh.stderr)   # the traceback from the program's own frames
    assert run(server, "import os; os.abort()").returncode == -6
    assert run(server, "import atexit; atexit.register(print, 'at exit')").stdout == "at exit\n"


def test_a_hang_is_killed_with_what_it_started_and_the_next_program_runs(server):
    f = run(server, "import subprocess, time\np = subprocess.Popen(['sleep', '60'])\nprint(p.pid, flush=True)\n"
                    "time.sleep(60)", timeout=1)
    assert f.timed_out and f.returncode is None
    sleeper = int(f.stdout)
    deadline = time.monotonic() + 5
    while os.path.exists(f"/proc/{sleeper}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{sleeper}")
    assert run(server, "print('next')").stdout == "next\n"
    stand = _forked_python.subprocess_through(server)
    with pytest.raises(subprocess.TimeoutExpired):
        stand.run([sys.executable, "-c", "import time; time.sleep(60)"], capture_output=True, text=True, timeout=1)


def test_what_only_a_fresh_interpreter_can_apply_is_not_forked(server):
    env = dict(os.environ, PYTHONHASHSEED="123" if os.environ.get("PYTHONHASHSEED") != "123" else "7")
    assert server.run([sys.executable, "-c", "pass"], env) is None
    assert server.run([sys.executable, "-m", "json.tool"], dict(os.environ)) is None


def test_what_the_imports_printed_is_printed_again_and_import_time_variables_are_the_servers(tmp_path):
    """`replay_import_output`: each child prints what the preloaded imports printed, as a fresh interpreter
    importing them first would; tempfile's folder, looked up by the server's import, is the child's TMPDIR's;
    a variable the server names in `same_vars` must be the server's for the request to fork."""
    (tmp_path / "loud.py").write_text("import sys, tempfile\nprint('loaded')\nprint('warned', file=sys.stderr)\n"
                                      "tempfile.gettempdir()\n")
    (tmp_path / "tmp").mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    s = _forked_python.Server(["loud"], env, same_vars=lambda name: name == "QDX_LOUD", replay_import_output=True)
    try:
        if s.proc is None:
            pytest.skip("forking is off here (QDX_TEST_FORK_SUBPROCESS=1 or no fork)")
        cmd = [sys.executable, "-c", "import loud, tempfile; print(tempfile.gettempdir())"]
        env = dict(env, TMPDIR=str(tmp_path / "tmp"))
        fresh = subprocess.run(cmd, env=env, capture_output=True, text=True)
        forked = s.run(cmd, env)
        assert (forked.stdout, forked.stderr) == (fresh.stdout, fresh.stderr) == (f"loaded\n{tmp_path / 'tmp'}\n",
                                                                                 "warned\n")
        assert s.run(cmd, dict(env, QDX_LOUD="1")) is None
    finally:
        s.close()
