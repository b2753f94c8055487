"""Add rounds to an `unsure` comparison (issue 31): more rounds of the same code measured now and added to
the saved run, numbered after its own; other code is refused."""
import pytest

from qdexplorer.bench.history import History
from qdexplorer.bench.runner import add_rounds, bench
from qdexplorer.engine import Engine
from qdexplorer.ir.errors import QdError

from .hot_project import HOT, write_project


def test_rounds_are_added_to_a_saved_run_of_the_same_code(tmp_path):
    proj = write_project(tmp_path / "p", steps=50)
    with Engine(proj, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng, \
            History(tmp_path / "h.sqlite") as h:
        run = bench(eng, ["hot_2k"], repeat=6, rounds=3, history=h, name="base")
        before = len(run.launches)
        grown = add_rounds(eng, h, "base", 2)
        assert grown.id == run.id and grown.context.rounds == 5 and grown.context.repeat == 10
        assert sorted(grown.round_samples(HOT)) == [0, 1, 2, 3, 4]
        assert len(grown.launches) == before + 4 and all(len(v) == 2 for v in grown.round_samples(HOT).values())
        assert "2 rounds added later" in grown.message and len(h.list()) == 1
    write_project(proj, steps=50, doubled=True)          # the hot loop runs twice now: other code
    with Engine(proj, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng, \
            History(tmp_path / "h.sqlite") as h:
        with pytest.raises(QdError, match="changed since base was measured"):
            add_rounds(eng, h, "base", 2)
        assert len(h.load("base").launches) == before + 4   # nothing added


def test_bench_add_to_from_the_cli(tmp_path):
    from .test_cli_bench import cli
    proj = write_project(tmp_path / "p", steps=50)
    with Engine(proj, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng, \
            History(proj / ".qdexplorer" / "history.sqlite") as h:
        bench(eng, ["hot_2k"], repeat=3, rounds=3, history=h, name="base")
    p = cli("bench", proj, "--add-to", "base", "--rounds", "2", env={"QDEXPLORER_CACHE_DIR": str(tmp_path / "c")})
    assert p.returncode == 0, p.stderr
    assert "added 2 rounds to base: now 5 rounds" in p.stderr and "in 5 rounds" in p.stdout
