"""Importing a project leaves the process as it found it (issue 21, own cases): a kernel file that
changes the working folder, ignores SIGTERM or starts a thread that never ends cannot redirect the
CLI's output, make it unstoppable, or keep it from exiting."""
import os
import signal
import subprocess
import sys
import time

from tests.project.test_bad_projects import INC
from tests.cli.test_cli import ROOT, cli

# What an import leaves behind (a moved working folder, a thread, an exit handler) is the process's: these
# run the real command (subprocess=True), not cli()'s in-process one (tests/_cli.py)


def _project(tmp_path, tail):
    p = tmp_path / "p"
    p.mkdir()
    (p / "k.py").write_text(INC + "\n" + tail + "\n")
    return p


def test_a_chdir_at_import_does_not_move_relative_paths(tmp_path):
    p = _project(tmp_path, f"import os\nos.chdir({str(tmp_path / 'elsewhere')!r})")
    (tmp_path / "elsewhere").mkdir()
    r = cli("compile", str(p), "--dump", "reldump", cwd=tmp_path, subprocess=True)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "reldump").is_dir() and not (tmp_path / "elsewhere" / "reldump").exists()


def test_a_project_that_ignores_sigterm_is_still_stopped_by_it(tmp_path):
    mark = tmp_path / "imported"
    p = _project(tmp_path, f"import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nopen({str(mark)!r}, 'w').close()")
    proc = subprocess.Popen([sys.executable, "-m", "qdexplorer.cli", "run", str(p), "--repeat", "100000000"],
                            env=dict(os.environ, PYTHONPATH=ROOT), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t0 = time.monotonic()
    while not mark.exists() and time.monotonic() - t0 < 120:   # the project's import ran (however loaded the machine)
        time.sleep(0.1)
    time.sleep(3)  # compiled, running
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(30)
    finally:
        proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM


def test_a_thread_left_running_by_the_import_does_not_hold_the_exit(tmp_path):
    p = _project(tmp_path, "import threading, time\nthreading.Thread(target=lambda: time.sleep(600)).start()")
    r = cli("compile", str(p), subprocess=True)   # the thread sleeps 600 s, past cli()'s own timeout: waiting on it fails
    assert r.returncode == 0 and "thread" in r.stderr and "still running" in r.stderr, r.stderr


def test_a_nan_import_timeout_is_one_message(tmp_path):
    p = _project(tmp_path, "")
    r = cli("compile", str(p), env={"QDEXPLORER_IMPORT_TIMEOUT": "nan"})
    assert r.returncode == 2 and "Traceback" not in r.stderr and "QDEXPLORER_IMPORT_TIMEOUT" in r.stderr, r.stderr


def test_an_exit_handler_registered_by_the_import_gets_a_deadline(tmp_path):
    p = _project(tmp_path, "import atexit, time\natexit.register(lambda: time.sleep(600))")
    r = cli("compile", str(p), subprocess=True)   # the handler sleeps 600 s, past cli()'s own timeout: waiting on it fails
    assert r.returncode == 0 and "exit handler" in r.stderr and "did not finish" in r.stderr, r.stderr


def test_an_exit_handler_that_finishes_still_runs(tmp_path):
    marker = tmp_path / "ran"
    p = _project(tmp_path, f"import atexit\natexit.register(lambda: open({str(marker)!r}, 'w').write('x'))")
    r = cli("compile", str(p), subprocess=True)
    assert r.returncode == 0 and marker.exists(), r.stderr
