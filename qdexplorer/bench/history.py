"""Saved runs of one project, in SQLite (stdlib `sqlite3`).

Every write is one explicit transaction, so a process killed at any point leaves either the
whole batch or none of it. A streaming run is a row with status `running` that gains launches
batch by batch; if its writer dies, the row keeps what was committed and reads back as
`interrupted` (the writer's pid is gone). WAL mode lets the window read while a run writes.

The history outlives the code that wrote it and the disk it sits on: every SQLite error becomes a
HistoryError naming the file and the cause (`sqlite_errors`), a damaged run is skipped with one
warning line instead of hiding the others, a save is read back before it counts, and a run row
deleted while its writer streams is re-created from what the writer holds.
"""
from __future__ import annotations

import builtins
import dataclasses
import functools
import json
import math
import os
import re
import socket
import sqlite3
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..checked import Bool, Float, Int, Invalid, List, Map, Obj, Opt, Str, check
from ..compiler.safe_files import output_file
from ..ir.errors import QdError
from ..project.data_folder import unsafe_history_path
from .context import RunContext
from .run import Launch, Run
from .schema import LATEST, MIGRATIONS
from .signals_held import signals_held
from .sqlite_errors import describe

# names `qdexplorer compare` reads as sides measured now, never as saved runs
FRESH_SIDES = ("now", "generated", "override", "per_task", "whole", "cpu", "cuda")
_LATEST = re.compile(r"latest(?:~(\d+))?\Z")


class HistoryError(QdError):
    """A history database that cannot be used, or a run that is not in it."""


class DamagedRun(HistoryError):
    """One run's rows cannot be read (a damaged page, bad JSON); the others still can."""


def _errors_named_by(path_of):
    """A method decorator: any SQLite error inside the method is a HistoryError saying which file
    (`path_of(self)`) and why."""
    def decorate(method):
        @functools.wraps(method)
        def guarded(self, *a, **kw):
            try:
                return method(self, *a, **kw)
            except sqlite3.Error as e:
                raise HistoryError(describe(path_of(self), e)) from None
        return guarded
    return decorate


_sqlite_errors = _errors_named_by(lambda history: history.path)


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
    rounds: int | None = None    # None: saved before runs were recorded in rounds

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


APPLICATION_ID = 0x51445852   # "QDXR" in the file's header (PRAGMA application_id): a history of ours
_TABLES = ("runs", "launches", "compile_stages")


@functools.lru_cache(maxsize=None)
def _expected_tables(version: int) -> dict[str, tuple[str, ...]]:
    """Our tables and their columns at schema `version` (what MIGRATIONS[:version] make)."""
    db = sqlite3.connect(":memory:")
    for v, script in MIGRATIONS[:version]:
        for stmt in script.split(";"):
            if stmt.strip():
                db.execute(stmt)
    out = _tables(db)
    db.close()
    return out


def _tables(db: sqlite3.Connection) -> dict[str, tuple[str, ...]]:
    names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                      "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    return {n: tuple(sorted(r[1] for r in db.execute(f'PRAGMA table_info("{n}")'))) for n in names}


# A run's row is input (the file can be edited): its context and launches are checked when read,
# and a bad one is a DamagedRun naming the run, never a wrong export or a traceback later.
_CONTEXT = Obj(tuple(f.name for f in dataclasses.fields(RunContext)),
               backend=Str(), device=Str(), arch=Str(), mode=Str(), workloads=List(Str()), warmup=Int(0),
               repeat=Int(0), seed=Int(0), rounds=Opt(Int(0)), per_round=Opt(Int(0)), tasks=Map(Map(Opt(Str()))),
               skipped=Map(Str()), l2_flush=Bool(), streaming=Bool(), sm_count=Opt(Int(0)),
               timer_resolution_ms=Float(0), cpu_timer_resolution_ms=Opt(Float(0)))


def _context(ctx) -> dict:
    try:
        return check(json.loads(ctx), _CONTEXT, "context")
    except Invalid as e:
        raise ValueError(str(e)) from None


