"""A damaged history is never written into, `runs --repair` copies what is readable into a new
file and keeps the old one, and "damaged" is said only when SQLite's check fails."""
from pathlib import Path

import pytest

from qdexplorer.bench.context import RunContext
from qdexplorer.bench.history import History, HistoryError
from qdexplorer.bench.history_repair import repair
from qdexplorer.bench.run import Launch, Run
from qdexplorer.cli import main


def _run(name: str, n: int = 400, ms: float = 1.0) -> Run:
    return Run(name, RunContext(backend="cpu", device="x"), [Launch("t", "k", "w", r, ms, 1, 1) for r in range(n)])


def _damaged(path: Path, runs: int = 6) -> None:
    with History(path) as h:
        for k in range(runs):
            h.save(_run(f"r{k}", ms=1.0 + k))
        h.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    for page in range(2, len(data) // 4096, 3):    # the header (page 1) intact: SQLite opens it
        data[page * 4096 + 100:page * 4096 + 600] = b"\xa5" * 500
    path.write_bytes(bytes(data))


def test_a_damaged_history_is_never_written_into(tmp_path):
    db = tmp_path / "h.sqlite"
    _damaged(db)
    before = db.read_bytes()
    with History(db) as h:   # reading still works: what is readable is listed
        with pytest.raises(HistoryError, match="is damaged .*nothing was written.*runs --repair"):
            h.save(_run("after"))
        with pytest.raises(HistoryError, match="is damaged"):
            h.begin(_run("streamed"))
    assert db.read_bytes() == before


def test_a_sound_history_is_checked_once_and_written(tmp_path):
    with History(tmp_path / "h.sqlite") as h:
        h.save(_run("a"))
        assert h._checked and h.integrity_problem() is None
        h.save(_run("b"))
        assert [s.label for s in h.list()] == ["a", "b"]


def test_repair_copies_the_readable_runs_and_keeps_the_damaged_file(tmp_path):
    db = tmp_path / "h.sqlite"
    _damaged(db)
    with History(db) as h:
        readable = {s.label for s in h.list(warn=False)}
    done = repair(db)
    assert done.problem and done.kept_as is not None and done.kept_as.exists()
    assert len(done.copied) + len(done.lost) == 6 and done.copied
    with History(db) as h:
        assert h.integrity_problem() is None
        assert {s.label for s in h.list()} == readable
        h.save(_run("after"))   # the repaired file takes writes again
    assert "damaged" in done.summary() and str(done.kept_as) in done.summary()


def test_runs_repair_on_a_sound_history_changes_nothing(tmp_path, capsys, monkeypatch):
    proj = tmp_path / "p"
    (proj / ".qdexplorer").mkdir(parents=True)
    (proj / "k.py").write_text("")
    db = proj / ".qdexplorer" / "history.sqlite"
    with History(db) as h:
        h.save(_run("a"))
    assert main(["runs", str(proj), "--repair"]) == 0
    assert "passes SQLite's integrity check" in capsys.readouterr().err
    assert sorted(p.name for p in db.parent.iterdir() if "damaged" in p.name) == []


def test_a_count_mismatch_on_a_sound_file_does_not_say_damaged(tmp_path):
    with History(tmp_path / "h.sqlite") as h:
        run = _run("a", n=10)
        h.save(run)
        run.launches.append(run.launches[0])   # what the writer believes differs from the file
        with pytest.raises(HistoryError) as e:
            h.verify(run)
    assert "damaged" not in str(e.value) and "passes SQLite's integrity check" in str(e.value)
