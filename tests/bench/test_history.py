"""The run history in a real SQLite file: round trip, names, migration, and a writer killed mid-way."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from qdexplorer.bench.history import History, HistoryError
from qdexplorer.project.data_folder import history_path
from qdexplorer.bench.schema import LATEST, MIGRATIONS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_round_trip_keeps_every_launch_and_the_context(tmp_path, runs):
    path = tmp_path / "h.sqlite"
    run = runs("baseline")
    with History(path) as h:
        rid = h.save(run)
    with History(path) as h:  # a fresh connection reads what was committed
        back = h.load("baseline")
        assert back.id == rid and back.name == "baseline" and back.status == "complete"
        assert back.launches == run.launches
        assert back.context == run.context and back.compile == run.compile
        assert h.load(f"#{rid}").launches == run.launches and h.load(str(rid)).name == "baseline"
        [s] = h.list()
        assert (s.label, s.launches, s.tasks, s.backend, s.git) == ("baseline", 60, 2, "cpu", "0123456789+dirty")


def test_names_list_rename_delete(tmp_path, runs):
    with History(tmp_path / "h.sqlite") as h:
        h.save(runs("a"))
        h.save(runs(None))
        h.save(runs("c"))
        assert [s.label for s in h.list()] == ["a", "#2", "c"]
        assert h.load("latest").name == "c" and h.load("latest~2").name == "a"
        with pytest.raises(HistoryError, match="already exists"):
            h.save(runs("a"))
        assert [s.label for s in h.list()] == ["a", "#2", "c"]  # the failed save left nothing behind
        with pytest.raises(HistoryError, match="not allowed"):
            h.save(runs("#7"))
        h.rename("#2", "b")
        with pytest.raises(HistoryError, match="already exists"):
            h.rename("b", "c")
        h.delete("a")
        assert [s.label for s in h.list()] == ["b", "c"]
        with pytest.raises(HistoryError, match="no run 'a'.*recent: b, c"):
            h.load("a")
        # launches went with their run (foreign key cascade)
        assert h.db.execute("SELECT COUNT(*) FROM launches").fetchone()[0] == 120


def test_task_history_gives_one_median_per_run(tmp_path, runs):
    with History(tmp_path / "h.sqlite") as h:
        for i, s in enumerate((1.0, 1.5, 2.0)):
            h.save(runs(f"r{i}", scale={"k_kernel_0_range_for": s}))
        hist = h.task_history("k_kernel_0_range_for")
        assert [row[1] for row in hist] == ["r0", "r1", "r2"]
        assert [round(row[3], 1) for row in hist] == [1.0, 1.5, 2.0] and all(row[4] == 30 for row in hist)
        assert h.tasks() == ["k_kernel_0_range_for", "k_kernel_1_serial"]


def test_version_1_database_is_migrated(tmp_path, runs):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(MIGRATIONS[0][1])  # what the first released schema wrote
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO runs (name, created, context) VALUES ('old', 1.0, ?)",
               (json.dumps({"backend": "cpu"}),))
    db.executemany("INSERT INTO launches VALUES (1, ?, 't', 'k', 'w', ?, ?, 1, 1)",
                   [(i, i, 1.0 + i) for i in range(5)])
    db.commit()
    db.close()
    with History(path) as h:
        assert h.version == LATEST == 3
        old = h.load("old")
        assert old.status == "complete" and old.compile == {} and [ln.ms for ln in old.launches] == [1, 2, 3, 4, 5]
        h.save(runs("new"))  # the new columns and tables work on the migrated file
        assert h.load("new").compile
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def version_2_database(path, runs):
    """A history as qdexplorer wrote it before rounds: a plain bench run (one block of 30 repeats)
    and the two sides of an interleaved comparison (6 rounds of 5 repeats, per_round in the context)."""
    db = sqlite3.connect(path)
    for _, script in MIGRATIONS[:2]:
        db.executescript(script)
    db.execute("PRAGMA user_version = 2")
    for name, run in (("plain", runs(seed=1, rounds=None)), ("side-A", runs(seed=2, rounds=6)),
                      ("side-B", runs(seed=3, rounds=6, scale={"k_kernel_0_range_for": 1.5}))):
        ctx = run.context.to_dict()
        ctx.pop("pair")
        if name == "plain":
            ctx["rounds"] = ctx["per_round"] = None
        else:
            ctx["interleaved_with"] = "the other side"
        rid = db.execute("INSERT INTO runs (name, created, context) VALUES (?, 1.0, ?)",
                         (name, json.dumps(ctx))).lastrowid
        db.executemany("INSERT INTO launches (run_id, seq, task, kernel, workload, repeat, ms, grid, block, cpu_ms) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       [(rid, i, ln.task, ln.kernel, ln.workload, ln.repeat, ln.ms, ln.grid, ln.block, None)
                        for i, ln in enumerate(run.launches)])
    db.commit()
    db.close()


def test_version_2_runs_load_with_their_rounds_or_as_rounds_unknown(tmp_path, runs):
    from qdexplorer.bench.compare import compare_runs
    path = tmp_path / "v2.sqlite"
    version_2_database(path, runs)
    with History(path) as h:
        assert h.version == LATEST == 3
        plain, a, b = h.load("plain"), h.load("side-A"), h.load("side-B")
        assert {s.name: s.rounds for s in h.list()} == {"plain": None, "side-A": None, "side-B": None}
    assert all(ln.round is None for r in (plain, a, b) for ln in r.launches)  # nothing guessed into the file
    # an old interleaved side was made in blocks of per_round repeats: one round per block
    assert a.rounds_known and list(a.round_samples("k_kernel_0_range_for")) == list(range(6))
    assert [len(x) for x in a.round_samples("k_kernel_0_range_for").values()] == [5] * 6
    # an old plain run was one block of launches in time: one round, and its changes read unsure
    assert not plain.rounds_known and [len(x) for x in plain.round_samples("k_kernel_0_range_for").values()] == [30]
    assert compare_runs(a, b).task("k_kernel_0_range_for").verdict == "slower"
    old = compare_runs(plain, b)
    assert old.task("k_kernel_0_range_for").verdict == "unsure"
    assert "before runs were recorded in rounds" in old.warnings[0]


def test_rounds_round_trip(tmp_path, runs):
    with History(tmp_path / "h.sqlite") as h:
        h.save(runs("r", rounds=6, repeat=30, pair="p"))
        back = h.load("r")
        assert [ln.round for ln in back.launches][::10] == list(range(6))  # 2 tasks x 5 repeats a round
        assert back.context.pair == "p" and back.context.rounds == 6
        assert h.list()[0].rounds == 6


def test_newer_or_foreign_files_are_refused_clearly(tmp_path):
    newer = tmp_path / "newer.sqlite"
    db = sqlite3.connect(newer)
    db.execute("PRAGMA user_version = 99")
    db.commit()
    db.close()
    with pytest.raises(HistoryError, match="newer qdexplorer"):
        History(newer)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(HistoryError, match="not a usable qdexplorer history"):
        History(junk)


WRITER = """
import sys
from qdexplorer.bench.history import History
from qdexplorer.bench.context import RunContext
from qdexplorer.bench.run import Launch, Run
h = History(sys.argv[1])
w = h.begin(Run("streaming", RunContext(backend="cpu")))
batch = 0
while True:
    w.add([Launch("t", "k", "w", batch, float(i), 1, 1) for i in range(500)])
    batch += 1
    if batch == 3:
        print("committed", flush=True)
