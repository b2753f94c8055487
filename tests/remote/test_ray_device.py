"""The Ray device on a local cluster (reached through Ray Client) with the CPU backend: the same runs,
streamed, stoppable, and a dead actor that costs nothing but the run in flight."""
import os
import shutil
import threading
import time

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install '.[test]')")

from qdexplorer.bench.history import History  # noqa: E402
from qdexplorer.bench.runner import bench  # noqa: E402
from qdexplorer.engine import Engine  # noqa: E402
from qdexplorer.events import LaunchesTimed, RunFinished, WorkerFaulted  # noqa: E402
from qdexplorer.project.loader import bundled_demo  # noqa: E402


@pytest.fixture
def demo(tmp_path):
    proj = tmp_path / "demo"
    shutil.copytree(bundled_demo(), proj)
    return proj


# Ray Client warns once more than 10 MB of task specs went out: the demo's 1M-element inputs go through the
# object store instead (ray.put), as Ray advises, so the run warns no more
@pytest.mark.filterwarnings("error::UserWarning")
def test_the_demo_runs_through_the_ray_device_as_it_does_locally(demo, tmp_path, cluster_address):
    with Engine(demo, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as local:
        here = {r.workload: (r.status, r.launches) for r in local.run(repeat=2)}
        local_tasks = {t for (_, t) in local.session.compiled}
    with Engine(demo, backend="cpu", cluster=cluster_address, cache_dir=str(tmp_path / "c")) as remote:
        there = {r.workload: (r.status, r.launches) for r in remote.run(repeat=2)}
        info = remote.device_info()
        remote_tasks = {t for (_, t) in remote.session.compiled}
    assert there == here and all(status in ("passed", "skipped") for status, _ in there.values())
    assert remote_tasks == local_tasks
    assert info["pid"] != os.getpid()   # the actor is another process: the project never went there


SLOW = """
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
    return dict(x=np.zeros(1024, np.float32), n=4000)
"""


@pytest.fixture
def slow(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "k.py").write_text(SLOW)
    return tmp_path / "p"


def test_timings_stream_and_stop_returns_within_a_second(slow, tmp_path, cluster_address):
    with Engine(slow, backend="cpu", cluster=cluster_address, cache_dir=str(tmp_path / "c")) as eng:
        eng.compile()
        batches, finished = [], []
        eng.subscribe(lambda e: batches.append(time.perf_counter()) if isinstance(e, LaunchesTimed) else None)
        eng.subscribe(lambda e: finished.append(time.perf_counter()) if isinstance(e, RunFinished) else None)
        eng.run(["busy_wl"], repeat=3)                       # starts the actor, loads
        pressed = []
        timer = threading.Timer(1.5, lambda: (pressed.append(time.perf_counter()), eng.stop()))
        batches.clear()
        timer.start()
        (res,) = eng.run(["busy_wl"], repeat=100000)
        done = time.perf_counter()
    assert res.status == "stopped" and res.check_error is None
    assert done - pressed[0] < 1.0
    assert len(batches) >= 2 and batches[0] < finished[-1]   # timings arrived while the run went on


def test_a_killed_actor_is_a_fault_the_history_survives_and_the_next_run_gets_a_new_actor(slow, tmp_path,
                                                                                          cluster_address):
    faults = []
    with Engine(slow, backend="cpu", cluster=cluster_address, cache_dir=str(tmp_path / "c")) as eng, \
            History(tmp_path / "h.sqlite") as h:
        eng.subscribe(lambda e: faults.append(e) if isinstance(e, WorkerFaulted) else None)
        first = bench(eng, ["busy_wl"], repeat=3, warmup=0, name="before", history=h)
        pid = eng.device_info()["pid"]

        def kill_soon():
            time.sleep(1.5)
            os.kill(pid, 9)
        threading.Thread(target=kill_soon, daemon=True).start()
        killed = bench(eng, ["busy_wl"], repeat=100000, warmup=0, name="killed", history=h)
        assert killed.status == "failed" and "device actor on node" in killed.message and "died" in killed.message
        assert len(faults) == 1 and faults[0].fault.kind == "died"
        (again,) = eng.run(["busy_wl"], repeat=2)
        assert again.status == "passed" and eng.device_info()["pid"] != pid
        saved = {s.label: s for s in h.list()}
    assert saved["before"].launches == len(first.launches) == 3
    assert saved["killed"].status == "failed" and saved["killed"].launches > 0   # what it measured is kept


@pytest.mark.long   # a private cluster of its own
def test_a_cluster_gpu_needs_no_cuda_on_this_machine(demo, tmp_path, monkeypatch):
    """A laptop without a GPU drives the cluster's: only a local cuda engine is refused here."""
    monkeypatch.setenv("QDEXPLORER_DISABLE_CUDA", "1")
    from qdexplorer.ir.errors import QdError
    from qdexplorer.runtime.cuda import detect
    monkeypatch.setattr(detect, "_status", [])
    with pytest.raises(QdError, match="cuda backend is unavailable here"):
        Engine(demo, backend="cuda", in_process=True, cache_dir=str(tmp_path / "c"))
    with Engine(demo, backend="cuda", cluster="local", arch="sm_90", cache_dir=str(tmp_path / "c")) as eng:
        assert eng.backend == "cuda" and eng.target == "nvptx"
        eng.set_backend("cpu")
        eng.set_backend("cuda")   # switching back is allowed too: the cluster says whether it has one


READ_ONLY = """
import numpy as np
import qdexplorer.lang as qd

@qd.kernel
def double(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        y[i] = x[i] * 2.0

@qd.workload(double, check=lambda b, a: np.testing.assert_array_equal(a["y"], b["x"] * 2))
def read_only(rng):
    x = np.arange(64, dtype=np.float32)
    x.flags.writeable = False   # only read: the kernel may take it, the copy back must leave it
    return dict(x=x, y=np.zeros(64, np.float32))
"""


def test_a_read_only_input_runs_on_the_ray_device_as_it_does_in_the_worker(tmp_path, cluster_address):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "k.py").write_text(READ_ONLY)
    with Engine(tmp_path / "p", backend="cpu", workers=1, cache_dir=str(tmp_path / "c")) as local:
        (here,) = local.run(["read_only"], repeat=2)
    with Engine(tmp_path / "p", backend="cpu", cluster=cluster_address, cache_dir=str(tmp_path / "c")) as remote:
        (there,) = remote.run(["read_only"], repeat=2)
    assert here.status == "passed", here.error
    assert (there.status, there.error, there.launches) == (here.status, here.error, here.launches)


