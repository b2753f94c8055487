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


# an element of a vector/matrix field (vf0[i]), a struct field's member (sf0[i].m1, sf0.m1[i], sf0[i].inner.p)
# or an ndarray argument (a0[i, j]) as compound.py writes them
_PLACE = (r"(?:sf\d+\[[^\[\]]*\]\.(?:inner\.[pq]|m\d+)|sf\d+\.(?:inner\.[pq]|m\d+)\[[^\[\]]*\]"
          r"|(?:vf|va|a)\d+\[[^\[\]]*\])")
PLACE = re.compile(r"\b" + _PLACE)
ASSIGN = re.compile(r"^(\s*)(.+?) (=|\+=|-=|\*=|/=|\^=|\|=|&=) (.*)$")
COMPONENT_TARGET = re.compile(r"^(" + _PLACE + r")(\[[^\[\]]*\]|\.[xyzw])$")
ATOMIC_TARGET = re.compile(r"(qd\.atomic_\w+\()\s*$")


def fresh_vector_reads(source: str) -> str:
    """Every read of a container element in a kernel statement (its right-hand side, a condition) made
    first into a local of its own on the line before (`_r3 = vf0[i]`), the statement reading that
    local: the same program, bit for bit, under any semantics. Quadrants 1.3.3 reads some vector
    elements stale after a store to the whole element within one loop body (`c[i] = c[i] + c[i].zxx;
    c[i] = c[i] + c[i].xxz` adds the old c[i].xxz for an ndarray; a field does so with its optimizer
    off), while a read into a local (`t = c[i]`) sees the store: the runner's re-check of a value
    mismatch (seed 300075). A store to a component (`P[0] -= x`, `P.y += x`) becomes a store of the
    whole element through a local (`_w2 = P; _w2[0] -= x; P = _w2`): after a component store Quadrants
    reads even a local copy of the element stale (seed 310252)."""
    out: list[str] = []
    n = 0
    in_kernel = False
    for line in source.splitlines():
        if line.startswith("def "):
            in_kernel = out[-1:] == ["@qd.kernel"] or out[-1:] == ["@qd.func"]
        if not in_kernel or not line.startswith("        ") or line.strip().startswith(("for ", "else", "return", "qd.loop_config")):
            out.append(line)
            continue
        m = ASSIGN.match(line)
        indent = line[:len(line) - len(line.lstrip())]
        if m:
            head, rhs = f"{m.group(2)} {m.group(3)} ", m.group(4)
        elif line.strip().startswith(("if ", "while ")):
            kw = line.strip().split(" ", 1)[0]
            head, rhs = f"{kw} ", line.strip()[len(kw) + 1:]
        else:
            head, rhs = "", line.strip()
        pieces, last, hoisted = [], 0, []
        for pm in PLACE.finditer(rhs):
            if ATOMIC_TARGET.search(rhs[:pm.start()]):  # the target of an atomic stays itself
                continue
            n += 1
            hoisted.append(f"{indent}_r{n} = {pm.group(0)}")
            pieces.append(rhs[last:pm.start()] + f"_r{n}")
            last = pm.end()
        out += hoisted
        comp = COMPONENT_TARGET.match(m.group(2)) if m else None
        if comp:  # P[k] -= x as _w = P; _w[k] -= x; P = _w (a component store is read stale after it too)
            n += 1
            out += [f"{indent}_w{n} = {comp.group(1)}",
                    f"{indent}_w{n}{comp.group(2)} {m.group(3)} {''.join(pieces) + rhs[last:]}",
                    f"{indent}{comp.group(1)} = _w{n}"]
            continue
        out.append(indent + head + "".join(pieces) + rhs[last:] if hoisted else line)
    return "\n".join(out) + "\n"


