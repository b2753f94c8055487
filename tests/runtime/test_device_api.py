"""One Device protocol: the in-process device and the worker client take the same calls and give
the same results, so the engine never asks which one it holds."""
import inspect
import threading

import numpy as np

from qdexplorer.runtime.device import LocalDevice
from qdexplorer.runtime.device_api import Device
from qdexplorer.runtime.client import DeviceClient

from .conftest import Recorder

PROTOCOL = ["close", "info", "load", "loaded_tasks", "run", "unload"]


def test_both_devices_have_the_protocols_signatures_exactly():
    assert sorted(n for n in vars(Device) if not n.startswith("_") and callable(getattr(Device, n))) == PROTOCOL
    for name in PROTOCOL:
        want = inspect.signature(getattr(Device, name))
        assert inspect.signature(getattr(LocalDevice, name)) == want, name
        assert inspect.signature(getattr(DeviceClient, name)) == want, name


def test_a_device_is_a_device(device):
    assert isinstance(device, Device)
    assert device.backend_name == "cpu"
    assert device.info()["backend"] == "cpu"


def test_a_run_streams_its_launches_and_is_checked_once(device, host):
    x = np.arange(1000, dtype=np.float32)
    args = {"x": x}
    sink = Recorder(args)
    out = device.run(host.job(args, repeat=5, warmup=2), args, sink, threading.Event())
    assert (out.launches, out.stopped, out.error) == (15, False, "")
    assert sink.launches == 15
    assert [tm.task for b in sink.batches for tm in b] == list(host.names) * 5
    assert sorted({tm.repeat for b in sink.batches for tm in b}) == [0, 1, 2, 3, 4]
    (first,) = sink.at_checkpoint                       # once, with the first pass's outputs in args
    expected = (np.arange(1000, dtype=np.float32) + 1) * 2 - 3
    np.testing.assert_array_equal(first["x"], expected)  # warm-ups ran on a copy


def test_stop_is_honoured_after_the_checked_pass(device, host):
    args = {"x": np.zeros(1000, np.float32)}
    stop = threading.Event()
    sink = Recorder(args, stop=stop)                    # presses Stop at the checkpoint
    out = device.run(host.job(args, repeat=100_000), args, sink, stop)
    assert out.stopped and out.error == ""
    assert len(sink.at_checkpoint) == 1
    assert sink.launches == out.launches
    if isinstance(device, LocalDevice):
        assert out.launches == 3                        # not one launch after the first pass
    else:
        assert 3 <= out.launches < 300_000              # the halt crosses the pipe while launches go on


def test_stop_before_the_run_still_completes_the_first_pass(device, host):
    args = {"x": np.zeros(1000, np.float32)}
    stop = threading.Event()
    stop.set()
    sink = Recorder(args)
    out = device.run(host.job(args, repeat=100_000), args, sink, stop)
    assert out.stopped and out.launches >= 3 and len(sink.at_checkpoint) == 1
    np.testing.assert_array_equal(sink.at_checkpoint[0]["x"], np.full(1000, -1, np.float32))


def test_a_task_that_is_not_loaded_ends_the_run_with_its_error(device, host):
    device.unload([host.names[1]])
    assert device.loaded_tasks() == [host.names[0], host.names[2]]
    args = {"x": np.zeros(10, np.float32)}
    sink = Recorder(args)
    out = device.run(host.job(args, repeat=3), args, sink, threading.Event())
    assert out.fault_task == host.names[1] and "not loaded" in out.error
    assert out.launches == sink.launches == 1 and sink.at_checkpoint == []


def test_a_read_only_input_is_only_read_and_the_run_is_checked(device, host):
    """An input the caller made read-only reaches the device and is read there; the copy back at the
    checkpoint leaves it alone (on every path: in-process, the worker's pipe; tests/remote: Ray)."""
    x = np.arange(10, dtype=np.float32)
    x.flags.writeable = False
    args = {"x": x}
    sink = Recorder(args)
    out = device.run(host.job(args, repeat=2), args, sink, threading.Event())
    assert out.error == "" and out.launches == 6 and len(sink.at_checkpoint) == 1
    np.testing.assert_array_equal(x, np.arange(10, dtype=np.float32))   # untouched
