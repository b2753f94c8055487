"""The history database's schema, as an ordered list of migrations.

A fresh database runs every step; an old one runs the steps it has not seen. The version is
SQLite's `PRAGMA user_version`, bumped in the same transaction as the step (SQLite DDL is
transactional), so a migration interrupted half-way leaves the previous version intact.
Never edit a released step: append a new one.
"""
from __future__ import annotations

MIGRATIONS: list[tuple[int, str]] = [
    # 1: a run is a row with its context as JSON; every launch is a row
    (1, """
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        name TEXT UNIQUE,
        created REAL NOT NULL,
        context TEXT NOT NULL
    );
    CREATE TABLE launches (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        task TEXT NOT NULL,
        kernel TEXT NOT NULL,
        workload TEXT NOT NULL,
        repeat INTEGER NOT NULL,
        ms REAL NOT NULL,
        grid INTEGER NOT NULL DEFAULT 0,
        block INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX launches_by_run_task ON launches(run_id, task);
    """),
    # 2: runs stream (status while running, stopped/failed with a message, the writer's pid to
    #    spot a killed one), keep each task's compile stages for the trace export, and CPU-backend
    #    launches carry their CPU time
    (2, """
    ALTER TABLE launches ADD COLUMN cpu_ms REAL;
    ALTER TABLE runs ADD COLUMN status TEXT NOT NULL DEFAULT 'complete';
    ALTER TABLE runs ADD COLUMN message TEXT NOT NULL DEFAULT '';
    ALTER TABLE runs ADD COLUMN pid INTEGER;
    ALTER TABLE runs ADD COLUMN host TEXT NOT NULL DEFAULT '';
    CREATE TABLE compile_stages (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        task TEXT NOT NULL,
        stage TEXT NOT NULL,
        seconds REAL NOT NULL,
        tier TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX compile_by_run ON compile_stages(run_id);
    """),
    # 3: a run is made in rounds (blocks of repeats spread over it) and each launch records its
    #    round. Launches saved before stay NULL, "rounds unknown", and are not guessed at here:
    #    Run.round_samples reads an old interleaved run (its context has per_round) as one round
    #    per repeat block, which is how it was made, and an old plain run as one round, which is
    #    what it was (one block of launches in time), so its changes read `unsure`.
    (3, """
    ALTER TABLE launches ADD COLUMN round INTEGER;
    """),
]

LATEST = MIGRATIONS[-1][0]
