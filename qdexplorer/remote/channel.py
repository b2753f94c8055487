"""The Ray device's direct connection: messages over one TCP socket between the client and its actor.

Each message is a pickle (protocol 5) whose large buffers (a run's NumPy arrays, the outputs at the
checkpoint) travel out of band, each received straight into memory of its own: a
`multiprocessing.connection.Connection` moved 64 MB at ~150 MB/s on the 2-core VM (it builds the
message in several fresh buffers, each page-faulted in turn), this at the socket's speed. Both
ends prove they hold the key (the HMAC challenge of `multiprocessing.connection`) before anything
is unpickled.
"""
from __future__ import annotations

import os
import pickle
import select
import socket
import struct
import threading
from multiprocessing.connection import Connection, answer_challenge, deliver_challenge
from typing import Any

_HEAD = struct.Struct("!QI")   # pickle length, number of out-of-band buffers
HANDSHAKE_S = 10.0


def _os_timeouts(sock: socket.socket, seconds: float) -> None:
    """The kernel's own send/receive timeouts (0: none), which a duplicated descriptor shares."""
    tv = struct.pack("ll", int(seconds), int((seconds % 1) * 1e6))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)


class Channel:
    """Whole messages both ways over a connected socket; `send` may be called from several threads."""

    def __init__(self, sock: socket.socket):
        sock.setblocking(True)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)   # Nagle would hold a reply ~40 ms for an ACK
        self.sock = sock
        self._send_lock = threading.Lock()

    @classmethod
    def accept(cls, server: socket.socket, authkey: bytes) -> Channel:
        """The first connection to `server` that proves it holds `authkey` (raises otherwise)."""
        sock, _ = server.accept()
        return cls._authenticated(sock, authkey, server_side=True)

    @classmethod
    def connect(cls, address: tuple[str, int], authkey: bytes, timeout: float) -> Channel:
        sock = socket.create_connection(address, timeout=timeout)
        return cls._authenticated(sock, authkey, server_side=False)

    @classmethod
    def _authenticated(cls, sock: socket.socket, authkey: bytes, server_side: bool) -> Channel:
        try:
            sock.settimeout(None)   # blocking, but a peer that stops answering fails the handshake in HANDSHAKE_S
            _os_timeouts(sock, HANDSHAKE_S)
            probe = Connection(os.dup(sock.fileno()))   # the handshake's framing, on a duplicate of the socket
            try:
                if server_side:
                    deliver_challenge(probe, authkey)
                    answer_challenge(probe, authkey)
                else:
                    answer_challenge(probe, authkey)
                    deliver_challenge(probe, authkey)
            finally:
                probe.close()
            _os_timeouts(sock, 0.0)
            return cls(sock)
        except BaseException:
            sock.close()
            raise

    def send(self, obj: Any) -> None:
        """Raises OSError when the peer is gone."""
        buffers: list[pickle.PickleBuffer] = []
        head = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
        raws = [b.raw() for b in buffers]
        sizes = struct.pack(f"!{len(raws)}Q", *(r.nbytes for r in raws))
        with self._send_lock:
            self.sock.sendall(_HEAD.pack(len(head), len(raws)) + sizes + head)
            for r in raws:
                self.sock.sendall(r)

    def poll(self, timeout: float) -> bool:
        """A message (or the peer's end) is waiting. Messages are read whole, so nothing is buffered here."""
        return bool(select.select([self.sock], [], [], max(0.0, timeout))[0])

    def recv(self) -> Any:
        """The next message; EOFError when the peer closed the connection."""
        n_head, count = _HEAD.unpack(self._exactly(_HEAD.size))
        sizes = struct.unpack(f"!{count}Q", self._exactly(8 * count)) if count else ()
        head = self._exactly(n_head)
        buffers = [self._exactly(n) for n in sizes]
        return pickle.loads(head, buffers=buffers)

    def _exactly(self, n: int) -> bytearray:
        buf = bytearray(n)
        view, got = memoryview(buf), 0
        while got < n:
            k = self.sock.recv_into(view[got:], n - got)
            if not k:
                raise EOFError("the connection closed")
            got += k
        return buf

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)   # wakes a reader blocked in recv on another thread
        except OSError:
            pass
        self.sock.close()