def _launch_row(row: tuple) -> tuple:
    task, kernel, workload, repeat, ms, grid, block, cpu_ms, rnd = row
    for name, v in (("task", task), ("kernel", kernel), ("workload", workload)):
        if not isinstance(v, str):
            raise ValueError(f"a launch's {name} is not text ({v!r})")
    for name, v in (("repeat", repeat), ("grid", grid), ("block", block)) + ((("round", rnd),) if rnd is not None else ()):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"a launch's {name} is not a whole number of at least 0 ({v!r})")
    for name, v in (("ms", ms),) + ((("cpu_ms", cpu_ms),) if cpu_ms is not None else ()):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise ValueError(f"a launch's {name} is not a finite time ({v!r})")
    return row


class History:
    def __init__(self, path: str | Path, read_only: bool = False):
        """`read_only`: opened read-only (`mode=ro`), never migrated and never written (a write is a
        HistoryError); a history of an older schema is read through a migrated copy in memory."""
        self.path = Path(path)
        self.read_only = read_only
        self.backup: Path | None = None   # where a migration kept the file as it was
        unsafe = unsafe_history_path(self.path)
        if unsafe:
            raise HistoryError(unsafe)
        self.warnings: list[str] = []  # one line per damaged run skipped (also printed on stderr)
        self._checked = False          # the integrity check runs once, before the first write
        try:
            output_file(self.path, "run history")   # SQLite opens it (and its journals) by name
            if read_only:
                self.db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                          isolation_level=None, timeout=30)
            else:
                self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        except (OSError, sqlite3.Error) as e:
            raise HistoryError(f"cannot open the run history {self.path}: {e}") from None
        try:
            legacy = self._check_ours()   # before anything is written: a file not ours stays untouched
            if read_only:
                if self.version < LATEST:
                    self._read_migrated_copy()
            else:
                if 0 < self.version < LATEST:
                    self._keep_backup()   # the file as it was, before its journal mode or schema change
                self.db.execute("PRAGMA foreign_keys = ON")
                self.db.execute("PRAGMA journal_mode = WAL")
                self.migrate(stamp=legacy)
        except HistoryError:
            self.db.close()
            raise
        except sqlite3.DatabaseError as e:
            self.db.close()
            low = str(e).lower()
            if "not a database" in low or "malformed" in low or "encrypted" in low:
                raise HistoryError(f"{self.path} is not a usable qdexplorer history ({e}); move it aside and "
                                   f"a fresh one is created") from None
            raise HistoryError(describe(self.path, e)) from None

    # -- schema
    @property
    def version(self) -> int:
        return self.db.execute("PRAGMA user_version").fetchone()[0]

    def _not_ours(self, why: str) -> HistoryError:
        return HistoryError(f"{self.path} is not a qdexplorer run history ({why}); nothing in it was changed. "
                            f"Move it aside (a fresh history is then created), or set QDEXPLORER_DATA_DIR")

    def _check_ours(self) -> bool:
        """Refuse a file that is not a history of ours, before anything is written to it. True for
        a history of ours written before histories carried APPLICATION_ID (its tables are exactly
        those of its schema version): it is stamped at its next write."""
        app = self.db.execute("PRAGMA application_id").fetchone()[0]
        version = self.version
        if app == APPLICATION_ID:
            return False
        if app != 0:
            raise self._not_ours(f"its application_id is {app}, not qdexplorer's {APPLICATION_ID}")
        if version > LATEST:
            raise HistoryError(f"{self.path} has schema {version}, newer than this qdexplorer's {LATEST}: written by "
                               f"a newer qdexplorer (upgrade it to read the file) or by another program (move it "
                               f"aside); nothing in it was changed")
        tables = _tables(self.db)
        if not tables and version == 0:
            return False   # empty: a new history
        if 1 <= version <= LATEST and tables == _expected_tables(version):
            return True
        ours = {t: c for t, c in tables.items() if t in _TABLES}
        why = (f"schema version {version} with tables {', '.join(sorted(tables)) or 'none'}"
               if not ours else f"its tables are not those of qdexplorer's schema {version}")
        raise self._not_ours(f"no qdexplorer application_id, and {why}")

    def _read_migrated_copy(self) -> None:
        """A read-only history of an older schema: read through a copy in memory, migrated there."""
        mem = sqlite3.connect(":memory:", isolation_level=None)
        self.db.backup(mem)
        self.db.close()
        self.db = mem
        self.read_only = False
        try:
            self.migrate()
        finally:
            self.read_only = True

    def migrate(self, stamp: bool = False):
        """Bring the schema up to date, one transactional step at a time (the constructor keeps a
        copy of an older file first: `<name>.before-vN-<time>`); a new file gets APPLICATION_ID, and
        a history of ours written before it (`stamp`) gets it too."""
        if self.version > LATEST:
            raise HistoryError(f"{self.path} was written by a newer qdexplorer (schema {self.version}, this one "
                               f"knows {LATEST}); upgrade qdexplorer to read it")
        if self.version == LATEST:
            if stamp:
                with self.transaction() as db:
                    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            return   # nothing else to write: a reader never pays for the integrity check
        for version, script in MIGRATIONS:
            with self.transaction() as db:
                if db.execute("PRAGMA user_version").fetchone()[0] >= version:
                    continue
                for stmt in script.split(";"):
                    if stmt.strip():
                        db.execute(stmt)
                db.execute(f"PRAGMA user_version = {version}")
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")

    def _keep_backup(self) -> None:
        import datetime
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        target = output_file(self.path.with_name(f"{self.path.name}.before-v{LATEST}-{stamp}"), "history backup")
        out = sqlite3.connect(target)
        try:
            self.db.backup(out)   # a consistent copy, WAL included
        finally:
            out.close()
        self.backup = target

    def integrity_problem(self) -> str | None:
        """SQLite's `quick_check` (every page and record readable, without the index cross-checks of
        the full check): None when it passes, else its first finding."""
        try:
            rows = self.db.execute("PRAGMA quick_check(5)").fetchall()
        except sqlite3.DatabaseError as e:
            return str(e)
        found = [str(r[0]) for r in rows if r and r[0] != "ok"]
        found = [ln.strip() for f in found for ln in f.splitlines() if ln.strip() and not ln.startswith("***")]
        return "; ".join(found[:2])[:200] if found else None

    def check_writable(self) -> None:
        """Before the first write: a damaged file is never written into (a write there can bury the
        readable runs under a broken page, and `runs` then lists bogus ids)."""
        if self._checked:
            return
        problem = self.integrity_problem()
        if problem is not None:
            raise HistoryError(f"{self.path} is damaged (SQLite's integrity check: {problem}); nothing was written "
                               f"into it. `qdexplorer runs --repair` copies every readable run into a new file "
                               f"and keeps this one beside it")
        self._checked = True

    @contextmanager
    def transaction(self):
        """BEGIN IMMEDIATE … COMMIT, rolled back on any error: all or nothing; the file's integrity
        is checked before its first write."""
        if self.read_only:
            raise HistoryError(f"{self.path} was opened read-only; nothing was written")
        self.check_writable()
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
    @_sqlite_errors
    def save(self, run: Run) -> int:
        """Store a finished run in one transaction; returns its id (also set on `run`)."""
        with self.transaction() as db:
            run.id = self._insert(db, run, pid=None)
            self._add_launches(db, run.id, run.launches, 0)
            self._add_compile(db, run.id, run.compile)
        self.verify(run)
        return run.id

    def verify(self, run: Run):
        """Read a just-saved run back: a save that cannot be read is reported, never called saved."""
        try:
            back = self.load(run.id)
        except HistoryError as e:
            raise HistoryError(f"run #{run.id} was written to {self.path} but cannot be read back: {e}") from None
        if len(back.launches) != len(run.launches):
            problem = self.integrity_problem()
            why = (f"the history is damaged ({problem})" if problem else
                   "the file passes SQLite's integrity check, so another process changed the run meanwhile")
            raise HistoryError(f"run #{run.id} was written to {self.path} with {len(run.launches)} launches, but "
                               f"{len(back.launches)} read back; {why}")

    @_sqlite_errors
    def append_rounds(self, run: Run, launches: list[Launch], context: RunContext, note: str) -> Run:
        """More rounds of the same code added to a saved run (`runner.add_rounds`): the launches go
        after its own, the context (rounds, repeats) is replaced and the note added to its message."""
        if run.id is None:
            raise HistoryError("only a saved run (with an id) can have rounds added")
        with self.transaction() as db:
            start = db.execute("SELECT COUNT(*) FROM launches WHERE run_id = ?", (run.id,)).fetchone()[0]
            self._add_launches(db, run.id, launches, start)
            message = "; ".join(m for m in (run.message, note) if m)
            db.execute("UPDATE runs SET context = ?, message = ? WHERE id = ?",
                       (json.dumps(context.to_dict()), message, run.id))
        back = self.load(run.id)
        if len(back.launches) != len(run.launches) + len(launches):
            raise HistoryError(f"run #{run.id} in {self.path}: {len(launches)} launches were added but "
                               f"{len(back.launches) - len(run.launches)} read back; the history is damaged")
        return back

    @_sqlite_errors
    def begin(self, run: Run) -> "RunWriter":
        """Start a streaming run: launches are added in batches as they arrive."""
        with self.transaction() as db:
            run.status = "running"
            run.id = self._insert(db, run, pid=os.getpid())
            self._add_compile(db, run.id, run.compile)
        return RunWriter(self, run)

    @_sqlite_errors
    def reopen(self, run: Run) -> "RunWriter":
        """Continue a saved run (a sweep resumed): it is `running` again under this process, and
        what it held stays; `finish` gives it its new status."""
        if run.id is None:
            raise ValueError("reopen takes a run loaded from this history")
        with self.transaction() as db:
            if not db.execute("SELECT 1 FROM runs WHERE id = ?", (run.id,)).fetchone():
                raise HistoryError(f"run #{run.id} is no longer in {self.path}")
            db.execute("UPDATE runs SET status = 'running', pid = ?, host = ? WHERE id = ?",
                       (os.getpid(), socket.gethostname(), run.id))
        run.status = "running"
        writer = RunWriter(self, run)
        writer.written = len(run.launches)
        return writer

    def _insert(self, db, run: Run, pid) -> int:
        self._check_name(db, run.name)
        cur = db.execute("INSERT INTO runs (name, created, context, status, message, pid, host) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (run.name, run.created, json.dumps(run.context.to_dict()), run.status, run.message, pid,
                          socket.gethostname()))
        return cur.lastrowid

    def _check_name(self, db, name, exclude: int | None = None):
        if name is None:
            return
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
            raise HistoryError(f"run name {name!r} is not allowed: it holds a control character (a newline would "
                               f"forge lines in `qdexplorer runs`)")
        if not name.strip() or name.startswith("#") or name.isdigit():
            raise HistoryError(f"run name {name!r} is not allowed: use letters (names like '#3' or '3' "
                               f"refer to run ids)")
        if name.startswith("latest") and (_LATEST.match(name) or name.startswith("latest~")) or name in FRESH_SIDES:
            raise HistoryError(f"run name {name!r} is not allowed: 'latest', 'latest~N' and the fresh sides of "
                               f"compare ({', '.join(FRESH_SIDES)}) name other runs")
        row = db.execute("SELECT id FROM runs WHERE name = ?", (name,)).fetchone()
        if row and row[0] != exclude:
            raise HistoryError(f"a run named {name!r} already exists in {self.path}: choose another name, or "
                               f"delete it first (qdexplorer runs --delete {name})")

    @staticmethod
    def _add_launches(db, run_id: int, launches, start: int):
        db.executemany("INSERT INTO launches (run_id, seq, task, kernel, workload, repeat, ms, grid, block, cpu_ms, "
                       "round) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       [(run_id, start + i, ln.task, ln.kernel, ln.workload, ln.repeat, ln.ms, ln.grid, ln.block,
                         ln.cpu_ms, ln.round) for i, ln in enumerate(launches)])

    @staticmethod
    def _add_compile(db, run_id: int, compile_: dict):
        rows = []
        for task, stages in compile_.items():
            tier = stages.get("tier", "")
            rows += [(run_id, task, stage, float(sec), tier) for stage, sec in stages.items() if stage != "tier"]
        db.executemany("INSERT INTO compile_stages (run_id, task, stage, seconds, tier) VALUES (?, ?, ?, ?, ?)",
                       rows)

    # -- reading
    @_sqlite_errors
    def resolve(self, ref: str | int) -> int:
        """A run id from a name, '#id', 'id', 'latest' or 'latest~N' (N runs before the latest)."""
        s = str(ref).strip()
        m = _LATEST.match(s)
        if m:
            row = self.db.execute("SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET ?",
                                  (int(m.group(1) or 0),)).fetchone()
            if row:
                return row[0]
            raise HistoryError(f"no run {s!r} in {self.path}: it holds {self._count()} run(s)")
        if s.startswith("latest~"):
            raise HistoryError(f"{s!r} is not a run: write latest~N with N a whole number (latest~1 is the run "
                               f"before the latest)")
        row = self.db.execute("SELECT id FROM runs WHERE name = ?", (s,)).fetchone()
        if row is None and s.lstrip("#").isdigit():
            row = self.db.execute("SELECT id FROM runs WHERE id = ?", (int(s.lstrip("#")),)).fetchone()
        if row is None:
            known = ", ".join(r.label for r in self.list(warn=False)[-8:]) or "none saved yet"
            raise HistoryError(f"no run {s!r} in {self.path} (recent: {known}); "
                               f"save one with: qdexplorer bench --save NAME")
        return row[0]

    @_sqlite_errors
    def load(self, ref: str | int) -> Run:
        rid = self.resolve(ref)
        try:
            return self._load(rid)
        except (sqlite3.DatabaseError, ValueError, TypeError) as e:
            raise DamagedRun(f"run #{rid} in {self.path} is damaged and cannot be read ({e}); delete it "
                             f"(qdexplorer runs --delete '#{rid}'), the other runs are not affected") from None

    def _count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]

    def _load(self, rid: int) -> Run:
        name, created, ctx, status, message, pid = self.db.execute(
            "SELECT name, created, context, status, message, pid FROM runs WHERE id = ?", (rid,)).fetchone()
        launches = [Launch(*_launch_row(row)) for row in self.db.execute(
            "SELECT task, kernel, workload, repeat, ms, grid, block, cpu_ms, round FROM launches WHERE run_id = ? "
            "ORDER BY seq",
            (rid,))]
        compile_: dict = {}
        for task, stage, sec, tier in self.db.execute(
                "SELECT task, stage, seconds, tier FROM compile_stages WHERE run_id = ? ORDER BY rowid", (rid,)):
            d = compile_.setdefault(task, {})
            d[stage] = sec
            if tier:
                d["tier"] = tier
        context = _context(ctx)
        return Run(name, RunContext.from_dict(context), launches, compile_, self._status(status, pid), message, created, rid)

    @staticmethod
    def _status(status: str, pid) -> str:
        return "interrupted" if status == "running" and not _pid_alive(pid) else status

    @_sqlite_errors
    def list(self, warn: bool = True) -> list[RunSummary]:
        """Every readable run; a damaged one is skipped with one warning line (stderr, `warnings`)."""
        out = []
        for (rid,) in self.db.execute("SELECT id FROM runs ORDER BY id").fetchall():
            try:
                out.append(self._summary(rid))
            except (sqlite3.DatabaseError, ValueError, TypeError, AttributeError) as e:
                if warn:
                    self._warn(f"run #{rid} in {self.path} is damaged ({e}); skipped")
        return out

    def _summary(self, rid: int) -> RunSummary:
        name, created, status, message, pid, ctx, n, ntasks, nrounds, unknown = self.db.execute(
            "SELECT r.name, r.created, r.status, r.message, r.pid, r.context, "
            "(SELECT COUNT(*) FROM launches l WHERE l.run_id = r.id), "
            "(SELECT COUNT(DISTINCT task) FROM launches l WHERE l.run_id = r.id), "
            "(SELECT COUNT(DISTINCT round) FROM launches l WHERE l.run_id = r.id), "
            "(SELECT COUNT(*) FROM launches l WHERE l.run_id = r.id AND l.round IS NULL) FROM runs r WHERE r.id = ?",
            (rid,)).fetchone()
        c = RunContext.from_dict(_context(ctx))
        g = c.git or {}
        git = (g.get("revision", "")[:10] + ("+dirty" if g.get("dirty") else "")) if g else ""
        return RunSummary(rid, name, created, self._status(status, pid), message, n, ntasks,
                          c.backend, c.device, git, None if unknown else nrounds)

    def _warn(self, line: str):
        if line not in self.warnings:
            self.warnings.append(line)
            print(f"qdexplorer: warning: {line}", file=sys.stderr)

    @_sqlite_errors
    def delete(self, ref: str | int) -> int:
        rid = self.resolve(ref)
        status, pid, host = self.db.execute("SELECT status, pid, host FROM runs WHERE id = ?", (rid,)).fetchone()
        if status == "running" and host in ("", socket.gethostname()) and _pid_alive(pid):
            raise HistoryError(f"run #{rid} is being written by process {pid} (a bench still running); stop it "
                               f"first, then delete it")
        with self.transaction() as db:
            db.execute("DELETE FROM runs WHERE id = ?", (rid,))
        return rid

    @_sqlite_errors
    def rename(self, ref: str | int, name: str) -> int:
        rid = self.resolve(ref)
        with self.transaction() as db:
            self._check_name(db, name, exclude=rid)
            db.execute("UPDATE runs SET name = ? WHERE id = ?", (name, rid))
        return rid

    @_sqlite_errors
    def task_history(self, task: str) -> builtins.list[tuple[int, str, float, float, int]]:
        """(run id, label, created, median ms, launches) of `task` in every saved run, oldest first."""
        import numpy as np
        out = []
        for s in self.list():
            ms = [r[0] for r in self.db.execute("SELECT ms FROM launches WHERE run_id = ? AND task = ?",
                                                (s.id, task))]
            if ms:
                out.append((s.id, s.label, s.created, float(np.median(ms)), len(ms)))
        return out

    @_sqlite_errors
    def tasks(self) -> builtins.list[str]:  # (`list` in this class is the method above)
        return [r[0] for r in self.db.execute("SELECT DISTINCT task FROM launches ORDER BY task")]


