"""`qdexplorer quadrants` owns the program's whole process group (issue 21): nothing it started
outlives the command (SIGTERM, Ctrl-C, timeout, or a normal exit), a descendant holding stdout
does not make a finished program wait out the timeout, and no output is dropped silently."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from qdexplorer.quadrants import run_program

from .conftest import ROOT, needs_quadrants, program

pytestmark = needs_quadrants

SPAWNS = textwrap.dedent("""\
    import subprocess, sys
    import quadrants as qd
    qd.init(arch=qd.cpu)
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]{redirect})
    open(sys.argv[1], "w").write(str(helper.pid))
    print("started", flush=True)
    """)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _gone(pid: int, seconds: float = 10) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_kills_the_program_and_its_children_and_leaves_no_files(tmp_path, sig):
    pidfile, tmp = tmp_path / "helper.pid", tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, PYTHONPATH=ROOT, TMPDIR=str(tmp))
    p = subprocess.Popen([sys.executable, "-m", "qdexplorer.cli", "quadrants", program("sleepy.py"), "--dump",
                          str(tmp_path / "dump"), "--timeout", "120", "--", str(pidfile)],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    end = time.monotonic() + 60
    while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < end:
        time.sleep(0.1)
    helper = int(pidfile.read_text())
    p.send_signal(sig)
    p.wait(30)
    assert p.returncode == 128 + sig
    assert _gone(helper), "the program's helper outlived the command"
    time.sleep(1)  # a surviving child would write its result file now
    assert not list(tmp.iterdir())


def test_background_children_of_a_finished_program_are_ended(tmp_path):
    (tmp_path / "p.py").write_text(SPAWNS.format(redirect=", stdout=subprocess.DEVNULL"))
    r = run_program(tmp_path / "p.py", [str(tmp_path / "pid")], arch="cpu", timeout=120)
    assert r.ok, r.error
    assert _gone(int((tmp_path / "pid").read_text()))
    assert any("left background processes running" in w for w in r.warnings)
    r = run_program(tmp_path / "p.py", [str(tmp_path / "pid")], arch="cpu", timeout=120, keep_children=True)
    helper = int((tmp_path / "pid").read_text())
    assert r.ok and _alive(helper)
    os.kill(helper, signal.SIGKILL)


def test_a_child_holding_stdout_does_not_make_a_finished_program_wait(tmp_path):
    (tmp_path / "p.py").write_text(SPAWNS.format(redirect=""))  # the helper inherits stdout
    r = run_program(tmp_path / "p.py", [str(tmp_path / "pid")], arch="cpu", timeout=90)
    assert r.ok and not r.timed_out, r.error   # waiting on the helper's stdout would time out
    assert "started" in r.stdout
    assert _gone(int((tmp_path / "pid").read_text()))


def test_output_past_the_limit_is_kept_whole_in_a_file_and_said(tmp_path):
    (tmp_path / "p.py").write_text(textwrap.dedent("""\
        import sys
        import quadrants as qd
        qd.init(arch=qd.cpu)
        sys.stdout.write("FIRST LINE\\n" + "x" * (6 << 20) + "\\nLAST LINE\\n")
        """))
    r = run_program(tmp_path / "p.py", arch="cpu", timeout=120)
    assert r.ok, r.error
    assert "LAST LINE" in r.stdout and "FIRST LINE" not in r.stdout
    note = next(w for w in r.warnings if "stdout" in w and "truncated" in w)
    path = note.split("full output is in ")[1].split()[0].rstrip(")")
    with open(path) as fh:
        whole = fh.read()
    assert "FIRST LINE" in whole and whole.endswith("LAST LINE\n") and len(whole) > 6 << 20
    os.unlink(path)


DAEMONS = textwrap.dedent("""\
    import os, subprocess, sys
    import quadrants as qd
    qd.init(arch=qd.cpu)
    kept = subprocess.Popen(["sleep", "600"], start_new_session=True)   # setsid: out of the group
    pid = os.fork()
    if pid == 0:   # a daemon that also clears its environment: found as an orphan re-parented to us
        os.setsid()
        os.execve("/bin/sleep", ["sleep", "601"], {})
    open(sys.argv[1], "w").write(f"{kept.pid} {pid}")
    """)


@pytest.mark.parametrize("keep", [False, True])
def test_a_setsid_daemon_is_named_and_ended_unless_kept(tmp_path, keep):
    (tmp_path / "p.py").write_text(DAEMONS)
    r = run_program(tmp_path / "p.py", [str(tmp_path / "pid")], arch="cpu", timeout=120, keep_children=keep)
    assert r.ok, r.error
    pids = [int(p) for p in (tmp_path / "pid").read_text().split()]
    note = next(w for w in r.warnings if "outside its process group" in w)
    assert all(f"pid {p} (sleep 60" in note for p in pids), note
    if keep:
        assert "still running" in note and all(_alive(p) for p in pids)
        for p in pids:
            os.kill(p, signal.SIGKILL)
    else:
        assert "ended" in note and all(_gone(p, 5) for p in pids)
