"""Real runs made in rounds on the CPU backend, and the A/A check: unchanged code is never called
slower or faster, saved or interleaved."""
import shutil

import pytest

from qdexplorer.bench.compare import compare_runs
from qdexplorer.bench.history import History
from qdexplorer.bench.runner import Side, bench, interleaved, round_sizes
from qdexplorer.engine import Engine
from qdexplorer.events import RunStarted
from qdexplorer.project.loader import bundled_demo

AA_WORKLOADS = ["saxpy_1m", "particles_64k", "heat_64k"]


@pytest.fixture
def demo(tmp_path):
    proj = tmp_path / "demo"
    shutil.copytree(bundled_demo(), proj)
    return proj


def test_round_sizes_split_the_repeats_evenly():
    assert round_sizes(7, 3) == [3, 2, 2] and round_sizes(20, None) == [2] * 10
    assert round_sizes(4, None) == [1] * 4 and round_sizes(5, 1) == [5]
    with pytest.raises(ValueError):
        round_sizes(5, 0)


def test_a_bench_run_is_made_in_rounds_with_the_workloads_taking_turns(demo, tmp_path):
    started = []
    with Engine(demo, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        eng.subscribe(lambda ev: started.append((ev.workload, ev.repeat)) if isinstance(ev, RunStarted) else None)
        with History(tmp_path / "h.sqlite") as h:
            run = bench(eng, ["saxpy_1m", "copy_1m"], repeat=7, rounds=3, warmup=2, history=h, name="r")
            back = h.load("r")
    # round 1: 2 warm-ups + 3 timed; later rounds 1 warm-up each; the workloads alternate who goes first
    assert started == [("saxpy_1m", 5), ("copy_1m", 5), ("copy_1m", 3), ("saxpy_1m", 3), ("saxpy_1m", 3),
                       ("copy_1m", 3)]
    assert run.status == "complete" and run.context.rounds == 3 and run.context.per_round == 3
    saxpy = [ln for ln in run.launches if ln.task == "saxpy_kernel_0_range_for"]
    assert [ln.repeat for ln in saxpy] == list(range(7)) and [ln.round for ln in saxpy] == [0, 0, 0, 1, 1, 2, 2]
    assert [len(x) for x in run.round_samples("saxpy_kernel_0_range_for").values()] == [3, 2, 2]
    assert back.launches == run.launches  # streamed into the history with their rounds
    assert run.context.clocks_mhz == {}   # no GPU: nothing sampled, nothing warned
    assert run.context.workloads == ["saxpy_1m", "copy_1m"]


def test_stop_ends_the_run_after_the_round_it_hit(demo, tmp_path):
    with Engine(demo, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        seen = []

        def on(ev):
            if isinstance(ev, RunStarted):
                seen.append(ev.workload)
                if len(seen) == 2:
                    eng.stop()  # inside the second round's run
        eng.subscribe(on)
        run = bench(eng, ["copy_1m"], repeat=12, rounds=6, warmup=0)
    assert run.status == "stopped" and len(seen) == 2
    assert {ln.round for ln in run.launches} <= {0, 1} and len(run.launches) >= 2


def test_interleaved_sides_share_a_pair_and_their_rounds(demo, tmp_path):
    with Engine(demo, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        ra, rb = interleaved(Side("A", eng), Side("B", eng), ["copy_1m"], rounds=3, per_round=2)
    assert ra.context.pair and ra.context.pair == rb.context.pair
    assert [ln.round for ln in ra.launches] == [0, 0, 1, 1, 2, 2]
    assert compare_runs(ra, rb).paired


def test_unchanged_code_is_never_slower_or_faster(demo, tmp_path):
    """A/A on the CPU backend: two saved runs of the demo, then the same code interleaved with
    itself. Drift between runs (a loaded 2-core machine) may make a task `unsure`, never changed."""
    with Engine(demo, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        a = bench(eng, AA_WORKLOADS, repeat=24, rounds=8)
        b = bench(eng, AA_WORKLOADS, repeat=24, rounds=8)
        fa, fb = interleaved(Side("A", eng), Side("B", eng), AA_WORKLOADS, rounds=8, per_round=3)
    for cmp in (compare_runs(a, b), compare_runs(fa, fb)):
        assert len(cmp.tasks) == 10 and cmp.total is not None
        assert cmp.tasks[0].rounds_a == cmp.tasks[0].rounds_b == 8
        wrong = [(t.task, t.verdict, t.ratio, t.ci) for t in cmp.tasks + [cmp.total]
                 if t.verdict not in ("same", "unsure")]
        assert wrong == [], cmp.table()


def test_a_stop_pressed_between_rounds_ends_the_run(demo, tmp_path):
    """Engine.run used to forget the Stop at the start of every call, so a Stop that landed between
    two rounds (the history commit, the next round's compile check) was cleared by the next round."""
    with Engine(demo, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        eng.stop()   # left over from an earlier run: a new bench must not end at once because of it
        rounds_done = []

        def on_round(done, total):
            rounds_done.append(done)
            if done == 2:
                eng.stop()   # between round 2 and round 3: no engine.run is in flight
        run = bench(eng, ["copy_1m", "saxpy_1m"], repeat=12, rounds=6, warmup=0, on_round=on_round)
    assert run.status == "stopped", run.message
    assert {ln.round for ln in run.launches} == {0, 1}   # no launch of round 3 or later
    assert rounds_done[:2] == [1, 2] and len(rounds_done) <= 3


def test_a_stop_pressed_between_interleaved_rounds_ends_the_comparison(demo, tmp_path):
    with Engine(demo, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        eng.stop()   # stale: forgotten by the comparison's first call

        def on_round(done, total):
            if done == 1:
                eng.stop()
        ra, rb = interleaved(Side("A", eng), Side("B", eng), ["copy_1m"], rounds=5, per_round=2, warmup=0,
                             on_round=on_round)
    assert ra.status == rb.status == "stopped"
    assert {ln.round for ln in ra.launches} == {ln.round for ln in rb.launches} == {0}
