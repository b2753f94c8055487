"""`bench --workload NOSUCH` is bad input: one message, exit 2, and nothing saved (it saved an empty
failed run each time, which then showed up in the Compare pickers)."""
import pytest

from qdexplorer.bench.history import History
from qdexplorer.bench.runner import bench
from qdexplorer.engine import Engine
from qdexplorer.project.loader import ProjectError


def test_an_unknown_workload_saves_no_run(demo_path, tmp_path):
    with Engine(demo_path, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng, \
            History(tmp_path / "h.sqlite") as h:
        with pytest.raises(ProjectError, match="no workload named 'NOSUCH'.*known: .*saxpy_1m"):
            bench(eng, ["NOSUCH"], repeat=1, history=h)
        assert h.list() == []
