"""The Ray device's direct connection on real sockets: whole messages with their arrays, only for a
peer that holds the key, and a peer that never answers costs a bounded wait."""
import os
import socket
import threading
import time

import numpy as np
import pytest

from qdexplorer.remote import channel
from qdexplorer.remote.channel import Channel


def _pair(key_server: bytes, key_client: bytes):
    server = socket.create_server(("127.0.0.1", 0))
    out: dict = {}

    def accept():
        try:
            out["server"] = Channel.accept(server, key_server)
        except Exception as e:  # noqa: BLE001 - the test looks at it
            out["error"] = e
    t = threading.Thread(target=accept)
    t.start()
    try:
        out["client"] = Channel.connect(server.getsockname()[:2], key_client, 1.0)
    except Exception as e:  # noqa: BLE001
        out["client_error"] = e
    t.join(15)
    server.close()
    return out


def test_messages_with_arrays_cross_whole_and_in_order():
    key = os.urandom(32)
    ends = _pair(key, key)
    a, b = ends["client"], ends["server"]
    try:
        big = np.arange(3 << 20, dtype=np.float32)   # 12 MB: out of band, received into its own memory
        small = np.array([[1, 2], [3, 4]], np.int64)
        sender = threading.Thread(target=lambda: (a.send({"x": big, "y": small, "n": 7}),
                                                  a.send(("second", big[::2]))))   # a strided view: in band
        sender.start()   # more than the sockets' buffers hold: the reader must run meanwhile
        assert b.poll(5)
        first = b.recv()
        np.testing.assert_array_equal(first["x"], big)
        np.testing.assert_array_equal(first["y"], small)
        assert first["n"] == 7 and first["x"].flags.writeable and first["x"].dtype == np.float32
        tag, arr = b.recv()
        assert tag == "second"
        np.testing.assert_array_equal(arr, big[::2])
        sender.join(10)
        assert not b.poll(0.05)   # nothing more, and nothing half-read
        b.send("reply")
        assert a.recv() == "reply"
        b.close()
        with pytest.raises((EOFError, OSError)):
            a.recv()
    finally:
        a.close()
        b.close()


def test_a_peer_without_the_key_is_refused_on_both_sides():
    ends = _pair(os.urandom(32), os.urandom(32))
    assert "client" not in ends and "server" not in ends, ends
    assert type(ends["client_error"]).__name__ == "AuthenticationError"


def test_a_peer_that_never_answers_fails_the_handshake_in_time(monkeypatch):
    monkeypatch.setattr(channel, "HANDSHAKE_S", 0.5)
    server = socket.create_server(("127.0.0.1", 0))   # listens, never accepts: the kernel completes the connect
    try:
        t0 = time.monotonic()
        with pytest.raises(OSError):
            Channel.connect(server.getsockname()[:2], os.urandom(32), 1.0)
        assert time.monotonic() - t0 < 5
    finally:
        server.close()


def test_reused_memory_is_never_memory_a_live_array_still_holds():
    """The client's end receives large arrays into memory kept from earlier messages, but only once
    nothing refers to them: an array still held keeps its values."""
    server = socket.create_server(("127.0.0.1", 0))
    key = os.urandom(32)
    got: dict = {}
    t = threading.Thread(target=lambda: got.setdefault("server", Channel.accept(server, key)))
    t.start()
    a = Channel.connect(server.getsockname()[:2], key, 1.0, reuse=True)
    t.join(15)
    server.close()
    b = got["server"]
    try:
        n = 1 << 18   # 1 MB of float32: pooled
        for_sender = [np.full(n, float(i), np.float32) for i in range(4)]
        sender = threading.Thread(target=lambda: [b.send({"x": v}) for v in for_sender])
        sender.start()
        first = a.recv()["x"]
        second = a.recv()["x"]
        assert not np.shares_memory(first, second)
        assert (first == 0).all() and (second == 1).all()
        del second   # its memory is free now
        third = a.recv()["x"]
        assert (first == 0).all() and (third == 2).all() and not np.shares_memory(first, third)
        kept = a._pool[n * 4]
        assert any(np.shares_memory(third, np.frombuffer(buf, np.uint8)) for buf in kept)   # reused, not new
        sender.join(10)
    finally:
        a.close()
        b.close()
