"""Runs as a user sees them: inputs built once in the app, timings that stream, Stop, per-launch timeout."""
import textwrap
import threading
import time

import pytest

from qdexplorer.engine import Engine
from qdexplorer.events import LaunchesTimed, RunFinished, TasksForgotten

SLOW = """
import os
import numpy as np
import qdexplorer.lang as qd

@qd.kernel
def busy(x: qd.types.ndarray(dtype=qd.f32, ndim=1), n: qd.i32):
    for i in range(x.shape[0]):
        acc = x[i]
        for j in range(n):
            acc = acc * 0.999 + 0.001
        x[i] = acc

@qd.workload(busy, check=lambda b, a: np.testing.assert_array_less(a["x"], 1.0001))
def busy_wl(rng):
    with open(os.environ["QDX_TEST_CALLS"], "a") as fh:   # counts where and how often inputs are built
        fh.write(f"{os.getpid()}\\n")
    return dict(x=np.zeros(1024, np.float32), n=80000)   # ~10 ms a launch: host fast math (reassoc) made n=4000 take 0.9 ms
"""


@pytest.fixture
def slow_project(tmp_path, monkeypatch):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "k.py").write_text(textwrap.dedent(SLOW))
    calls = tmp_path / "calls.txt"
    monkeypatch.setenv("QDX_TEST_CALLS", str(calls))
    return tmp_path / "p", calls


def test_inputs_are_built_once_in_the_app_and_timings_stream(slow_project):
    import os
    proj, calls = slow_project
    with Engine(proj, backend="cpu", workers=1, cache_dir=str(proj.parent / "c")) as eng:
        batches = []
        finished_at = []
        eng.subscribe(lambda e: batches.append(time.perf_counter()) if isinstance(e, LaunchesTimed) else None)
        eng.subscribe(lambda e: finished_at.append(time.perf_counter()) if isinstance(e, RunFinished) else None)
        (res,) = eng.run(["busy_wl"], repeat=30)
        assert res.status == "passed", res.error or res.check_error
        assert res.launches == 30 and len(eng.session.runs[-1].timings) == 30   # stored once, in the session
        assert len(batches) >= 2 and batches[0] < finished_at[0]  # timings arrived while the run went on
    pids = calls.read_text().split()
    assert pids == [str(os.getpid())]  # once, in this (the app) process: the worker never imports the project


def test_stop_ends_a_run_and_keeps_its_timings(slow_project):
    # how soon is measured by benchmarks/stop_latency.py: a wall-clock bound here failed under load
    proj, _ = slow_project
    with Engine(proj, backend="cpu", workers=1, cache_dir=str(proj.parent / "c")) as eng:
        eng.compile()
        timer = threading.Timer(1.0, eng.stop)
        timer.start()
        (res,) = eng.run(["busy_wl"], repeat=100000)
        assert res.status == "stopped" and res.stopped and res.launches < 100000
        assert res.check_error is None          # the first pass was checked before the stop
        assert res.launches >= 1 and eng.session.runs[-1].launches == res.launches


def test_timeout_is_per_launch_not_per_run(slow_project):
    proj, _ = slow_project
    with Engine(proj, backend="cpu", workers=1, launch_timeout=1.0, cache_dir=str(proj.parent / "c")) as eng:
        t0 = time.perf_counter()
        (res,) = eng.run(["busy_wl"], repeat=150)
        assert res.status == "passed", res.error
        per_launch = max(t.ms for t in eng.session.runs[-1].timings) / 1e3
        assert per_launch < 1.0 and time.perf_counter() - t0 > 1.0  # the run outlived the timeout


def test_modules_of_vanished_tasks_are_unloaded(tmp_path):
    src = tmp_path / "k.py"
    two = textwrap.dedent("""
        import numpy as np
        import qdexplorer.lang as qd

        @qd.kernel
        def k(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
            for i in range(x.shape[0]):
                x[i] = x[i] + 1.0
            for i in range(x.shape[0]):
                x[i] = x[i] * 2.0

        @qd.workload(k, check=lambda b, a: np.testing.assert_allclose(a["x"], (b["x"] + 1) * 2))
        def w(rng):
            return dict(x=np.ones(8, np.float32))
        """)
    src.write_text(two)
    with Engine(tmp_path, backend="cpu", workers=1, cache_dir=str(tmp_path / "c")) as eng:
        forgotten = []
        eng.subscribe(lambda e: forgotten.extend(e.tasks) if isinstance(e, TasksForgotten) else None)
        assert eng.run(["w"])[0].status == "passed"
        assert eng.compiled_for("k_kernel_1_range_for") is not None
        one = two.replace("    for i in range(x.shape[0]):\n        x[i] = x[i] * 2.0\n", "")
        src.write_text(one.replace('(b["x"] + 1) * 2', 'b["x"] + 1'))
        eng.refresh()
        eng.compile()
        assert forgotten == ["k_kernel_1_range_for"]
        assert eng.compiled_for("k_kernel_1_range_for") is None            # the store forgot it
        assert eng.compiled_for("k_kernel_0_range_for") is not None
        assert eng.run(["w"])[0].status == "passed"


def test_warm_ups_do_not_change_what_the_first_pass_is_checked_against(tmp_path):
    # particles_64k updates its particles in place: a warm-up on the checked inputs would fail the check
    with Engine(None, backend="cpu", workers=1, cache_dir=str(tmp_path / "c")) as eng:
        (res,) = eng.run(["particles_64k"], repeat=2, warmup=3)
        assert res.status == "passed", res.check_error or res.error
        assert res.launches == 2 * 5
