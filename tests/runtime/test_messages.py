"""The worker's requests and replies as typed records, served by one function that knows no pipe."""
import pickle
import threading

import numpy as np

from qdexplorer.runtime.device import LocalDevice
from qdexplorer.runtime.device_api import LoadResult, RunOutcome
from qdexplorer.runtime.messages import (CheckpointMsg, ExitMsg, Failed, HaltMsg, LoadMsg, Ok, RunMsg, TimingsMsg,
                                         UnloadMsg)
from qdexplorer.runtime.serve import serve
from qdexplorer.runtime.shared_arrays import Layout, SharedArrays


def _serve(dev, msg, stop=None):
    sent = []
    answer = serve(dev, msg, sent.append, stop or threading.Event())
    return answer, sent


def test_load_unload_and_run_through_serve(host):
    dev = LocalDevice("cpu")
    try:
        answer, sent = _serve(dev, LoadMsg(host.items))
        assert isinstance(answer, Ok) and sent == []
        assert all(isinstance(r, LoadResult) and r.ok for r in answer.value)

        x = np.arange(100, dtype=np.float32)
        shared = SharedArrays.create({"x": x})
        try:
            answer, sent = _serve(dev, RunMsg(host.job({"x": x}, repeat=4), shared.layout, {}))
            assert isinstance(answer, Ok) and isinstance(answer.value, RunOutcome)
            assert answer.value.launches == 12
            kinds = [type(m) for m in sent]
            assert kinds.count(CheckpointMsg) == 1
            assert sum(len(m.batch) for m in sent if isinstance(m, TimingsMsg)) == 12
            before = kinds.index(CheckpointMsg)            # the first pass's timings precede its check
            assert sum(len(m.batch) for m in sent[:before] if isinstance(m, TimingsMsg)) == 3
            np.testing.assert_array_equal(shared.array("x"), (x + 1) * 2 - 3)  # outputs of the first pass
        finally:
            shared.close()

        answer, _ = _serve(dev, UnloadMsg([host.names[0]]))
        assert answer == Ok() and dev.loaded_tasks() == list(host.names[1:])
    finally:
        dev.close()


def test_a_run_whose_arrays_travel_by_value_sends_its_outputs_at_the_checkpoint(host):
    """A Ray actor gets the arrays themselves, read-only as its object store hands them out; the
    device works on its own copy and the checkpoint carries the first pass's outputs back."""
    dev = LocalDevice("cpu")
    try:
        _serve(dev, LoadMsg(host.items))
        x = np.arange(100, dtype=np.float32)
        x.flags.writeable = False
        answer, sent = _serve(dev, RunMsg(host.job({"x": x}, repeat=3), {"x": x}, {}))
        assert isinstance(answer, Ok) and answer.value.launches == 9
        (check,) = [m for m in sent if isinstance(m, CheckpointMsg)]
        np.testing.assert_array_equal(check.arrays["x"], (x + 1) * 2 - 3)
        np.testing.assert_array_equal(x, np.arange(100, dtype=np.float32))   # the sent array is untouched
    finally:
        dev.close()


def test_a_failed_request_is_reported_and_the_device_serves_on(host, tmp_path):
    dev = LocalDevice("cpu")
    try:
        _serve(dev, LoadMsg(host.items))
        gone = Layout(str(tmp_path / "no-such-arrays"), 256, (("x", 0, (10,), "<f4"),))
        answer, sent = _serve(dev, RunMsg(host.job({"x": np.zeros(10, np.float32)}), gone, {}))
        assert isinstance(answer, Failed) and "FileNotFoundError" in answer.error and sent == []
        assert dev.loaded_tasks() == list(host.names)
    finally:
        dev.close()


def test_halt_and_exit_are_not_work_for_a_device(host):
    dev = LocalDevice("cpu")
    try:
        for msg in (HaltMsg(), ExitMsg()):
            answer, _ = _serve(dev, msg)
            assert isinstance(answer, Failed) and "not a request a device serves" in answer.error
    finally:
        dev.close()


def test_every_message_crosses_a_pipe(host):
    """Messages are pickled into the pipe (and, later, into a remote call): they must round-trip."""
    x = np.zeros(4, np.float32)
    shared = SharedArrays.create({"x": x})
    try:
        for msg in (LoadMsg(host.items), UnloadMsg(["t"]), RunMsg(host.job({"x": x}), shared.layout, {"n": 3}),
                    HaltMsg(), ExitMsg(), Ok(RunOutcome(3)), Failed("e"), CheckpointMsg()):
            assert pickle.loads(pickle.dumps(msg)) == msg
    finally:
        shared.close()