@pytest.mark.parametrize("direct", [True, False], ids=["direct", "actor-calls"])
def test_a_short_run_is_one_round_trip_to_the_actor(tmp_path, cluster_address, monkeypatch, direct):
    """Over the actor's direct connection a run takes no actor call at all (Ray's machinery cost
    ~2 ms a run, the socket tens of µs). Without it (QDEXPLORER_RAY_DIRECT=0, or a node this machine
    cannot reach), the request carries the run and its answer carries the run's stream when the
    run is short (its timings, the outputs and the end): one actor call per run, where a request
    and then polls took two or more."""
    from types import SimpleNamespace

    from qdexplorer.remote import ray_device
    if not direct:
        monkeypatch.setenv("QDEXPLORER_RAY_DIRECT", "0")
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "k.py").write_text(READ_ONLY)
    with Engine(tmp_path / "p", backend="cpu", cluster=cluster_address, cache_dir=str(tmp_path / "c")) as remote:
        (first,) = remote.run(["read_only"], repeat=2)   # starts the actor and loads the task
        assert first.status == "passed", first.error
        assert (remote.device_info()["direct_connection"]) == direct
        calls = [0]

        def get(*a, **k):
            calls[0] += 1
            return ray.get(*a, **k)
        monkeypatch.setattr(ray_device, "ray", SimpleNamespace(get=get, put=ray.put, kill=ray.kill))
        per_run = []
        for _ in range(6):
            calls[0] = 0
            (res,) = remote.run(["read_only"], repeat=2)
            assert res.status == "passed", res.error
            per_run.append(calls[0])
    if direct:
        assert per_run == [0] * 6, per_run
    else:
        assert sorted(per_run)[2] == 1, per_run   # most runs; a loaded machine may make one outlast a poll


BIG_AND_SMALL = READ_ONLY + """
@qd.workload(double, check=lambda b, a: np.testing.assert_array_equal(a["y"], b["x"] * 2))
def big(rng):
    x = np.arange(3 << 20, dtype=np.float32)   # 12 MB each: over the object store, answered over the socket
    return dict(x=x, y=np.zeros_like(x))
"""


def test_big_and_small_runs_alternate_over_the_direct_connection(tmp_path, cluster_address):
    """A big run's arrays go through Ray's object store, a small run's over the socket; each run's
    outputs come back over the socket and are checked, and the client's reused receive memory
    never hands one run's outputs to another."""
    from qdexplorer.remote import ray_device
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "k.py").write_text(BIG_AND_SMALL)
    assert 12 << 20 > ray_device.BIG_RUN_BYTES > 512
    with Engine(tmp_path / "p", backend="cpu", cluster=cluster_address, cache_dir=str(tmp_path / "c")) as remote:
        statuses = [(r.workload, r.status, r.error or r.check_error)
                    for r in remote.run(["big", "read_only", "big"], repeat=2)]
        assert remote.device_info()["direct_connection"]
    assert all(s == "passed" for _, s, _ in statuses), statuses


@pytest.mark.parametrize("share, asked", [(None, 1.0), ("0.5", 0.5), ("1", 1.0), ("0.25 ", 0.25)])
def test_a_cuda_device_actor_asks_for_a_whole_gpu_or_the_share_it_is_given(monkeypatch, share, asked):
    """Issue 40: on a one-GPU machine two CUDA device actors (the Ray device against its actor-call
    fallback, say) can only both be placed if each asks for part of the GPU; a CPU actor asks for none."""
    from qdexplorer.remote.ray_device import RayActor
    if share is None:
        monkeypatch.delenv("QDEXPLORER_RAY_GPU_SHARE", raising=False)
    else:
        monkeypatch.setenv("QDEXPLORER_RAY_GPU_SHARE", share)
    assert RayActor("cuda", 5.0, None, {}, 0)._options()["num_gpus"] == asked
    assert RayActor("cpu", 5.0, None, {}, None)._options()["num_gpus"] == 0


@pytest.mark.parametrize("share", ["0", "1.5", "-1", "half"])
def test_a_gpu_share_outside_zero_to_one_is_refused_with_its_name(monkeypatch, share):
    from qdexplorer.remote.ray_device import RayActor
    monkeypatch.setenv("QDEXPLORER_RAY_GPU_SHARE", share)
    with pytest.raises(ValueError, match="QDEXPLORER_RAY_GPU_SHARE"):
        RayActor("cuda", 5.0, None, {}, 0)._options()