_writer_errors = _errors_named_by(lambda writer: writer.history.path)  # the writer's file is its history's


class RunWriter:
    """Appends a streaming run's launches, one transaction per batch, and finishes it."""

    def __init__(self, history: History, run: Run):
        if run.id is None:
            raise ValueError("a RunWriter writes a run begun in the history (History.begin gives it an id)")
        self.history, self.run, self.run_id = history, run, run.id
        self.written = 0
        self.recreated = False

    def _ensure_row(self, db):
        """Re-create the run's row (and what it already held) if someone deleted it meanwhile: the
        writer holds every launch it wrote, so a concurrent delete loses nothing."""
        if db.execute("SELECT 1 FROM runs WHERE id = ?", (self.run_id,)).fetchone():
            return
        db.execute("INSERT INTO runs (id, name, created, context, status, message, pid, host) "
                   "VALUES (?, ?, ?, ?, 'running', '', ?, ?)",
                   (self.run_id, None, self.run.created, json.dumps(self.run.context.to_dict()), os.getpid(),
                    socket.gethostname()))
        if self.run.name and not db.execute("SELECT 1 FROM runs WHERE name = ?", (self.run.name,)).fetchone():
            db.execute("UPDATE runs SET name = ? WHERE id = ?", (self.run.name, self.run_id))
        History._add_launches(db, self.run_id, self.run.launches, 0)
        History._add_compile(db, self.run_id, self.run.compile)
        self.recreated = True

    @_writer_errors
    def add(self, launches: list[Launch]):
        if not launches:
            return
        with signals_held():   # committed and counted, or neither
            with self.history.transaction() as db:
                self._ensure_row(db)
                History._add_launches(db, self.run_id, launches, self.written)
            self.written += len(launches)
            self.run.launches.extend(launches)

    @_writer_errors
    def add_compile(self, compile_: dict):
        with signals_held():
            with self.history.transaction() as db:
                self._ensure_row(db)
                History._add_compile(db, self.run_id, compile_)
            self.run.compile.update(compile_)

    @_writer_errors
    def finish(self, status: str = "complete", message: str = "", context: RunContext | None = None) -> Run:
        if context is not None:
            self.run.context = context
        with signals_held():
            with self.history.transaction() as db:
                self._ensure_row(db)
                if self.recreated:
                    message = "; ".join(filter(None, [message, "its row was deleted while it was being written "
                                                               "and was re-created with everything measured"]))
                db.execute("UPDATE runs SET status = ?, message = ?, context = ?, pid = NULL WHERE id = ?",
                           (status, message, json.dumps(self.run.context.to_dict()), self.run.id))
            self.run.status, self.run.message = status, message
            self.history.verify(self.run)
        return self.run
