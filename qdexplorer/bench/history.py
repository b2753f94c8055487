"""Saved runs of one project, in SQLite (stdlib `sqlite3`).

Every write is one explicit transaction, so a process killed at any point leaves either the
whole batch or none of it. A streaming run is a row with status `running` that gains launches
batch by batch; if its writer dies, the row keeps what was committed and reads back as
`interrupted` (the writer's pid is gone). WAL mode lets the window read while a run writes.
"""
from __future__ import annotations

import json
import os
import socket
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..lang.errors import QdError
from .location import unsafe_history_path
from .run import Launch, Run
from .schema import LATEST, MIGRATIONS


class HistoryError(QdError):
    """A history database that cannot be used, or a run that is not in it."""


@dataclass
class RunSummary:
    id: int
    name: str | None
    created: float
    status: str
    message: str
    launches: int
    tasks: int
    backend: str
    device: str
    git: str

    @property
    def label(self) -> str:
        return self.name or f"#{self.id}"


def _pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class History:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        unsafe = unsafe_history_path(self.path)
        if unsafe:
            raise HistoryError(unsafe)
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        except (OSError, sqlite3.Error) as e:
            raise HistoryError(f"cannot open the run history {self.path}: {e}") from None
        self.db.execute("PRAGMA foreign_keys = ON")
        try:
            self.db.execute("PRAGMA journal_mode = WAL")
            self.migrate()
        except sqlite3.DatabaseError as e:
            self.db.close()
            raise HistoryError(f"{self.path} is not a usable qdexplorer history ({e}); move it aside and "
                               f"a fresh one is created") from None

    # -- schema
    @property
    def version(self) -> int:
        return self.db.execute("PRAGMA user_version").fetchone()[0]

    def migrate(self):
        """Bring the schema up to date, one transactional step at a time."""
        if self.version > LATEST:
            raise HistoryError(f"{self.path} was written by a newer qdexplorer (schema {self.version}, this one "
                               f"knows {LATEST}); upgrade qdexplorer to read it")
        for version, script in MIGRATIONS:
            with self.transaction() as db:
                if db.execute("PRAGMA user_version").fetchone()[0] >= version:
                    continue
                for stmt in script.split(";"):
                    if stmt.strip():
                        db.execute(stmt)
                db.execute(f"PRAGMA user_version = {version}")

    @contextmanager
    def transaction(self):
        """BEGIN IMMEDIATE … COMMIT, rolled back on any error: all or nothing."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def close(self):
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- writing
    def save(self, run: Run) -> int:
        """Store a finished run in one transaction; returns its id (also set on `run`)."""
        with self.transaction() as db:
            run.id = self._insert(db, run, pid=None)
            self._add_launches(db, run.id, run.launches, 0)
            self._add_compile(db, run.id, run.compile)
        return run.id

    def begin(self, run: Run) -> "RunWriter":
        """Start a streaming run: launches are added in batches as they arrive."""
        with self.transaction() as db:
            run.status = "running"
            run.id = self._insert(db, run, pid=os.getpid())
            self._add_compile(db, run.id, run.compile)
        return RunWriter(self, run)

    def _insert(self, db, run: Run, pid) -> int:
        self._check_name(db, run.name)
        cur = db.execute("INSERT INTO runs (name, created, context, status, message, pid, host) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (run.name, run.created, json.dumps(run.context), run.status, run.message, pid,
                          socket.gethostname()))
        return cur.lastrowid

    def _check_name(self, db, name, exclude: int | None = None):
        if name is None:
            return
        if not name.strip() or name.startswith("#") or name.isdigit():
            raise HistoryError(f"run name {name!r} is not allowed: use letters (names like '#3' or '3' "
                               f"refer to run ids)")
        row = db.execute("SELECT id FROM runs WHERE name = ?", (name,)).fetchone()
        if row and row[0] != exclude:
            raise HistoryError(f"a run named {name!r} already exists in {self.path}: choose another name, or "
                               f"delete it first (qdexplorer runs --delete {name})")

    @staticmethod
    def _add_launches(db, run_id: int, launches, start: int):
        db.executemany("INSERT INTO launches (run_id, seq, task, kernel, workload, repeat, ms, grid, block, cpu_ms) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       [(run_id, start + i, ln.task, ln.kernel, ln.workload, ln.repeat, ln.ms, ln.grid, ln.block,
                         ln.cpu_ms) for i, ln in enumerate(launches)])

    @staticmethod
    def _add_compile(db, run_id: int, compile_: dict):
        rows = []
        for task, stages in compile_.items():
            tier = stages.get("tier", "")
            rows += [(run_id, task, stage, float(sec), tier) for stage, sec in stages.items() if stage != "tier"]
        db.executemany("INSERT INTO compile_stages (run_id, task, stage, seconds, tier) VALUES (?, ?, ?, ?, ?)",
                       rows)

    # -- reading
    def resolve(self, ref: str | int) -> int:
        """A run id from a name, '#id', 'id', 'latest' or 'latest~N' (N runs before the latest)."""
        s = str(ref).strip()
        if s.startswith("latest"):
            back = int(s[7:] or 0) if s[6:7] in ("~", "") else -1
            if back >= 0:
                row = self.db.execute("SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET ?", (back,)).fetchone()
                if row:
                    return row[0]
        row = self.db.execute("SELECT id FROM runs WHERE name = ?", (s,)).fetchone()
        if row is None and s.lstrip("#").isdigit():
            row = self.db.execute("SELECT id FROM runs WHERE id = ?", (int(s.lstrip("#")),)).fetchone()
        if row is None:
            known = ", ".join(r.label for r in self.list()[-8:]) or "none saved yet"
            raise HistoryError(f"no run {s!r} in {self.path} (recent: {known}); "
                               f"save one with: qdexplorer bench --save NAME")
        return row[0]

    def load(self, ref: str | int) -> Run:
        rid = self.resolve(ref)
        name, created, ctx, status, message, pid = self.db.execute(
            "SELECT name, created, context, status, message, pid FROM runs WHERE id = ?", (rid,)).fetchone()
        launches = [Launch(*row) for row in self.db.execute(
            "SELECT task, kernel, workload, repeat, ms, grid, block, cpu_ms FROM launches WHERE run_id = ? "
            "ORDER BY seq",
            (rid,))]
        compile_: dict = {}
        for task, stage, sec, tier in self.db.execute(
                "SELECT task, stage, seconds, tier FROM compile_stages WHERE run_id = ? ORDER BY rowid", (rid,)):
            d = compile_.setdefault(task, {})
            d[stage] = sec
            if tier:
                d["tier"] = tier
        return Run(name, json.loads(ctx), launches, compile_, self._status(status, pid), message, created, rid)

    @staticmethod
    def _status(status: str, pid) -> str:
        return "interrupted" if status == "running" and not _pid_alive(pid) else status

    def list(self) -> list[RunSummary]:
        rows = self.db.execute(
            "SELECT r.id, r.name, r.created, r.status, r.message, r.pid, r.context, "
            "(SELECT COUNT(*) FROM launches l WHERE l.run_id = r.id), "
            "(SELECT COUNT(DISTINCT task) FROM launches l WHERE l.run_id = r.id) FROM runs r ORDER BY r.id")
        out = []
        for rid, name, created, status, message, pid, ctx, n, ntasks in rows:
            c = json.loads(ctx)
            g = c.get("git") or {}
            git = (g.get("revision", "")[:10] + ("+dirty" if g.get("dirty") else "")) if g else ""
            out.append(RunSummary(rid, name, created, self._status(status, pid), message, n, ntasks,
                                  c.get("backend", ""), c.get("device", ""), git))
        return out

    def delete(self, ref: str | int) -> int:
        rid = self.resolve(ref)
        with self.transaction() as db:
            db.execute("DELETE FROM runs WHERE id = ?", (rid,))
        return rid

    def rename(self, ref: str | int, name: str) -> int:
        rid = self.resolve(ref)
        with self.transaction() as db:
            self._check_name(db, name, exclude=rid)
            db.execute("UPDATE runs SET name = ? WHERE id = ?", (name, rid))
        return rid

    def task_history(self, task: str) -> list[tuple[int, str, float, float, int]]:
        """(run id, label, created, median ms, launches) of `task` in every saved run, oldest first."""
        import numpy as np
        out = []
        for s in self.list():
            ms = [r[0] for r in self.db.execute("SELECT ms FROM launches WHERE run_id = ? AND task = ?",
                                                (s.id, task))]
            if ms:
                out.append((s.id, s.label, s.created, float(np.median(ms)), len(ms)))
        return out

    def tasks(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT task FROM launches ORDER BY task")]


class RunWriter:
    """Appends a streaming run's launches, one transaction per batch, and finishes it."""

    def __init__(self, history: History, run: Run):
        self.history, self.run = history, run
        self.written = 0

    def add(self, launches: list[Launch]):
        if not launches:
            return
        with self.history.transaction() as db:
            History._add_launches(db, self.run.id, launches, self.written)
        self.written += len(launches)
        self.run.launches.extend(launches)

    def add_compile(self, compile_: dict):
        with self.history.transaction() as db:
            History._add_compile(db, self.run.id, compile_)
        self.run.compile.update(compile_)

    def finish(self, status: str = "complete", message: str = "", context: dict | None = None) -> Run:
        if context is not None:
            self.run.context = context
        self.run.status, self.run.message = status, message
        with self.history.transaction() as db:
            db.execute("UPDATE runs SET status = ?, message = ?, context = ?, pid = NULL WHERE id = ?",
                       (status, message, json.dumps(self.run.context), self.run.id))
        return self.run
