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
import sys
import threading
from multiprocessing.connection import Connection, answer_challenge, deliver_challenge
from typing import Any

_HEAD = struct.Struct("!QI")   # pickle length, number of out-of-band buffers
HANDSHAKE_S = 10.0
POOL_MIN = 1 << 20   # out-of-band buffers this large are received into memory kept for the next message


def _os_timeouts(sock: socket.socket, seconds: float) -> None:
    """The kernel's own send/receive timeouts (0: none), which a duplicated descriptor shares."""
    if sys.platform == "win32":   # a DWORD of milliseconds there
        tv = struct.pack("I", int(seconds * 1000))
    else:   # struct timeval
        tv = struct.pack("ll", int(seconds), int((seconds % 1) * 1e6))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)


class Channel:
    """Whole messages both ways over a connected socket; `send` may be called from several threads.

    `reuse`: large buffers are received into memory that an earlier message used, once nothing
    refers to it any more (fresh memory is page-faulted in as it fills: 5 ms a MB on the 2-core VM).
    For a receiver that copies what it receives and lets go of it, as the client does at a checkpoint.
    """

    def __init__(self, sock: socket.socket, reuse: bool = False):
        sock.setblocking(True)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)   # Nagle would hold a reply ~40 ms for an ACK
        self.sock = sock
        self._send_lock = threading.Lock()
        self._pool: dict[int, list[bytearray]] | None = {} if reuse else None

    @classmethod
    def accept(cls, server: socket.socket, authkey: bytes) -> Channel:
        """The first connection to `server` that proves it holds `authkey` (raises otherwise)."""
        sock, _ = server.accept()
        return cls._authenticated(sock, authkey, server_side=True)

    @classmethod
    def connect(cls, address: tuple[str, int], authkey: bytes, timeout: float, reuse: bool = False) -> Channel:
        sock = socket.create_connection(address, timeout=timeout)
        return cls._authenticated(sock, authkey, server_side=False, reuse=reuse)

    @classmethod
    def _authenticated(cls, sock: socket.socket, authkey: bytes, server_side: bool, reuse: bool = False) -> Channel:
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
            return cls(sock, reuse)
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
        buffers = [self._exactly(n, self._pool is not None and n >= POOL_MIN) for n in sizes]
        return pickle.loads(head, buffers=buffers)

    def _exactly(self, n: int, pooled: bool = False) -> bytearray:
        buf = self._free(n) if pooled else bytearray(n)
        view, got = memoryview(buf), 0
        while got < n:
            k = self.sock.recv_into(view[got:], n - got)
            if not k:
                raise EOFError("the connection closed")
            got += k
        return buf

    def _free(self, n: int) -> bytearray:
        """A kept buffer of n bytes that nothing else refers to (the pool's list, the loop's name and
        getrefcount's argument are the only references), or a new one, kept from now on."""
        assert self._pool is not None
        kept = self._pool.setdefault(n, [])
        for buf in kept:
            if sys.getrefcount(buf) <= 3:
                return buf
        buf = bytearray(n)
        if len(kept) < 4:
            kept.append(buf)
        return buf

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)   # wakes a reader blocked in recv on another thread
        except OSError:
            pass
        self.sock.close()
