"""The run history is as robust as its schema (issue 21): damaged runs are skipped with one line, a
save is verified readable, reserved names are refused, a concurrent delete loses nothing, and a
failing disk, permission or size limit each get their own message naming the file."""
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from qdexplorer.bench.context import RunContext
from qdexplorer.bench.history import History, HistoryError
from qdexplorer.bench.run import Launch, Run

from .conftest import make_run
from .test_cli_bench import ROOT, cli, saved_project

SPIN = """\
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
"""


def _one_line_error(p, *needles):
    assert "Traceback" not in p.stderr + p.stdout, p.stderr
    assert p.returncode == 2, (p.returncode, p.stderr)
    msg = [ln for ln in p.stderr.splitlines() if ln.startswith("qdexplorer:") and "importing" not in ln]
    assert len(msg) == 1 and all(n in msg[0] for n in needles), p.stderr


def test_bad_json_in_a_context_is_skipped_with_one_warning(tmp_path):
    proj = saved_project(tmp_path)
    db = proj / ".qdexplorer" / "history.sqlite"
    con = sqlite3.connect(db)
    con.execute("UPDATE runs SET context = '{broken' WHERE name = 'rerun'")
    con.commit()
    con.close()
    p = cli("runs", proj)
    assert p.returncode == 0 and "Traceback" not in p.stderr
    assert [ln.split()[0] for ln in p.stdout.splitlines()] == ["name", "base", "slow"]   # the header, then the runs
    warn = [ln for ln in p.stderr.splitlines() if "#2" in ln]
    assert len(warn) == 1 and "damaged" in warn[0] and "skipped" in warn[0]
    _one_line_error(cli("export", proj, "rerun", "--json", tmp_path / "o.json"), "#2", "damaged")
    assert cli("export", proj, "base", "--json", tmp_path / "o.json").returncode == 0


