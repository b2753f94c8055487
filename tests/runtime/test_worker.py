"""The device worker process: same results as in-process, and a hang costs only the worker."""
import textwrap

import numpy as np

from qdexplorer.engine import Engine
from qdexplorer.events import LaunchesTimed, WorkerFaulted


def test_worker_and_pool_run_the_demo_like_in_process():
    with Engine(None, backend="cpu", workers=2) as eng:
        events = []
        eng.on(events.append)
        res = {r.workload: r for r in eng.run(["particles_64k", "jacobi_512"], repeat=3)}
        assert all(r.status == "passed" for r in res.values())
        assert len(res["particles_64k"].timings) == 15
        launches = [tm for e in events if isinstance(e, LaunchesTimed) for tm in e.timings]
        assert len(launches) == 15 + 6
        assert eng.device.proc.is_alive() and eng.device.proc.pid


def test_hanging_task_kills_only_the_worker(tmp_path):
    (tmp_path / "k.py").write_text(textwrap.dedent("""\
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

        @qd.workload(spin)
        def hang(rng):
            return dict(x=np.zeros(4, np.int32))

        @qd.workload(fine, check=lambda b, a: np.testing.assert_array_equal(a["x"], b["x"] + 1))
        def ok(rng):
            return dict(x=np.arange(4, dtype=np.int32))
        """))
    with Engine(tmp_path, backend="cpu", launch_timeout=8.0, workers=1) as eng:
        faults = []
        eng.on(lambda e: faults.append(e) if isinstance(e, WorkerFaulted) else None)
        (ok1,) = eng.run(["ok"])
        pid = eng.device.proc.pid
        (hung,) = eng.run(["hang"])
        assert hung.status == "error" and "timed out" in hung.error
        assert faults and faults[0].task == "spin_kernel_0_range_for"
        (ok2,) = eng.run(["ok"])  # a fresh worker, with the earlier modules reloaded
        assert ok1.status == ok2.status == "passed"
        assert eng.device.proc.pid != pid and eng.device.restarts == 1


def test_pool_uses_several_processes(tmp_path):
    from qdexplorer.compiler.pool import CompilePool
    pool = CompilePool(2)
    try:
        pool.warm()
        pids = {p.pid for p in pool._ex._processes.values()}
        assert len(pids) == 2
    finally:
        pool.close()
    _ = np


def test_a_crashing_cpu_task_costs_only_the_worker(tmp_path):
    (tmp_path / "k.py").write_text(textwrap.dedent("""\
        import numpy as np
        import qdexplorer.lang as qd

        @qd.kernel
        def wild(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
            for i in range(x.shape[0]):
                x[i + 2000000000] = 1.0   # 8 GB past the array: no bounds checks, as in Quadrants

        @qd.workload(wild)
        def crash(rng):
            return dict(x=np.zeros(4, np.float32))
        """))
    with Engine(tmp_path, backend="cpu", workers=1) as eng:
        (res,) = eng.run(["crash"])
        assert res.status == "error" and "device worker died" in res.error
        assert res.fault_task == "wild_kernel_0_range_for"
        eng.device.info()  # a fresh worker answers
        assert eng.device.restarts == 1 and eng.device.proc.is_alive()
