"""Without Ray: what a sweep varies reaches the compiler and the device, a local sweep saves its
runs, and a local command never imports Ray."""
import os
import subprocess
import sys
import textwrap
import threading

from qdexplorer.bench.history import History
from qdexplorer.bench.sweep import grid, load_sweep, parse_over, project_defaults, saved_sweeps, sweep
from qdexplorer.engine import Engine
from qdexplorer.runtime.device import LocalDevice
from qdexplorer.runtime.device_api import LoadItem

from .projects import TASK, scale_project

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_block_dim_and_fast_math_variants_reach_the_launch_spec_and_the_ptx(tmp_path):
    with Engine(scale_project(tmp_path / "p"), backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        seen = {}
        for block, fast in ((64, True), (256, False)):
            with eng.variant(block_dim=block, fast_math=fast):
                eng.compile(target="nvptx")
                ct = eng.compiled_for(TASK, "nvptx")
                seen[block] = (ct.spec.block, ct.ptx)
        eng.compile(target="nvptx")
        after = eng.compiled_for(TASK, "nvptx")
    assert seen[64][0] == 64 and seen[256][0] == 256 and after.spec.block == 128   # the default comes back
    # fast math: x / 3.0 is x times the rounded reciprocal, as Quadrants' simplifier makes it; off: a division
    assert "div." not in seen[64][1] and "mul" in seen[64][1]
    assert "div.rn.f32" in seen[256][1] and "div.approx" not in seen[256][1]


def test_the_same_code_at_another_block_size_is_loaded_again(tmp_path):
    """Two block_dim variants have the same object code (and tag): reusing the loaded task would
    launch the second with the first one's block."""
    with Engine(scale_project(tmp_path / "p"), backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        items = {}
        for block in (64, 256):
            with eng.variant(block_dim=block):
                eng.compile()
                ct = eng.compiled_for(TASK)
                items[block] = LoadItem(ct.spec, ct.output, ct.load_hash, ct.unit, ct.final_kind)
    assert items[64].tag == items[256].tag and items[64].spec != items[256].spec
    dev = LocalDevice("cpu")
    try:
        (first,) = dev.load([items[64]])
        (second,) = dev.load([items[256]])
        (third,) = dev.load([items[256]])
        assert first.ok and second.ok and not second.reused and third.reused
        assert dev.backend.modules.entries[TASK][2].block_dim == 256   # the spec the CPU backend launches with
    finally:
        dev.close()


def test_a_local_sweep_saves_a_run_per_variant_and_reads_back(tmp_path):
    over = parse_over(["block_dim=64", "fast_math=on,off"])
    variants, default = grid(over, {"block_dim": 128, "fast_math": True})
    assert default.label == "block_dim=128,fast_math=on" and variants[0] == default and len(variants) == 3
    with Engine(scale_project(tmp_path / "p"), backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng, \
            History(tmp_path / "h.sqlite") as h:
        result = sweep([eng], over, {"block_dim": 128, "fast_math": True}, rounds=3, per_round=2, name="loc",
                       history=h)
        names = [s.label for s in h.list()]
        back = load_sweep(h, "loc")
    assert names == [f"loc:{v.label}@local" for v in variants] and result.status == "complete"
    assert [c.to_dict() for c in back.cells()] == [c.to_dict() for c in result.cells()]
    tasks, labels, ratios = result.heatmap()
    assert tasks == [TASK] and labels == [v.label for v in variants] and ratios[0][0] == 1.0
    assert all(r > 0 for r in ratios[0])


def test_stop_ends_a_sweep_early_and_keeps_what_it_measured(tmp_path):
    stop = threading.Event()
    with Engine(scale_project(tmp_path / "p"), backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng, \
            History(tmp_path / "h.sqlite") as h:
        defaults = project_defaults(eng)
        assert defaults == {"block_dim": 128, "fast_math": True, "mode": "per_task"}
        result = sweep([eng], parse_over(["block_dim=64,256"]), defaults, rounds=500, per_round=2, name="cut",
                       history=h, on_progress=lambda done, total: stop.set(), stop=stop)
        assert saved_sweeps(h) == ["cut"] and len(h.list()) == 3
    launches = [len(r.run.launches) for r in result.runs]
    assert result.status == "stopped" and all(r.run.status == "stopped" for r in result.runs)
    assert launches[0] > 0 and sum(launches) < 3 * 500 * 2


def test_a_local_run_never_imports_ray(tmp_path):
    proj = scale_project(tmp_path / "p")
    code = textwrap.dedent(f"""
        import sys
        from qdexplorer.cli import main
        assert main(["run", {str(proj)!r}, "--in-process", "--cache-dir", {str(tmp_path / "c")!r}]) == 0
        assert main(["devices"]) == 0
        loaded = [m for m in sys.modules if m == "ray" or m.startswith("ray.")]
        assert not loaded, loaded
    """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert p.returncode == 0, p.stderr[-2000:]


def test_sweep_progress_in_a_log_file_is_lines_not_carriage_returns(tmp_path):
    """stderr redirected to a file got one long line of \\r-separated counts; a log gets plain lines."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = subprocess.run([sys.executable, "-m", "qdexplorer.cli", "sweep", str(scale_project(tmp_path / "p")),
                        "--over", "block_dim=64", "--rounds", "3", "--repeat", "1", "--no-save"],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=root, QDEXPLORER_CACHE_DIR=str(tmp_path / "c")))
    assert p.returncode == 0, p.stderr
    assert "\r" not in p.stderr
    counts = [ln for ln in p.stderr.splitlines() if ln.startswith("sweep: ")]
    assert counts and counts[-1].endswith("variant turns") and len(counts) <= 11, p.stderr