def matmul_nan_only(want, got) -> bool:
    """Every difference of one output is a NaN in Quadrants where ours is not NaN, or a +0.0 in Quadrants
    where ours is -0.0 (or opposite infinities, divided from such zeros). Quadrants 1.3.3's `@` gives NaN
    in every entry of a product one of whose operands has an infinite entry (A @ X with X[0, 0] = inf:
    Quadrants NaN everywhere, IEEE [inf, 11, inf, 19] as ours; the dot product is exact), so
    infinities reached by overflow or x / 0 end as NaN there (seeds 117, 209, 232 of the first run);
    and its 3x3 `M @ v` gives +0.0 for a row whose products are all -0.0 (-15.5 * 0 + -1 * 0 + -1 * 0;
    IEEE, ours, its own 1x3 product and dot: -0.0; seed 310114), with its optimizer off too; tests in
    tests/lang/test_difftest_findings.py. A heuristic: the runner names it only for programs that use @."""
    import numpy as np
    if not (isinstance(want, np.ndarray) and isinstance(got, np.ndarray) and want.dtype == got.dtype
            and want.shape == got.shape and want.dtype.kind == "f"):
        return False
    differ = ~((want.view(f"u{want.dtype.itemsize}") == got.view(f"u{got.dtype.itemsize}"))
               | (np.isnan(want) & np.isnan(got)))
    with np.errstate(invalid="ignore"):
        quirk = (np.isnan(want) & ~np.isnan(got)) | ((want == 0) & (got == 0) & ~np.signbit(want) & np.signbit(got)) \
            | (np.isinf(want) & np.isinf(got) & (want == -got))
    return bool(differ.any()) and bool(quirk[differ].all())


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
        ms = self.recheck_zero_sign(prog, text, got, compare(want, got, prog.cls, narrowest(text)))
        if ms and all(m.kind in ("value", "zero_sign") for m in ms) and " @ " in text:
            # as run, or (the stale reads named above mixed in) with every container element read into a local
            fresh = self.ref.run(f"dt_{prog.seed}_{self.ref.runs}_fresh_mm", fresh_vector_reads(text), prog.init)
            for ref in (want, fresh):
                if not ref.get("ok") or set(ref["result"]) != set(got["result"]):
                    continue
                keys = [m.key for m in compare(ref, got, prog.cls, narrowest(text))]
                if all(m.kind in ("value", "zero_sign") for m in compare(ref, got, prog.cls, narrowest(text))) and \
                        keys and all(matmul_nan_only(ref["result"][k], got["result"][k]) for k in keys):
                    how = "" if ref is want else " (with every container element read into a local first)"
                    return [Mismatch("quadrants_matmul_nan", m.key, f"{m.detail}; every difference a NaN or a +0.0 in "
                                     f"Quadrants only{how}, in a program with @") for m in ms]
        return ms

    def recheck_zero_sign(self, prog: Program, text: str, got: dict, ms: list[Mismatch]) -> list[Mismatch]:
        """`ms` as it is, unless only signs of zeros differ and Quadrants unoptimized gives `got`."""
        if ms and all(m.kind == "value" or m.kind == "zero_sign" for m in ms) and not zero_sign_only(ms):
            # other values differ too (as when x / -0.0 decides a branch, seed 206523): only the text
            # with its float constants read at run time is tried, which changes nothing but constants
            again = self.ref.run(f"dt_{prog.seed}_{self.ref.runs}_opaque", opaque_float_constants(text), prog.init)
            if again.get("ok") and not compare(again, got, prog.cls, narrowest(text)):
                return [Mismatch("quadrants_constants", m.key, f"{m.detail}; Quadrants with its float constants "
                                 f"read at run time gives ours") for m in ms]
            # then with every container element read into a local first (fresh_vector_reads)
            again = self.ref.run(f"dt_{prog.seed}_{self.ref.runs}_fresh", fresh_vector_reads(text), prog.init)
            if again.get("ok") and not compare(again, got, prog.cls, narrowest(text)):
                return [Mismatch("quadrants_stale_read", m.key, f"{m.detail}; Quadrants with every container "
                                 f"element read into a local first gives ours") for m in ms]
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
                 (opaque_float_constants(text), prog.init, "its float constants read at run time"),
                 # the stale vector reads of the vector classes may move a zero's sign too
                 (fresh_vector_reads(text), dict(prog.init, **QUADRANTS_UNOPTIMIZED),
                  "every container element read into a local first, advanced_optimization=False, opt_level=0"),
                 (opaque_float_constants(fresh_vector_reads(text)), prog.init,
                  "every container element read into a local first and its float constants read at run time")]
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
