"""Issue 42: "N more rounds would settle it" advised `bench --add-to RUN` where no run was saved, and a saved run
compared with itself was not said to be the same run."""
from qdexplorer.bench.compare import compare_runs

from .conftest import make_run

TASK = "k_kernel_0_range_for"


def unsure_pair(**kw):
    a = make_run("a", seed=1, rounds=4, repeat=8, round_drift=0.02, noise=0.05, backend="cuda", **kw)
    b = make_run("b", seed=2, rounds=4, repeat=8, round_drift=0.02, noise=0.05, backend="cuda", scale={TASK: 1.1}, **kw)
    return a, b


def test_unsaved_sides_are_told_to_compare_again_with_more_rounds():
    a, b = unsure_pair()
    cmp = compare_runs(a, b)
    table = cmp.table()
    assert "would settle it" in table, table
    assert "--add-to" not in table and "compare again with --rounds" in table


def test_saved_sides_are_told_to_add_rounds_to_both():
    a, b = unsure_pair()
    a.id, b.id = 3, 4
    table = compare_runs(a, b).table()
    assert "bench --add-to a --rounds" in table and "--add-to b" in table, table


def test_a_saved_run_compared_with_itself_is_said_to_be_the_same_run():
    a, _ = unsure_pair()
    a.id = 7
    cmp = compare_runs(a, a)
    assert any("the same saved run (a, #7)" in w for w in cmp.warnings)
    assert "warning: A and B are the same saved run" in cmp.table()
