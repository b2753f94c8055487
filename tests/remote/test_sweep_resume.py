"""A sweep saves each turn as it ends, an interrupted or stopped one says so, and `resume`
measures only the rounds each run lacks, into the same runs (issue 33). Local engines, no Ray."""
import threading

import pytest

from qdexplorer.bench.history import History
from qdexplorer.bench.sweep import load_sweep, parse_over, project_defaults, resume, sweep
from qdexplorer.engine import Engine

from .projects import scale_project


def test_a_stopped_sweep_is_resumed_into_the_same_runs(tmp_path):
    stop = threading.Event()
    with Engine(scale_project(tmp_path / "p"), backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng, \
            History(tmp_path / "h.sqlite") as h:
        over = parse_over(["block_dim=64,256"])
        first = sweep([eng], over, project_defaults(eng), rounds=8, per_round=2, name="r", history=h,
                      on_progress=lambda done, total: stop.set() if done >= 5 else None, stop=stop)
        cut = {s.label: (s.id, s.status, s.launches) for s in h.list()}
        assert first.status == "stopped" and all(st == "stopped" and 0 < n < 16 for _, st, n in cut.values())
        assert all("--resume r" in r.run.message for r in first.runs)
        again = resume([eng], h, "r")
        done = {s.label: (s.id, s.status, s.launches) for s in h.list()}
        back = load_sweep(h, "r")
    assert again.status == "complete" and back.status == "complete"
    assert {k: v[0] for k, v in done.items()} == {k: v[0] for k, v in cut.items()}   # the same runs
    assert all(st == "complete" and n == 8 * 2 for _, st, n in done.values())
    for r in back.runs:   # every round once: nothing measured twice, nothing missing
        assert sorted({ln.round for ln in r.run.launches}) == list(range(8))
        assert len(r.run.launches) == 16 and r.run.context.rounds == 8


def test_a_complete_sweep_resumes_to_itself_and_an_unknown_one_is_one_message(tmp_path):
    from qdexplorer.ir.errors import QdError
    with Engine(scale_project(tmp_path / "p"), backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng, \
            History(tmp_path / "h.sqlite") as h:
        sweep([eng], parse_over(["block_dim=64"]), project_defaults(eng), rounds=2, per_round=1, name="d", history=h)
        before = [(s.id, s.launches) for s in h.list()]
        assert resume([eng], h, "d").status == "complete"
        assert [(s.id, s.launches) for s in h.list()] == before
        with pytest.raises(QdError, match="no sweep named 'nope'"):
            resume([eng], h, "nope")
