"""Streams, events and `with qd.stream_parallel():` as Quadrants 1.3.3 has them on the CPU (handles 0,
blocks run in order) and its QuadrantsSyntaxErrors for other `with` statements in kernels."""
import pytest

import qdexplorer.lang as qd


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_cpu_streams_and_events_have_handle_zero_and_are_importable_by_quadrants_path():
    from qdexplorer.lang.compat.module_paths import SAME
    assert SAME["quadrants.lang.stream"] == "qdexplorer.lang.host.streams"
    s, e = qd.create_stream(), qd.create_event()
    assert (s.handle, e.handle) == (0, 0)
    e.record(s)
    e.wait(qd_stream=s)
    e.synchronize()
    s.synchronize()


def test_stream_parallel_blocks_run_in_order_and_with_is_checked():
    a = qd.field(qd.f32, shape=(8,))

    @qd.kernel
    def k():
        with qd.stream_parallel():
            for i in range(8):
                a[i] = 1.0
        with qd.stream_parallel():
            for i in range(8):
                a[i] += 2.0

    k()
    assert (a.to_numpy() == 3.0).all()

    @qd.kernel
    def mixed():
        with qd.stream_parallel():
            for i in range(8):
                a[i] = 1.0
        for i in range(8):
            a[i] = 2.0

    with pytest.raises(qd.QuadrantsSyntaxError, match="all top-level statements"):
        mixed()

    @qd.kernel
    def named():
        with qd.stream_parallel() as z:  # noqa: F841
            for i in range(8):
                a[i] = 1.0

    with pytest.raises(qd.QuadrantsSyntaxError, match="with ... as"):
        named()

    @qd.func
    def helper():
        with qd.stream_parallel():
            for i in range(8):
                a[i] = 1.0

    @qd.kernel
    def via_func():
        helper()

    with pytest.raises(qd.QuadrantsSyntaxError, match="only be used inside @qd.kernel"):
        via_func()

    @qd.kernel(graph=True)
    def graph():
        with qd.stream_parallel():
            for i in range(8):
                a[i] = 1.0

    with pytest.raises(qd.QuadrantsSyntaxError, match="not compatible with graph=True"):
        graph()