"""


def test_a_writer_killed_mid_run_leaves_a_consistent_database(tmp_path, runs):
    path = tmp_path / "h.sqlite"
    with History(path) as h:
        h.save(runs("before"))
    p = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ, PYTHONPATH=ROOT))
    assert p.stdout.readline().strip() == "committed"
    p.send_signal(signal.SIGKILL)  # no chance to finish, roll back or close
    p.wait()
    with History(path) as h:
        assert h.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        run = h.load("streaming")
        assert run.status == "interrupted"  # its writer is gone
        assert len(run.launches) >= 1500 and len(run.launches) % 500 == 0  # whole batches only
        assert [ln.repeat for ln in run.launches[::500]] == list(range(len(run.launches) // 500))
        assert len(h.load("before").launches) == 60
        assert {s.label: s.status for s in h.list()} == {"before": "complete", "streaming": "interrupted"}


def test_history_location(tmp_path, monkeypatch, demo_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "k.py").write_text("")
    assert history_path(proj) == proj / ".qdexplorer" / "history.sqlite"
    assert history_path(proj / "k.py") == proj / ".qdexplorer" / "history.sqlite"
    monkeypatch.setenv("QDEXPLORER_DATA_DIR", str(tmp_path / "data"))
    demo = history_path(None)  # the bundled demo is inside the package: never written into
    assert demo == history_path(demo_path)
    assert str(demo).startswith(str(tmp_path / "data" / "projects" / "demo-"))
    from qdexplorer.ir.errors import QdError
    with pytest.raises(QdError, match="does not exist"):
        history_path(tmp_path / "missing")