def _damage(db, breaks: str, keeps: tuple):
    """Overwrite the first page whose loss breaks query `breaks` but none of `keeps` (found by trying)."""
    orig = db.read_bytes()
    for page in range(1, len(orig) // 4096):
        data = bytearray(orig)
        data[page * 4096:(page + 1) * 4096] = b"\xa5" * 4096
        db.write_bytes(bytes(data))
        con = sqlite3.connect(db)
        try:
            for q in keeps:
                con.execute(q).fetchall()
            try:
                con.execute(breaks).fetchall()
            except sqlite3.DatabaseError:
                return
        except sqlite3.DatabaseError:
            pass
        finally:
            con.close()
    raise AssertionError("no page found")


def _six_runs(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    db = proj / ".qdexplorer" / "history.sqlite"
    with History(db) as h:
        for k in range(6):
            h.save(make_run(f"r{k}", repeat=400, seed=k))
        h.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return proj, db


def test_a_damaged_launch_page_fails_that_run_only(tmp_path):
    proj, db = _six_runs(tmp_path)
    _damage(db, "SELECT * FROM launches WHERE run_id = 3",
            ("SELECT id, context FROM runs", "SELECT * FROM launches WHERE run_id = 1",
             "SELECT COUNT(*), COUNT(DISTINCT task) FROM launches WHERE run_id = 3"))
    p = cli("runs", proj)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    _one_line_error(cli("export", proj, "r2", "--json", tmp_path / "o.json"), "#3", "damaged", str(db))
    assert cli("export", proj, "r0", "--json", tmp_path / "o.json").returncode == 0


def test_a_damaged_index_page_skips_the_runs_it_holds_with_one_line_each(tmp_path):
    proj, db = _six_runs(tmp_path)
    _damage(db, "SELECT COUNT(*) FROM launches WHERE run_id = 1",
            ("SELECT id, context FROM runs", "SELECT COUNT(*) FROM launches WHERE run_id = 6"))
    p = cli("runs", proj)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    listed = [ln.split()[0] for ln in p.stdout.splitlines()]
    assert "r0" not in listed and "r5" in listed
    warn = [ln for ln in p.stderr.splitlines() if "#1" in ln]
    assert len(warn) == 1 and "damaged" in warn[0] and "skipped" in warn[0]


def test_latest_with_a_bad_offset_is_one_message(tmp_path):
    proj = saved_project(tmp_path)
    for ref in ("latest~abc", "latest~-1", "latest~"):
        _one_line_error(cli("export", proj, ref, "--json", tmp_path / "o.json"), ref)


def test_reserved_names_are_refused(tmp_path):
    proj = saved_project(tmp_path)
    with History(proj / ".qdexplorer" / "history.sqlite") as h:
        for name in ("latest", "latest~1", "now", "generated"):
            with pytest.raises(HistoryError, match="not allowed"):
                h.save(make_run(name))
            with pytest.raises(HistoryError, match="not allowed"):
                h.rename("base", name)
    _one_line_error(cli("runs", proj, "--rename", "slow", "latest~1"), "latest~1")
    assert cli("export", proj, "latest", "--json", tmp_path / "o.json").returncode == 0


def test_a_concurrent_delete_is_refused_while_the_writer_lives_and_loses_nothing(tmp_path):
    path = tmp_path / "h.sqlite"
    with History(path) as h:
        w = h.begin(Run("streaming", RunContext(backend="cpu")))
        w.add([Launch("t", "k", "w", 0, 1.0, 1, 1)] * 10)
        with History(path) as other:
            with pytest.raises(HistoryError, match="being written"):
                other.delete("streaming")
            other.db.execute("DELETE FROM runs WHERE name = 'streaming'")  # an older qdexplorer, or sqlite3
        w.add([Launch("t", "k", "w", 1, 2.0, 1, 1)] * 10)
        run = w.finish("complete")
        back = h.load(run.id)
        assert back.name == "streaming" and len(back.launches) == 20
        assert "deleted while it was being written" in back.message


def test_an_interrupted_bench_keeps_its_context(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "k.py").write_text(SPIN)
    env = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.Popen([sys.executable, "-m", "qdexplorer.cli", "bench", str(proj), "--save", "cut",
                          "--timeout", "600"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    db = proj / ".qdexplorer" / "history.sqlite"
    end = time.monotonic() + 120
    while time.monotonic() < end:
        time.sleep(0.5)
        try:
            with History(db) as h:
                if h.list():
                    break
        except HistoryError:
            pass
    time.sleep(2)
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=60)
    finally:   # a bench that ignored the signal must not spin on for the rest of the suite
        if p.poll() is None:
            p.kill()
            _, err = p.communicate()
            pytest.fail(f"the bench went on for 60 s after SIGINT: {err[-2000:]}")
    with History(db) as h:
        run = h.load("cut")
    assert run.status == "stopped"
    c = run.context
    assert c.device and c.arch and c.mode and c.backend and c.project, c


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv")
def test_an_unwritable_history_names_the_file():
    import tempfile
    from pathlib import Path
    base = Path(tempfile.mkdtemp(prefix="qdx-ro-", dir="/tmp"))
    base.chmod(0o755)
    try:
        _unwritable(base)
    finally:
        for p in base.rglob("*"):
            if p.is_dir():
                p.chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)


def _unwritable(tmp_path):
    proj = saved_project(tmp_path)
    state = proj / ".qdexplorer"
    for p in (proj, state, *state.iterdir()):
        os.chown(p, 65534, 65534)
    (state / "history.sqlite").chmod(0o444)
    e = dict(os.environ, PYTHONPATH=ROOT, HOME="/tmp")
    p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                        "qdexplorer.cli", "runs", str(proj), "--rename", "base", "renamed"],
                       capture_output=True, text=True, env=e, timeout=120)
    _one_line_error(p, str(state / "history.sqlite"), "read-only")


def test_a_file_size_limit_is_named_and_the_history_stays_intact(tmp_path):
    proj = saved_project(tmp_path)
    db = proj / ".qdexplorer" / "history.sqlite"
    limit = db.stat().st_size + 8192

    def cap():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    big = ["-c", "import sys; from qdexplorer.bench.history import History; from tests.bench.conftest import "
                 "make_run; h = History(sys.argv[1]); h.save(make_run('big', repeat=2000))"]
    code = ("import sys\nfrom qdexplorer.bench.history import History, HistoryError\n"
            "sys.path.insert(0, sys.argv[2])\nfrom tests.bench.conftest import make_run\n"
            "try:\n    History(sys.argv[1]).save(make_run('big', repeat=2000))\n"
            "except HistoryError as e:\n    print(e, file=sys.stderr)\n    sys.exit(2)\n")
    del big
    p = subprocess.run([sys.executable, "-c", code, str(db), ROOT], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT), preexec_fn=cap, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert str(db) in p.stderr and "file-size limit" in p.stderr, p.stderr
    with History(db) as h:
        assert [s.label for s in h.list()] == ["base", "rerun", "slow"]
        assert h.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_names_with_control_characters_are_refused(tmp_path):
    """A newline in a name would forge lines in `runs` (own case, issue 21)."""
    with History(tmp_path / "h.sqlite") as h:
        for name in ("a\nb  #9  2026-01-01", "tab\there", "bell\x07"):
            with pytest.raises(HistoryError, match="control character"):
                h.save(make_run(name))
