"""`qdexplorer runs --repair`: a damaged history's readable runs, copied into a new file.

The damaged file is never changed: it is renamed beside the new one (`history.sqlite.damaged-
DATE`, with its `-wal` and `-shm`), so nothing it holds is lost to a repair that guessed wrong.
Each run is read through the ordinary loader (a run that cannot be read whole is left out and
listed) and saved into a fresh history in one transaction each, keeping its name, status, message
and creation time; the new file must pass the integrity check before it takes the old one's place.
"""
from __future__ import annotations

import datetime
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from ..compiler.safe_files import output_file
from .history import History, HistoryError

PROBE_IDS = 100_000   # run ids tried one by one when the runs table cannot even be scanned


@dataclass
class Repair:
    path: Path
    kept_as: Path | None = None
    copied: list[int] = field(default_factory=list)
    lost: list[int] = field(default_factory=list)
    problem: str | None = None     # what the integrity check found (None: the file was sound)

    def summary(self) -> str:
        if self.problem is None:
            return f"{self.path} passes SQLite's integrity check; nothing to repair"
        lost = (f"; {len(self.lost)} unreadable and left out: {', '.join(f'#{i}' for i in self.lost[:20])}"
                if self.lost else "")
        return (f"{self.path} was damaged ({self.problem}): copied {len(self.copied)} readable run(s) into a new "
                f"{self.path.name}{lost}; the damaged file is kept as {self.kept_as}")


def _ids(db: sqlite3.Connection) -> list[int]:
    try:
        return [r[0] for r in db.execute("SELECT id FROM runs ORDER BY id")]
    except sqlite3.DatabaseError:
        pass
    found = []
    for rid in range(1, PROBE_IDS + 1):   # the table's pages are damaged: ask for each id alone
        try:
            if db.execute("SELECT 1 FROM runs WHERE id = ?", (rid,)).fetchone():
                found.append(rid)
        except sqlite3.DatabaseError:
            continue
    return found


def repair(path: Path) -> Repair:
    out = Repair(Path(path))
    old = History(path)
    try:
        out.problem = old.integrity_problem()
        if out.problem is None:
            return out
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        fresh_path = out.path.with_name(f"{out.path.name}.repairing-{stamp}")
        fresh = History(fresh_path)
        try:
            for rid in _ids(old.db):
                try:
                    run = old.load(rid)
                except HistoryError:
                    out.lost.append(rid)
                    continue
                if run.status == "running":
                    run.status = "interrupted"
                run.id = None
                fresh.save(run)
                out.copied.append(rid)
            left = fresh.integrity_problem()
            if left is not None:
                raise HistoryError(f"the repaired copy {fresh_path} fails the integrity check too ({left}); "
                                   f"{out.path} was left as it was")
        finally:
            fresh.close()
    finally:
        old.close()
    out.kept_as = out.path.with_name(f"{out.path.name}.damaged-{stamp}")
    for p in (out.path, out.kept_as, fresh_path):   # renamed by name: none may be a link
        output_file(p, "run history")
    for suffix in ("", "-wal", "-shm"):
        side = Path(str(out.path) + suffix)
        if side.exists():
            os.replace(side, Path(str(out.kept_as) + suffix))
    os.replace(fresh_path, out.path)
    for suffix in ("-wal", "-shm"):   # the fresh file was closed, so its WAL is checkpointed and gone
        extra = Path(str(fresh_path) + suffix)
        if extra.exists():
            os.replace(extra, Path(str(out.path) + suffix))
    return out
