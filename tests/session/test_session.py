"""The Qt-free session model: events in, a consistent model and signals out; medians have a run scope."""
from qdexplorer.engine import Engine
from qdexplorer.session import Session


def test_session_follows_a_real_engine_and_scopes_medians_per_run(tmp_path):
    s = Session()
    changed, launches = [], []
    s.task_changed.connect(changed.append)
    s.launches_added.connect(lambda run, n: launches.append(n))
    with Engine(None, backend="cpu", workers=2, cache_dir=str(tmp_path / "c")) as eng:
        eng.on(s.apply)
        eng.announce()
        eng.compile(target="nvptx")
        assert s.project is not None and "saxpy" in s.project.kernels
        assert len(s.task_names()) >= 15
        ct = s.compiled_task("saxpy_kernel_0_range_for")
        assert ct is not None and ".entry saxpy_kernel_0_range_for" in ct.ptx
        assert "saxpy_kernel_0_range_for" in changed
        eng.run(["saxpy_1m"], repeat=3)
        eng.run(["saxpy_1m"], repeat=5)
    first, second = s.runs
    assert (first.status, second.status) == ("passed", "passed")
    assert len(first.times["saxpy_kernel_0_range_for"]) == 3 and len(second.times["saxpy_kernel_0_range_for"]) == 5
    assert s.median("saxpy_kernel_0_range_for") == second.median("saxpy_kernel_0_range_for")
    assert sum(launches) == 8
