"""The GPU time of each timed launch: an event recorded before it and one after, on our stream, and
the elapsed time between them read back later, a batch at a time (one wait on the last end event).

`LaunchTimer` owns the events and when to read them. The native launch path (native_launch.py),
once built, records a launch's events in the same call as the launch, into an `EventRing`
borrowed by an argument set until its times are read; without it, cuda-python records them, on
event pairs kept for the next launches. A launch costs ~4 µs of the GPU's time, so its own steps
stay inline in `CudaBackend.launch`: the native timed call is bound once into the task's
`HotLaunch`, and the cuda-python path takes a free pair from `pairs`. The timer is called only
for a ring (once per argument set or 1,024 launches), a new pair, and the times (`finish`).
"""
from __future__ import annotations

import os
import sys
from typing import Any

from cuda.bindings import driver as cu

from .driver import check
from .launch_state import CudaPrepared
from .native_launch import EventRing, NativeLauncher, decode, native_launcher

_OK = cu.CUresult.CUDA_SUCCESS
# Timed launches through cuda-python before the native path is built in a process that has not
# imported LLVM yet (a device worker): importing it costs ~0.15 s, which a short run should not wait for.
NATIVE_AFTER = 1024


class LaunchTimer:
    """The timing of one backend's launches on its stream, and its native launch path."""

    def __init__(self, stream: Any):
        self.stream = stream   # ours: every event is recorded on it
        self.native: NativeLauncher | None = None  # the timed launch in one native call, once built
        self.native_error = ""  # why it could not be built, if it could not
        self.pairs: list[tuple[Any, Any]] = []  # cuda-python's (start, end) events, free for the next launches
        self.rings: list[EventRing] = []  # the native path's rings, free for the next argument sets
        self.python_timed = 0  # launches timed through cuda-python: when to build the native path

    def native_when_due(self, count_launches: bool = True) -> NativeLauncher | None:
        """The native path, built now if it is due: LLVM is loaded in this process already (a script
        compiles here), or, with `count_launches`, NATIVE_AFTER launches were timed without it."""
        if self.native is None and not self.native_error and (
                "llvmlite.binding" in sys.modules or (count_launches and self.python_timed >= NATIVE_AFTER)):
            self.build_native()
        return self.native

    def build_native(self) -> NativeLauncher | None:
        """The native launch path, once per timer; None (and `native_error` says why) where it
        cannot be built (it checks itself first) or was turned off (QDEXPLORER_NATIVE_LAUNCH=0); the
        cuda-python path then serves every launch. It is the default since it passed its CUDA tests
        on an H100 (issue 40)."""
        if self.native is None and not self.native_error:
            if os.environ.get("QDEXPLORER_NATIVE_LAUNCH", "1") == "0":
                self.native_error = "turned off (QDEXPLORER_NATIVE_LAUNCH=0)"
            else:
                try:
                    native = native_launcher()
                    native.self_check(self.stream)
                    self.native = native
                except Exception as e:  # noqa: BLE001 - the cuda-python path serves every launch
                    self.native_error = f"{type(e).__name__}: {e}"
        return self.native

    def ring(self) -> EventRing:
        """A ring for an argument set's next native timed launches (given back by `finish`)."""
        return self.rings.pop() if self.rings else EventRing()

    def event_pair(self) -> tuple[Any, Any]:
        """A (start, end) pair for a launch timed through cuda-python, when none is free."""
        mk = lambda: check("cuEventCreate", cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DEFAULT))  # noqa: E731
        return mk(), mk()

    def finish(self, prepared: CudaPrepared) -> None:
        """Wait for the argument set's timed launches; fill each timing from its events; pin a fault
        on its task.

        Events on one stream complete in order, so one wait on the last covers them all; on an
        error the first event that did not complete names the task that faulted.
        """
        pending = prepared.pending
        if not pending:
            return
        prepared.pending = []
        if prepared.ring is not None:
            self._finish_native(prepared, pending)
            return
        self.python_timed += len(pending)
        err, = cu.cuEventSynchronize(pending[-1][1][1])
        if err != _OK:
            for timing, ev in pending:
                if cu.cuEventQuery(ev[1])[0] != _OK:
                    check(f"launch of {timing.task}", (err,), timing.task)
            check("cuEventSynchronize", (err,), pending[-1][0].task)
        elapsed = cu.cuEventElapsedTime
        for timing, ev in pending:
            err, ms = elapsed(ev[0], ev[1])
            timing.ms = check("cuEventElapsedTime", (err,), timing.task) if err else ms
        self.pairs.extend(ev for _, ev in pending)

    def _finish_native(self, prepared: CudaPrepared, pending: list) -> None:
        """The native path's `finish`: one call waits for the last end event and reads every time."""
        ring = prepared.ring
        assert ring is not None and prepared.native is not None
        prepared.ring = None
        n = prepared.native.elapsed(ring.addr, ring.out_addr)
        if n < 0:  # the ring is not reused: its events may be in any state
            call, code = decode(n)
            err = cu.CUresult(code)
            if call == "cuEventSynchronize":
                for i, timing in enumerate(pending):
                    if cu.cuEventQuery(cu.CUevent(ring.handles(i)[1]))[0] != _OK:
                        check(f"launch of {timing.task}", (err,), timing.task)
            check(call, (err,), pending[-1].task)
            raise RuntimeError(f"reading the launch times back: {call}")
        for timing, ms in zip(pending, ring.out[:n].tolist()):
            timing.ms = ms
        self.rings.append(ring)

    def close(self) -> None:
        """Free the rings' events (the context must still be current)."""
        for ring in self.rings:
            ring.destroy()
        self.rings.clear()
