"""A sweep's resume plan is input (a user can edit the history): each field is checked when read,
and a bad one is one message naming the file and what to do, never a traceback, a hang, a silent
exit or unfinished runs marked complete (issue 41). And long work stops: a billion rounds build
nothing of their size, and the sweep ends within 2 s of SIGINT/SIGTERM keeping what it measured."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import tracemalloc

import pytest

from qdexplorer.bench.history import History
from qdexplorer.bench.sweep import parse_over, project_defaults, resume, sweep
from qdexplorer.bench.sweep_lanes import Plan, Side, finish
from qdexplorer.engine import Engine
from qdexplorer.ir.errors import QdError
from tests.cli.test_cli import ROOT
from tests.remote.projects import scale_project


@pytest.fixture(scope="module")
def stopped_sweep(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sweep")
    stop = threading.Event()
    with Engine(scale_project(tmp / "p"), backend="cpu", in_process=True, cache_dir=str(tmp / "c")) as eng, \
            History(tmp / "h.sqlite") as h:
        sweep([eng], parse_over(["block_dim=64,256"]), project_defaults(eng), rounds=3, per_round=1, name="r",
              history=h, on_progress=lambda done, total: stop.set() if done >= 1 else None, stop=stop)
    return tmp


BAD = [("rounds", "abc"), ("rounds", 10**30), ("rounds", -5), ("per_round", 0), ("warmup", float("nan")),
       ("seed", -1), ("flush_l2", "yes"), ("workloads", 7), ("rounds", None)]


@pytest.mark.parametrize("field,value", BAD, ids=[f"{f}={v!r}" for f, v in BAD])
def test_an_edited_resume_plan_is_refused_naming_the_file(stopped_sweep, tmp_path, field, value):
    db = tmp_path / "h.sqlite"
    db.write_bytes((stopped_sweep / "h.sqlite").read_bytes())
    con = sqlite3.connect(db)
    for rid, ctx in con.execute("SELECT id, context FROM runs").fetchall():
        c = json.loads(ctx)
        c["sweep_plan"][field] = value
        con.execute("UPDATE runs SET context = ? WHERE id = ?", (json.dumps(c), rid))
    con.commit()
    con.close()
    with Engine(scale_project(tmp_path / "p"), backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng, \
            History(db) as h:
        before = [(s.id, s.status, s.launches) for s in h.list()]
        t0 = time.monotonic()
        with pytest.raises(QdError) as e:
            resume([eng], h, "r")
        assert time.monotonic() - t0 < 5
        msg = str(e.value)
        assert str(db) in msg and field in msg and "\n" not in msg, msg
        assert [(s.id, s.status, s.launches) for s in h.list()] == before   # nothing marked complete


def test_finishing_a_billion_round_plan_builds_nothing_of_its_size():
    class Dead:   # a device that is gone: finish keeps the context the run began with
        def variant(self, **kw):
            raise RuntimeError("gone")
    from qdexplorer.bench.run import Run
    from qdexplorer.bench.sweep_variant import Variant
    side = Side(Variant(()), True, run=Run("x"), begun=True)
    side.have = {0, 1}
    tracemalloc.start()
    t0 = time.monotonic()
    finish([Dead()], [[side]], Plan("big", 10**9, 1, 0, 0, False, None), None, {}, KeyboardInterrupt(2))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert time.monotonic() - t0 < 1 and peak < 10 << 20, peak
    assert side.run.status == "interrupted" and "2 of 1000000000 rounds" in side.run.message


@pytest.mark.parametrize("sig", [signal.SIGTERM])
def test_a_billion_round_sweep_stops_within_2_s_keeping_its_turns(tmp_path, sig):
    proj = scale_project(tmp_path / "p")
    env = dict(os.environ, PYTHONPATH=ROOT, QDEXPLORER_DATA_DIR=str(tmp_path / "data"))
    p = subprocess.Popen([sys.executable, "-m", "qdexplorer.cli", "sweep", str(proj), "--over", "block_dim=64,128",
                          "--rounds", "1000000000", "--repeat", "1", "--warmup", "0", "--save", "big",
                          "--in-process", "--cache-dir", str(tmp_path / "c")],
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    try:
        lines = []
        while not lines or "sweep: 1/" not in lines[-1]:   # "sweep: 1/2000000000 variant turns": measuring
            lines.append(p.stderr.readline())
            assert lines[-1], lines
        time.sleep(0.5)
        t0 = time.monotonic()
        p.send_signal(sig)
        rc = p.wait(timeout=30)
        took = time.monotonic() - t0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    err = p.stderr.read()
    assert rc == 128 + sig and took < 2.0, (rc, took, err[-2000:])
    assert "Traceback" not in err and "--resume big" in err
    data = proj / ".qdexplorer" / "history.sqlite"
    with History(data) as h:
        runs = h.list()
    assert len(runs) == 2 and all(r.status == "interrupted" and r.launches >= 1 for r in runs), runs


def test_a_billion_repeat_run_stops_within_2_s(tmp_path):
    """The device worker is in its launch loop when Ctrl-C comes: it is ended, not waited for (2.6 s
    before: closing the engine waited 2 s for it to take its exit message)."""
    proj = scale_project(tmp_path / "p")
    env = dict(os.environ, PYTHONPATH=ROOT, QDEXPLORER_DATA_DIR=str(tmp_path / "data"))
    p = subprocess.Popen([sys.executable, "-m", "qdexplorer.cli", "run", str(proj), "--repeat", "1000000000",
                          "--cache-dir", str(tmp_path / "c")],
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    try:
        assert "importing" in p.stderr.readline()
        time.sleep(4)   # compiled, loaded and launching (on a loaded 2-core VM)
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        rc = p.wait(timeout=30)
        took = time.monotonic() - t0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    err = p.stderr.read()
    assert rc == 130 and took < 2.0 and "Traceback" not in err, (rc, took, err[-2000:])
