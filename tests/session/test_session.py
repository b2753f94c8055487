"""The Qt-free session model: events in, a consistent model and signals out; medians have a run scope."""
from qdexplorer.engine import Engine
from qdexplorer.session import Session


def test_session_follows_a_real_engine_and_scopes_medians_per_run(tmp_path):
    s = Session()
    changed, launches = [], []
    s.task_changed.connect(changed.append)
    s.launches_added.connect(lambda run, n: launches.append(n))
    with Engine(None, backend="cpu", workers=2, cache_dir=str(tmp_path / "c")) as eng:
        eng.subscribe(s.apply)
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


DRIFT = """
import numpy as np
import qdexplorer.lang as qd

@qd.kernel
def k(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        x[i] = x[i] + 1.0
    for i in range(x.shape[0]):
        x[i] = x[i] * 2.0

@qd.kernel
def other(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        x[i] = 0.0
"""


def test_an_edit_that_removes_a_task_leaves_no_trace_in_either_session(tmp_path):
    """The drift the application-layer review found: the engine dropped a vanished task and the
    session kept it. Both stores are now folded from the same events, so both forget it."""
    src = tmp_path / "k.py"
    src.write_text(DRIFT)
    mirror = Session()   # the window's copy, fed the same events
    with Engine(tmp_path, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        eng.subscribe(mirror.apply)
        eng.announce()
        eng.compile(target="nvptx")
        both = {"k_kernel_0_range_for", "k_kernel_1_range_for", "other_kernel_0_range_for"}
        for s in (eng.session, mirror):
            assert {t for (_, t) in s.compiled} == both
        # the second loop of k goes, and so does the whole kernel `other`
        src.write_text(DRIFT.split("@qd.kernel\ndef other")[0].replace(
            "    for i in range(x.shape[0]):\n        x[i] = x[i] * 2.0\n", ""))
        eng.refresh()
        eng.compile(target="nvptx")
        for s in (eng.session, mirror):
            assert {t for (_, t) in s.compiled} == {"k_kernel_0_range_for"}
            assert s.task_names() == ["k_kernel_0_range_for"] and list(s.kernels) == ["k"]
        assert eng.compiled_for("k_kernel_1_range_for", "nvptx") is None
