"""`--lock-clocks`: hold the GPU's SM clock at one frequency while runs are timed, and always let go.

A clock that follows load and temperature (345 MHz idle, 1980 MHz boosted, less when hot) moves
launch times by more than many changes worth finding; locking it is what NVIDIA's own benchmarks
do (`nvidia-smi -lgc`). NVML's `nvmlDeviceSetGpuLockedClocks` needs root (or the driver's
permission), so a refusal is expected and is reported in one line, with the run going on unlocked.

The lock outlives the process that set it: left behind, every later program on the machine runs
at that clock. So it is reset on every way out: leaving the `with` block (a normal end, an error,
Ctrl-C and SIGTERM, which the CLI turns into KeyboardInterrupt), and, for a process that is killed
or crashes, by a small guard process started beside the lock: it waits on a pipe from this
process and resets the clock when the pipe closes without the word that this process has reset
it itself.
"""
from __future__ import annotations

import ctypes
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from .clocks import NVML_CLOCK_SM, load_nvml

NVML_SUCCESS, NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_NO_PERMISSION = 0, 3, 4

# run by `python -c` in the guard process: nothing of qdexplorer is imported there
_GUARD = r"""
import ctypes, sys
dev = int(sys.argv[1])
sys.stdout.write("ready\n"); sys.stdout.flush()
said = sys.stdin.read()
if "released" not in said:
    lib = ctypes.CDLL(sys.argv[2])
    if lib.nvmlInit_v2() == 0:
        h = ctypes.c_void_p()
        if lib.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(dev), ctypes.byref(h)) == 0:
            rc = lib.nvmlDeviceResetGpuLockedClocks(h)
            sys.stderr.write("qdexplorer: the process that locked GPU %d's clocks ended without releasing them; "
                             "reset them (%s)\n" % (dev, "done" if rc == 0 else "NVML error %d" % rc))
"""


class ClockLockRefused(Exception):
    """The driver (or the machine) did not let the clocks be locked; the message says why."""


@dataclass(frozen=True)
class LockState:
    device: int
    sm_mhz: int


_held: list[LockState] = []


def held() -> dict[str, Any]:
    """What a run's context records about a lock this process holds now: {} when none."""
    return {"locked_sm": _held[-1].sm_mhz} if _held else {}


def _error_text(lib: Any, rc: int) -> str:
    fn = getattr(lib, "nvmlErrorString", None)
    if fn is not None:
        fn.restype = ctypes.c_char_p
        text = fn(rc)
        if isinstance(text, bytes) and text:
            return text.decode(errors="replace")
    return f"NVML error {rc}"


def _why(lib: Any, rc: int, mhz: int) -> str:
    base = f"the driver refused to lock the SM clock at {mhz} MHz ({_error_text(lib, rc)})"
    if rc == NVML_ERROR_NO_PERMISSION:
        return (base + ": locking clocks needs root; run as root, or lock them yourself with "
                f"`sudo nvidia-smi -lgc {mhz},{mhz}` (and `sudo nvidia-smi -rgc` after)")
    if rc == NVML_ERROR_NOT_SUPPORTED:
        return base + ": this GPU or driver does not support locked clocks (Volta or newer is needed)"
    return base


class ClockLock:
    """`with ClockLock(mhz=None):` locks GPU `device`'s SM clock at `mhz` (None: its default
    applications clock, the clock it is meant to run at under load), and resets it on the way out.
    Raises ClockLockRefused on entry when there is no NVML or the driver refuses."""

    def __init__(self, device: int = 0, mhz: int | None = None, lib: Any = None, guard: bool = True):
        self.device, self.mhz = device, mhz
        self._lib, self._guard_wanted = lib, guard and lib is None
        self._handle = ctypes.c_void_p()
        self._guard: subprocess.Popen | None = None
        self.locked: int | None = None

    def _target(self, lib: Any) -> int:
        if self.mhz is not None:
            return self.mhz
        for fn in ("nvmlDeviceGetDefaultApplicationsClock", "nvmlDeviceGetMaxClockInfo"):
            v = ctypes.c_uint()
            f = getattr(lib, fn, None)
            if f is not None and f(self._handle, ctypes.c_int(NVML_CLOCK_SM), ctypes.byref(v)) == NVML_SUCCESS \
                    and v.value:
                return int(v.value)
        raise ClockLockRefused("cannot read the GPU's default SM clock from NVML: give one, --lock-clocks MHZ")

    def __enter__(self) -> ClockLock:
        lib = self._lib if self._lib is not None else load_nvml()
        if lib is None:
            raise ClockLockRefused("no NVML here (no NVIDIA driver): there are no GPU clocks to lock")
        if lib.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(self.device), ctypes.byref(self._handle)) != NVML_SUCCESS:
            raise ClockLockRefused(f"NVML has no GPU {self.device}")
        mhz = self._target(lib)
        if self._guard_wanted:   # started first: no moment where the clock is locked and nothing guards it
            self._guard = _start_guard(self.device)
        rc = lib.nvmlDeviceSetGpuLockedClocks(self._handle, ctypes.c_uint(mhz), ctypes.c_uint(mhz))
        if rc != NVML_SUCCESS:
            self._stop_guard(released=True)   # nothing was locked: nothing for it to reset
            raise ClockLockRefused(_why(lib, rc, mhz))
        self._lib, self.locked = lib, mhz
        _held.append(LockState(self.device, mhz))
        return self

    def release(self) -> str:
        """Reset the lock (once); "" when done, else what NVML said."""
        if self.locked is None:
            return ""
        self.locked = None
        _held[:] = [s for s in _held if s.device != self.device]
        rc = self._lib.nvmlDeviceResetGpuLockedClocks(self._handle)
        if rc == NVML_SUCCESS:
            self._stop_guard(released=True)
            return ""
        self._stop_guard()   # the guard tries once more as it leaves
        return f"could not reset GPU {self.device}'s locked clocks ({_error_text(self._lib, rc)}): run `sudo nvidia-smi -rgc`"

    def __exit__(self, *exc: object) -> None:
        msg = self.release()
        if msg:
            print(f"qdexplorer: {msg}", file=sys.stderr)

    def _stop_guard(self, released: bool = False) -> None:
        g, self._guard = self._guard, None
        if g is None:
            return
        try:
            assert g.stdin is not None
            g.stdin.write(b"released\n" if released else b"")
            g.stdin.close()
        except OSError:
            pass
        try:
            g.wait(10)
        except subprocess.TimeoutExpired:
            g.kill()
            g.wait()


def _library_name() -> str:
    return "nvml.dll" if sys.platform == "win32" else "libnvidia-ml.so.1"


def _start_guard(device: int) -> subprocess.Popen:
    # its own session: the Ctrl-C or SIGTERM that reaches this process's group does not reach it,
    # so it outlives a killed parent long enough to reset the clock
    g = subprocess.Popen([sys.executable, "-c", _GUARD, str(device), _library_name()], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, start_new_session=sys.platform != "win32")
    assert g.stdout is not None
    g.stdout.readline()   # "ready": it holds the pipe before the clock is locked
    return g
