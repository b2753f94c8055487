"""Fresh A/B comparisons: interleaved rounds, module swaps without recompiling, the GPU acceptance."""
import os
import shutil
import subprocess
import sys

import pytest

from qdexplorer.bench.compare import compare_runs
from qdexplorer.bench.runner import Side, interleaved
from qdexplorer.engine import Engine
from qdexplorer.events import RunStarted
from qdexplorer.project.loader import bundled_demo
from qdexplorer.runtime.device import LocalDevice

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
from compare_override import main as compare_override_main, slowed_ptx  # noqa: E402

TASK = "saxpy_kernel_0_range_for"


@pytest.fixture
def demo(tmp_path):
    proj = tmp_path / "demo"
    shutil.copytree(bundled_demo(), proj)
    return proj


def test_rounds_alternate_a_and_b(demo, tmp_path):
    """Each side's runs in its own mode, and the side that goes first alternates (A B, B A, A B): going
    second in every round cost a 3 µs serial task 1.39x in an A/A on the CPU, which the paired comparison
    called `slower`."""
    order = []
    with Engine(demo, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        eng.subscribe(lambda ev: order.append(eng.mode) if isinstance(ev, RunStarted) else None)
        a = Side("per_task", eng)
        b = Side("whole", eng, {"mode": "whole"})
        ra, rb = interleaved(a, b, ["particles_64k"], rounds=3, per_round=4)
        assert eng.mode == "per_task"          # the variant ends with its side
    assert order == ["per_task", "whole", "whole", "per_task", "per_task", "whole"]
    for run, other in ((ra, "whole"), (rb, "per_task")):
        assert run.status == "complete" and run.context.interleaved_with == other
        assert run.context.rounds == 3 and run.context.repeat == 12
        assert len(run.tasks()) == 5
        assert sorted({ln.repeat for ln in run.launches}) == list(range(12))
    assert ra.context.mode == "per_task" and rb.context.mode == "whole"
    cmp = compare_runs(ra, rb)
    assert cmp.threshold == 0.05 and {t.task for t in cmp.tasks} == set(ra.tasks())


def test_generated_side_swaps_to_cached_code_without_recompiling(demo, tmp_path):
    with Engine(demo, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        _, cts = eng.compile(target="nvptx")
        ct = next(c for c in cts if c.task == TASK)
        eng.set_override(TASK, slowed_ptx(ct.ptx, TASK, 1000))
        for _ in range(2):
            _, cts = eng.compile(target="nvptx")
            ovr = next(c for c in cts if c.task == TASK)
            with eng.variant(hide_overrides=TASK):
                _, cts = eng.compile(target="nvptx")
            gen = next(c for c in cts if c.task == TASK)
            assert ovr.override == "active" and b"nanosleep" in ovr.loaded
            assert gen.override is None and gen.loaded == ct.generated and gen.tier == "memory"
        other = next(c for c in cts if c.task == "copy_kernel_0_range_for")
        assert other.tier == "memory"


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas (CUDA toolkit) is not on PATH")
def test_the_slowed_override_is_valid_ptx(demo, tmp_path):
    with Engine(demo, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        _, cts = eng.compile(target="nvptx")
    ct = next(c for c in cts if c.task == TASK)
    src = tmp_path / "slow.ptx"
    src.write_text(slowed_ptx(ct.ptx, TASK, 20000))
    p = subprocess.run(["ptxas", f"-arch={ct.arch}", str(src), "-o", str(tmp_path / "slow.cubin")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    with pytest.raises(ValueError, match="no .entry"):
        slowed_ptx(ct.ptx, "missing_task", 1)


@pytest.mark.cuda
def test_slowed_override_is_flagged_slower_on_the_gpu(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["compare_override.py", "--rounds", "4", "--out", str(tmp_path)])
    rc = compare_override_main()
    out = capsys.readouterr()
    assert rc == 0, out.err


def test_runs_record_the_flush_setting_and_cpu_runs_never_flush(demo, tmp_path):
    from qdexplorer.bench.runner import bench
    with Engine(demo, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        run = bench(eng, ["saxpy_1m"], repeat=3)
    assert run.status == "complete" and run.context.l2_flush is False  # no cache flush on the host


@pytest.mark.cuda
def test_l2_flush_scrubs_twice_the_l2_outside_the_timing(demo, tmp_path):
    # On the H200 a flushed 4 MB copy measured *faster* than an unflushed one (the scrub keeps the
    # clocks up between launches), so the flush's effect on one copy is no test. What must hold:
    # the scrub covers twice the L2 before every launch, and it is not part of the launch's time.
    from qdexplorer.bench.runner import bench
    with Engine(demo, backend="cuda", in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        flushed = bench(eng, ["copy_1m"], repeat=20, flush_l2=True)
    be = LocalDevice("cuda").backend
    try:
        be.flush_caches()
        assert be.memory.scrub is not None and be.memory.scrub[1] >= 2 * be.ctx.l2_bytes > 0
    finally:
        be.close()
    assert flushed.context.l2_flush
    times = sorted(ln.ms for ln in flushed.launches if ln.task == "copy_kernel_0_range_for")
    # writing 2 x L2 (about 100 MB) takes tens of microseconds; the copy of 4 MB a few
    assert times[len(times) // 2] < 0.02, times