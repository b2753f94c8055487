"""A history is a file that may not be ours (issue 41): read-only commands open it read-only and
never migrate it; files we create carry our application_id; a file that is not ours (another
application_id, or tables of its own) is refused untouched; a migration keeps a backup first."""
import hashlib
import sqlite3

import pytest

from qdexplorer.bench.context import RunContext
from qdexplorer.bench.history import APPLICATION_ID, History, HistoryError
from qdexplorer.bench.run import Launch, Run
from qdexplorer.bench.schema import LATEST, MIGRATIONS
from qdexplorer.cli import main


def _digest(p):
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _run(name="a"):
    return Run(name, RunContext(backend="cpu", device="x"), [Launch("t", "k", "w", 0, 1.0, 1, 1, None, 0)])


def _project(tmp_path):
    proj = tmp_path / "proj"
    (proj / ".qdexplorer").mkdir(parents=True)
    (proj / "k.py").write_text("")
    return proj, proj / ".qdexplorer" / "history.sqlite"


def _foreign(db, how):
    con = sqlite3.connect(db)
    if how == "other columns":
        con.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, owner TEXT, secret TEXT)")
        con.execute("INSERT INTO runs (owner, secret) VALUES ('bob', 'x')")
    elif how == "same tables, version 0":
        for stmt in MIGRATIONS[0][1].split(";"):
            if stmt.strip():
                con.execute(stmt)
    else:
        con.execute("PRAGMA application_id = 1234")
        con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()


@pytest.mark.parametrize("how", ["other columns", "same tables, version 0", "another application"])
@pytest.mark.parametrize("cmd", [["runs"], ["runs", "--json"], ["export", "latest", "--json", "OUT"],
                                 ["bench", "--workload", "nope", "--in-process"]])
def test_a_history_that_is_not_ours_is_refused_untouched(tmp_path, how, cmd, capsys):
    proj, db = _project(tmp_path)
    _foreign(db, how)
    before = _digest(db)
    args = [a if a != "OUT" else str(tmp_path / "o.json") for a in cmd]
    rc = main([*args[:1], str(proj), *args[1:]])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err, (rc, err)
    assert str(db) in err and "not a qdexplorer run history" in err, err
    assert _digest(db) == before and not list(db.parent.glob("history.sqlite-*"))   # no WAL switched on


def test_created_histories_carry_the_application_id(tmp_path):
    with History(tmp_path / "h.sqlite") as h:
        h.save(_run())
    con = sqlite3.connect(tmp_path / "h.sqlite")
    assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    con.close()


def _old_history(db, version):
    con = sqlite3.connect(db)
    for v, script in MIGRATIONS[:version]:
        for stmt in script.split(";"):
            if stmt.strip():
                con.execute(stmt)
        con.execute(f"PRAGMA user_version = {v}")
    con.execute("INSERT INTO runs (name, created, context) VALUES ('old', 1.0, ?)",
                ('{"backend": "cpu", "device": "x"}',))
    con.commit()
    con.close()


def test_reading_an_older_history_leaves_it_as_it_was(tmp_path):
    db = tmp_path / "h.sqlite"
    _old_history(db, 1)
    before = _digest(db)
    with History(db, read_only=True) as h:
        assert [s.label for s in h.list()] == ["old"]
        with pytest.raises(HistoryError):
            h.save(_run("new"))
    assert _digest(db) == before and not list(tmp_path.glob("h.sqlite?*"))


def test_a_migration_keeps_a_backup_first(tmp_path):
    db = tmp_path / "h.sqlite"
    _old_history(db, 1)
    with History(db) as h:
        assert h.version == LATEST and [s.label for s in h.list()] == ["old"]
    [backup] = tmp_path.glob("h.sqlite.before-v*")
    old = sqlite3.connect(backup)
    assert old.execute("PRAGMA user_version").fetchone()[0] == 1
    assert old.execute("SELECT name, context FROM runs").fetchall() == [("old", '{"backend": "cpu", "device": "x"}')]
    old.close()
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    con.close()


@pytest.mark.parametrize("sql", ["UPDATE launches SET ms = 'abc'", "UPDATE launches SET ms = 1e999",
                                 "UPDATE launches SET repeat = 'x'",
                                 """UPDATE runs SET context = '{"backend": "cpu", "rounds": "abc"}'""",
                                 """UPDATE runs SET context = '{"backend": 7, "workloads": "saxpy"}'"""])
def test_history_rows_are_checked_when_read(tmp_path, sql, capsys):
    proj, db = _project(tmp_path)
    with History(db) as h:
        h.save(_run("a"))
    con = sqlite3.connect(db)
    con.execute(sql)
    con.commit()
    con.close()
    rc = main(["export", str(proj), "a", "--json", str(tmp_path / "o.json")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "run #1" in err[0] and str(db) in err[0] and "--delete" in err[0], err
    rc = main(["compare", str(proj), "a", "a"])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err and "run #1" in err, err
