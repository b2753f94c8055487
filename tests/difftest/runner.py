"""Runs programs in the two long-lived children and compares their results.

A child that crashes (a segfault, an abort) or runs past the timeout is killed and started again;
the program gets the result "crash: ..." or "timeout", and its text is kept for the report.

A side that times out is run once more, alone (its partner idle), in a fresh child with
a longer limit (RETRY_FACTOR times the first, unless given): on a loaded machine a long-lived child can miss the limit on a
program that runs in seconds in a fresh process. A side that times out twice is reported as
"timeout twice", which `compare` classifies on its own (never as a pass)."""
from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import sys
import tempfile

from .child import read_msg, write_msg
from .compare import Mismatch, compare, narrowest, zero_sign_only
from .program import Program, as_ours

RETRY_FACTOR = 4.0
# Quadrants' own IR optimizations off: the re-check of a mismatch in the sign of zeros only
QUADRANTS_UNOPTIMIZED = {"advanced_optimization": False, "opt_level": 0}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def quadrants_available() -> str | None:
    """None if real Quadrants can be imported here, else why not (in a child: importing it is slow)."""
    r = subprocess.run([sys.executable, "-c", "import quadrants"], capture_output=True, text=True, timeout=120)
    return None if r.returncode == 0 else (r.stderr.strip().splitlines() or ["import failed"])[-1]


class Child:
    def __init__(self, impl: str, arch: str = "cpu", timeout: float = 60.0):
        self.impl, self.arch, self.timeout = impl, arch, timeout
        self.proc: subprocess.Popen | None = None
        self.version = ""
        self.folder = ""
        self.log = tempfile.TemporaryFile()
        self.runs = 0

    def start(self) -> None:
        env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.difftest.child", self.impl, self.arch],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     cwd=ROOT, env=env)
        hello = self._read(120.0)
        if hello is None:
            raise RuntimeError(f"the {self.impl} child did not start: {self.log_tail()}")
        self.version = hello.get("version", "")
        self.folder = hello.get("folder", "")  # its programs and Quadrants' cache: removed when it stops

    def log_tail(self, n: int = 2000) -> str:
        self.log.seek(0, 2)
        size = self.log.tell()
        self.log.seek(max(0, size - n))
        return self.log.read().decode(errors="replace")

    def _read(self, timeout: float):
        assert self.proc and self.proc.stdout
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        try:
            return read_msg(self.proc.stdout)
        except Exception:  # noqa: BLE001 - a truncated reply is a crash
            return None

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None
            if self.folder:
                shutil.rmtree(self.folder, ignore_errors=True)

    def run(self, name: str, source: str, init: dict) -> dict:
        sent = self.send(name, source, init)
        return sent if sent is not None else self.receive()

    def send(self, name: str, source: str, init: dict) -> dict | None:
        """Hand a program to the child; a reply now only if it could not be sent."""
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        assert self.proc and self.proc.stdin
        self.runs += 1
        try:
            write_msg(self.proc.stdin, {"name": name, "source": source, "init": init})
        except BrokenPipeError:
            self.stop()
            return {"ok": False, "error": "crash: the child had exited"}
        return None

    def receive(self) -> dict:
        assert self.proc is not None
        reply = self._read(self.timeout)
        if reply is None:
            try:  # an aborted child closes its pipe at once; one that is still running has timed out
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            timed_out = self.proc.poll() is None
            tail = self.log_tail(600)
            self.stop()
            return {"ok": False, "error": "timeout" if timed_out else f"crash: {tail.strip()[-300:]}"}
        return reply


FLOAT_CONSTANT = re.compile(r"qd\.cast\((-?[0-9][0-9.e+-]*|float\('nan'\)), (qd\.f(?:16|32|64))\)")


def opaque_float_constants(source: str) -> str:
    """Every `qd.cast(LITERAL, qd.fNN)` times a 1 read from the zero cell `dz` at run time: the same
    value bit for bit under IEEE 754, but no compiler can fold or simplify it as a constant. A -0.0
    literal becomes the negation of such a +0.0 (-0.0 is itself a constant that Quadrants would
    merge with a +0.0 one)."""
    def opaque(m: re.Match) -> str:
        lit, t = m.group(1), m.group(2)
        if lit.startswith("-") and "nan" not in lit and float(lit) == 0:
            return f"(-(qd.cast(0.0, {t}) * qd.cast(dz[None] + 1, {t})))"
        return f"({m.group(0)} * qd.cast(dz[None] + 1, {t}))"
    return FLOAT_CONSTANT.sub(opaque, source)


