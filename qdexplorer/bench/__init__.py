"""Benchmark runs, A/B statistics, run history (SQLite) and exporters; no Qt, no engine internals.

`run` (the record), `stats' (per-task A/B numbers), `compare` (two runs), `history` + `schema`
(SQLite; where a project's history lives is `project.data_folder`'s call), `export`
(CSV/JSON/trace), `context`, `clocks' and `clock_lock` (what a run measured, and the locked SM
clock), `runner` (making runs with an Engine, through `engine_api`'s protocol), `sweep` (a
setting swept over devices), `assembly_table` (the assembly modes side by side).
"""
