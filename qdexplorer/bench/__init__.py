"""Benchmark runs, A/B statistics, run history (SQLite) and exporters; no Qt, no engine internals.

`run` (the record), `stats` (per-task A/B numbers), `compare` (two runs), `history` + `schema`
(SQLite), `location` (where a project's history lives), `export` (CSV/JSON/trace), `context`
and `clocks` (what a run measured), `runner` (making runs with an Engine).
"""
