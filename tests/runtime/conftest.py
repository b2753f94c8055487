"""A small three-task kernel compiled for the host, loaded into either kind of device."""
import textwrap

import numpy as np
import pytest

from qdexplorer.compiler.pipeline import Pipeline
from qdexplorer.compiler.pool import InlineCompiler
from qdexplorer.lang.calls.bounds import trip_counts
from qdexplorer.project.loader import load_project
from qdexplorer.runtime.device import LocalDevice
from qdexplorer.runtime.device_api import LoadItem, RunJob
from qdexplorer.runtime.worker import worker_device

THREE = textwrap.dedent("""\
    import qdexplorer.lang as qd

    @qd.kernel
    def three(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1.0
        for i in range(x.shape[0]):
            x[i] = x[i] * 2.0
        for i in range(x.shape[0]):
            x[i] = x[i] - 3.0
    """)


class Host:
    """The kernel's tasks compiled for the host: what a device loads and a job names."""

    def __init__(self, folder):
        folder.mkdir()
        (folder / "k.py").write_text(THREE)
        self.tasks = load_project(folder).kernels["three"].tasks()
        self.compiled = Pipeline(InlineCompiler(), memo=False).compile(self.tasks, "host")
        assert all(ct.ok for ct in self.compiled), [ct.error for ct in self.compiled]
        self.items = [LoadItem(ct.spec, ct.output, ct.load_hash, ct.unit, ct.final_kind) for ct in self.compiled]
        self.names = tuple(ct.task for ct in self.compiled)

    def job(self, args, repeat=1, warmup=0):
        return RunJob("w", "three", self.names, trip_counts(self.tasks, args), repeat, warmup)


class Recorder:
    """A RunSink that keeps what it was given, and a copy of the arrays at the checkpoint."""

    def __init__(self, args, stop=None):
        self.args, self.stop = args, stop
        self.batches: list[list] = []
        self.at_checkpoint: list[dict] = []

    @property
    def launches(self):
        return sum(len(b) for b in self.batches)

    def timings(self, batch):
        self.batches.append(list(batch))

    def checkpoint(self):
        self.at_checkpoint.append({k: np.copy(v) for k, v in self.args.items()})
        if self.stop is not None:
            self.stop.set()


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    return Host(tmp_path_factory.mktemp("three") / "p")


@pytest.fixture(params=["local", "worker"])
def device(request, host):
    dev = LocalDevice("cpu") if request.param == "local" else worker_device("cpu", timeout=30.0)
    try:
        results = dev.load(host.items)
        assert [r.ok for r in results] == [True] * 3, results
        yield dev
    finally:
        dev.close()
