"""The device worker process: same results as in-process, and a hang or a crash costs only the worker."""
import os
import textwrap
import threading

import numpy as np
import pytest

from qdexplorer.compiler.pipeline import Pipeline
from qdexplorer.compiler.pool import CompilePool, InlineCompiler
from qdexplorer.engine import Engine
from qdexplorer.events import LaunchesTimed, WorkerFaulted
from qdexplorer.lang.calls.bounds import trip_counts
from qdexplorer.project.loader import load_project
from qdexplorer.runtime.device_api import LoadItem, RunJob
from qdexplorer.runtime.faults import WorkerFault
from qdexplorer.runtime.worker import worker_device

from .conftest import Recorder

SPIN = textwrap.dedent("""\
    import numpy as np
    import qdexplorer.lang as qd

    @qd.kernel
    def spin(x: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(x.shape[0]):
            while x[i] >= 0:
                x[i] = x[i] + 0

    @qd.kernel
    def fine(x: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1

    @qd.kernel
    def wild(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i + 2000000000] = 1.0   # 8 GB past the array: no bounds checks, as in Quadrants

    @qd.workload(spin)
    def hang(rng):
        return dict(x=np.zeros(4, np.int32))

    @qd.workload(fine, check=lambda b, a: np.testing.assert_array_equal(a["x"], b["x"] + 1))
    def ok(rng):
        return dict(x=np.arange(4, dtype=np.int32))

    @qd.workload(wild)
    def crash(rng):
        return dict(x=np.zeros(4, np.float32))
    """)


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    folder = tmp_path_factory.mktemp("faulty") / "p"
    folder.mkdir()
    (folder / "k.py").write_text(SPIN)
    return folder


def _runs(eng, names, **kw):
    launches = []
    unsubscribe = eng.subscribe(lambda e: launches.extend(e.timings) if isinstance(e, LaunchesTimed) else None)
    try:
        return {r.workload: r for r in eng.run(names, **kw)}, launches
    finally:
        unsubscribe()


def test_worker_and_pool_run_the_demo_like_in_process():
    names = ["particles_64k", "jacobi_512"]
    with Engine(None, backend="cpu", workers=2) as eng:
        worker, w_launches = _runs(eng, names, repeat=3)
    with Engine(None, backend="cpu", in_process=True) as eng:
        local, l_launches = _runs(eng, names, repeat=3)
    assert {n: r.status for n, r in worker.items()} == {n: "passed" for n in names}
    assert {n: r.launches for n, r in worker.items()} == {n: r.launches for n, r in local.items()}
    assert worker["particles_64k"].launches == 15
    assert [(t.task, t.repeat) for t in w_launches] == [(t.task, t.repeat) for t in l_launches]


def test_hanging_task_kills_only_the_worker(faulty):
    with Engine(faulty, backend="cpu", launch_timeout=8.0, workers=1) as eng:
        faults = []
        eng.subscribe(lambda e: faults.append(e) if isinstance(e, WorkerFaulted) else None)
        (ok1,) = eng.run(["ok"])
        (hung,) = eng.run(["hang"])
        assert hung.status == "error" and "timed out" in hung.error
        assert [f.task for f in faults] == ["spin_kernel_0_range_for"] and faults[0].fault.kind == "timeout"
        (ok2,) = eng.run(["ok"])  # a fresh worker, with the earlier modules reloaded
        assert ok1.status == ok2.status == "passed" and len(faults) == 1


def test_a_crashing_cpu_task_costs_only_the_worker(faulty):
    with Engine(faulty, backend="cpu", workers=1) as eng:
        faults = []
        eng.subscribe(lambda e: faults.append(e) if isinstance(e, WorkerFaulted) else None)
        (res,) = eng.run(["crash"])
        assert res.status == "error" and "device worker died" in res.error
        assert res.fault_task == "wild_kernel_0_range_for" and faults[0].fault.kind == "died"
        assert eng.run(["ok"])[0].status == "passed"  # a fresh worker answers


def test_the_client_replaces_a_hung_worker_and_reloads_what_it_had(faulty):
    project = load_project(faulty)
    tasks = {name: project.kernels[name].tasks() for name in ("spin", "fine")}
    compiled = {name: Pipeline(InlineCompiler(), memo=False).compile(ts, "host") for name, ts in tasks.items()}
    dev = worker_device("cpu", timeout=3.0)
    try:
        dev.load([LoadItem(ct.spec, ct.output, ct.load_hash, ct.unit, ct.final_kind)
                  for cts in compiled.values() for ct in cts])
        pid = dev.transport.proc.pid
        x = np.zeros(4, np.int32)
        job = RunJob("hang", "spin", (compiled["spin"][0].task,), trip_counts(tasks["spin"], {"x": x}))
        with pytest.raises(WorkerFault) as hung:
            dev.run(job, {"x": x}, Recorder({"x": x}), threading.Event())
        assert hung.value.fault.kind == "timeout" and hung.value.task == "spin_kernel_0_range_for"
        assert dev.transport.proc is None and dev.restarts == 1

        y = np.arange(4, dtype=np.int32)
        job = RunJob("ok", "fine", (compiled["fine"][0].task,), trip_counts(tasks["fine"], {"x": y}))
        out = dev.run(job, {"x": y}, Recorder({"x": y}), threading.Event())   # loaded again in a new worker
        assert out.launches == 1 and out.error == ""
        np.testing.assert_array_equal(y, [1, 2, 3, 4])
        assert dev.transport.proc.pid != pid and dev.transport.proc.is_alive()
        assert sorted(dev.loaded_tasks()) == sorted(ct.task for cts in compiled.values() for ct in cts)
    finally:
        dev.close()
    assert dev.transport.proc is None


def test_pool_uses_several_processes():
    pool = CompilePool(2)
    try:
        pool.warm()
        pids = {p.pid for p in pool._ex._processes.values()}
        assert len(pids) == 2 and os.getpid() not in pids
    finally:
        pool.close()