class Pair:
    """Quadrants and qdexplorer.lang side by side, one child each."""

    def __init__(self, arch: str = "cpu", timeout: float = 60.0, retry_timeout: float | None = None):
        self.retry_timeout = retry_timeout or timeout * RETRY_FACTOR
        self.ref = Child("quadrants", arch, timeout)
        self.ours = Child("ours", arch, timeout)
        self.retried: list[str] = []  # "quadrants NAME" / "ours NAME" of every program run again

    def run(self, prog: Program, source: str | None = None) -> tuple[dict, dict]:
        text = source if source is not None else prog.source
        name = f"dt_{prog.seed}_{self.ref.runs}"
        # both children work at once (each is one process; the machine has at least two cores)
        want = self.ref.send(name, text, prog.init)
        got = self.ours.send(name, as_ours(text), prog.init)
        want = want if want is not None else self.ref.receive()
        got = got if got is not None else self.ours.receive()
        if want.get("error") == "timeout":
            want = self.retry(self.ref, name, text, prog.init)
        if got.get("error") == "timeout":
            got = self.retry(self.ours, name, as_ours(text), prog.init)
        for side, reply in (("Quadrants", want), ("qdexplorer", got)):
            ran_on = str(reply.get("ran_on", self.ref.arch))
            if reply.get("ok") and self.ref.arch == "cuda" and "cuda" not in ran_on.lower():
                raise RuntimeError(f"{side} was asked for CUDA and ran on {ran_on} (no GPU?): a CUDA run "
                                   f"that compared CPU results would count for nothing")
        return want, got

    def retry(self, child: Child, name: str, source: str, init: dict) -> dict:
        """The program once more in a fresh child of that side, alone, with a longer limit."""
        self.retried.append(f"{child.impl} {name}")
        fresh = Child(child.impl, child.arch, self.retry_timeout)
        try:
            reply = fresh.run(name + "_retry", source, init)
        finally:
            fresh.stop()
        if reply.get("error") == "timeout":
            reply["error"] = "timeout twice"
        reply["retried"] = True
        return reply

    def check(self, prog: Program, source: str | None = None) -> list[Mismatch]:
        text = source if source is not None else prog.source
        want, got = self.run(prog, source)
        return self.recheck_zero_sign(prog, text, got, compare(want, got, prog.cls, narrowest(text)))

    def recheck_zero_sign(self, prog: Program, text: str, got: dict, ms: list[Mismatch]) -> list[Mismatch]:
        """`ms` as it is, unless only signs of zeros differ and Quadrants unoptimized gives `got`."""
        if ms and all(m.kind == "value" or m.kind == "zero_sign" for m in ms) and not zero_sign_only(ms):
            # other values differ too (as when x / -0.0 decides a branch, seed 206523): only the text
            # with its float constants read at run time is tried, which changes nothing but constants
            again = self.ref.run(f"dt_{prog.seed}_{self.ref.runs}_opaque", opaque_float_constants(text), prog.init)
            if again.get("ok") and not compare(again, got, prog.cls, narrowest(text)):
                return [Mismatch("quadrants_constants", m.key, f"{m.detail}; Quadrants with its float constants "
                                 f"read at run time gives ours") for m in ms]
            # then with Quadrants' optimizers off: with fast_math=False no optimization may change a bit,
            # yet Quadrants 1.3.3's reuses a vector component loaded before a store to the whole vector
            # (`v[i] = v[i][0] * v[i]; v[i] = qd.Vector([v[i][1], v[i][0]])` reads the old v[i][0]; difftest
            # class "vector", seed 178, tests/lang/test_difftest_findings.py)
            # (`v[i] += v[i].yyx; v[i] = v[i][1] * v[i]` reads the old v[i][1] too, there with opt_level=0 only
            # giving ours: the stale load survives advanced_optimization=False, seed 223 of the first run)
            for n, (init, how) in enumerate([(dict(prog.init, **QUADRANTS_UNOPTIMIZED), "advanced_optimization=False, opt_level=0"),
                                             (dict(prog.init, advanced_optimization=False), "advanced_optimization=False"),
                                             (dict(prog.init, opt_level=0), "opt_level=0")]):
                again = self.ref.run(f"dt_{prog.seed}_{self.ref.runs}_unopt{n}", text, init)
                if again.get("ok") and not compare(again, got, prog.cls, narrowest(text)):
                    return [Mismatch("quadrants_optimizer_value", m.key, f"{m.detail}; Quadrants with {how} gives ours")
                            for m in ms]
            return ms
        if not zero_sign_only(ms):
            return ms
        # Quadrants 1.3.3's IR optimizer treats -0.0 as +0.0 (tests/lang/test_difftest_findings.py):
        # it merges the constants -0.0 and +0.0 of one kernel, and simplifies 0 + x to x. Quadrants
        # runs the program again, first with its optimizer off, then (where that mode aborts, as its
        # operation demotion does on some programs) with opt_level=0 only, then as written but with
        # every float constant read at run time (`opaque_float_constants`). If either gives our bits, the optimizer's handling of
        # constants made the difference; if not, the mismatch stays unexplained.
        tries = [(text, dict(prog.init, **QUADRANTS_UNOPTIMIZED), "advanced_optimization=False, opt_level=0"),
                 (text, dict(prog.init, opt_level=0), "opt_level=0"),
                 (opaque_float_constants(text), prog.init, "its float constants read at run time")]
        for n, (source, init, how) in enumerate(tries):
            again = self.ref.run(f"dt_{prog.seed}_{self.ref.runs}_recheck{n}", source, init)
            if again.get("ok") and not compare(again, got, prog.cls, narrowest(text)):
                return [Mismatch("quadrants_optimizer_zero_sign", m.key, f"{m.detail}; Quadrants with {how} gives ours")
                        for m in ms]
        return ms

    def close(self) -> None:
        self.ref.stop()
        self.ours.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
