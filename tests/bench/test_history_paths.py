"""The run history follows the overrides' safe-path rules (issue 21): no link is followed to create
or modify a database, nor into a folder others may write."""
import os
import sqlite3

import pytest

from qdexplorer.bench.history import History, HistoryError
from qdexplorer.project.data_folder import history_path


@pytest.fixture
def proj(tmp_path):
    p = tmp_path / "proj"
    p.mkdir()
    (p / "k.py").write_text("")
    return p


def _foreign_db(path):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE mine (x)")
    db.commit()
    db.close()
    return path.read_bytes()


def test_a_symlinked_history_file_is_refused_and_its_target_never_created(proj, tmp_path, runs):
    (proj / ".qdexplorer").mkdir()
    target = tmp_path / "elsewhere.sqlite"
    os.symlink(target, history_path(proj))
    with pytest.raises(HistoryError, match="symbolic link"):
        History(history_path(proj))
    assert not target.exists()


def test_a_symlink_to_an_unrelated_database_gets_no_tables(proj, tmp_path):
    (proj / ".qdexplorer").mkdir()
    other = tmp_path / "app.sqlite"
    before = _foreign_db(other)
    os.symlink(other, history_path(proj))
    with pytest.raises(HistoryError, match="symbolic link"):
        History(history_path(proj))
    assert other.read_bytes() == before


def test_a_symlinked_state_folder_is_refused(proj, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, proj / ".qdexplorer")
    with pytest.raises(HistoryError, match="symbolic link"):
        History(history_path(proj))
    assert not list(outside.iterdir())


def test_a_symlinked_journal_is_refused(proj, tmp_path, runs):
    path = history_path(proj)
    with History(path) as h:
        h.save(runs("a"))
    victim = tmp_path / "victim"
    victim.write_text("keep")
    os.symlink(victim, str(path) + "-wal")
    with pytest.raises(HistoryError, match="symbolic link"):
        History(path)
    assert victim.read_text() == "keep"


def test_a_fifo_in_place_of_the_history_is_refused_not_waited_on(proj):
    (proj / ".qdexplorer").mkdir()
    os.mkfifo(history_path(proj))
    with pytest.raises(HistoryError, match="not a regular file"):
        History(history_path(proj))


def test_a_state_folder_others_can_write_is_refused(proj):
    (proj / ".qdexplorer").mkdir()
    (proj / ".qdexplorer").chmod(0o777)
    with pytest.raises(HistoryError, match="writable by other users"):
        History(history_path(proj))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_a_history_owned_by_another_user_is_refused(proj, runs):
    path = history_path(proj)
    with History(path) as h:
        h.save(runs("a"))
    os.chown(path, 65534, 65534)
    with pytest.raises(HistoryError, match="belongs to another user"):
        History(path)


def test_a_new_state_folder_is_private(proj, runs):
    old = os.umask(0o002)
    try:
        with History(history_path(proj)) as h:
            h.save(runs("a"))
    finally:
        os.umask(old)
    assert (proj / ".qdexplorer").stat().st_mode & 0o077 == 0
    with History(history_path(proj)) as h:
        assert h.load("a").name == "a"
