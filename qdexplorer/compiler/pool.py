"""The compile pool: worker processes that turn module text into PTX / objects.

LLVM can abort a process on bad input, so a crash must cost one task, not the app: when the
pool breaks, the unfinished requests are retried one by one in throwaway subprocesses whose
stderr (LLVM's own message) becomes the task's error.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol

from ..machine.llvm_binding import llvm_binding
from ..machine.helper_start import helper_context, helper_started
from .stages import CompileRequest, CompileResult, run_stage

_ISOLATED = ("import pickle, sys; from qdexplorer.compiler.stages import run_stage; "
             "r = run_stage(pickle.load(sys.stdin.buffer)); sys.stdout.buffer.write(pickle.dumps(r))")

OnDone = Callable[[int, CompileResult], None]


class Compiler(Protocol):
    """Where the pipeline's pooled stages run: results in request order, `on_done(i, result)` as
    each one finishes, so a caller can keep (cache) finished work even if a compile is killed."""

    def compile(self, reqs: list[CompileRequest], on_done: OnDone | None = None) -> list[CompileResult]: ...
    def close(self) -> None: ...


class InlineCompiler:
    """Compiles in this process: for scripts and quick tests, like Quadrants does."""
    name = "inline"

    def compile(self, reqs: list[CompileRequest], on_done: OnDone | None = None) -> list[CompileResult]:
        out = []
        for i, r in enumerate(reqs):
            out.append(run_stage(r))
            if on_done is not None:
                on_done(i, out[-1])
        return out

    def close(self) -> None:
        pass


# Requests a worker process compiles before it is replaced. LLVM's optimisation pipeline, as
# llvmlite runs it, keeps about 190 KB per module it optimised (not the modules: they and their
# context are disposed), so a worker that compiled 5000 tasks held 660 MB. A fresh worker costs
# about 0.8 s of CPU; replacing it every 500 requests caps its growth near 100 MB.
RECYCLE_AFTER = 500


class CompilePool:
    """Up to `workers` processes (all cores by default; forked from a server: machine/helper_start.py), started on first use, each replaced
    after about `recycle_after` requests (see RECYCLE_AFTER)."""
    name = "pool"

    def __init__(self, workers: int | None = None, recycle_after: int = RECYCLE_AFTER):
        self.workers = workers or os.cpu_count() or 1
        self.recycle_after = max(1, recycle_after)
        self._ex: ProcessPoolExecutor | None = None
        self._given = 0  # requests handed to the current executor

    def _executor(self) -> ProcessPoolExecutor:
        if self._ex is None:
            self._ex = ProcessPoolExecutor(self.workers, mp_context=helper_context(), initializer=helper_started,
                                           initargs=(dict(os.environ),))
            self._given = 0
        return self._ex

    def _submit(self, req: CompileRequest) -> Future[CompileResult]:
        """Hand `req` to the current executor; once it has been given its share, the next request
        goes to a fresh one, while the old one's workers finish what they hold and exit.
        (ProcessPoolExecutor's own max_tasks_per_child deadlocks on Python 3.11-3.13: cpython#115634.)"""
        if self._ex is not None and self._given >= self.recycle_after * self.workers:
            self._ex.shutdown(wait=False)
            self._ex = None
        ex = self._executor()
        self._given += 1
        return ex.submit(run_stage, req)

    def warm(self) -> None:
        """Start every worker now (so a first compile does not pay the spawn)."""
        ex = self._executor()
        list(ex.map(_warm_sleep, range(self.workers)))

    def compile(self, reqs: list[CompileRequest], on_done: OnDone | None = None) -> list[CompileResult]:
        """Results in request order; `on_done(i, result)` is called as each one finishes, so a
        caller can keep (cache) finished work even if this compile is killed halfway. At most two
        requests per worker are in flight: the rest wait here, not pickled in the executor's queue,
        so that a worker can be replaced between any two of them."""
        if not reqs:
            return []
        done: dict[int, CompileResult] = {}
        running: dict[Future[CompileResult], int] = {}
        broken = False
        nxt = 0
        while nxt < len(reqs) or running:
            while not broken and nxt < len(reqs) and len(running) < 2 * self.workers:
                running[self._submit(reqs[nxt])] = nxt
                nxt += 1
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for f in finished:
                i = running.pop(f)
                try:
                    done[i] = res = f.result()
                except BrokenProcessPool:
                    broken = True
                    continue
                if on_done is not None:
                    on_done(i, res)
        if broken:
            if self._ex is not None:
                self._ex.shutdown(wait=False, cancel_futures=True)
            self._ex = None
            for i, q in enumerate(reqs):
                if i not in done:
                    done[i] = res = compile_isolated(q)
                    if on_done is not None:
                        on_done(i, res)
        return [done[i] for i in range(len(reqs))]

    def close(self) -> None:
        if self._ex is not None:
            self._ex.shutdown(wait=True, cancel_futures=True)
            self._ex = None


def _warm_sleep(_: int) -> int:
    llvm_binding()
    time.sleep(0.05)  # keep each worker busy long enough that every worker gets one
    return os.getpid()


def compile_isolated(req: CompileRequest, timeout: float = 600) -> CompileResult:
    """Compile one request in a throwaway subprocess; an LLVM abort becomes an error result."""
    try:
        p = subprocess.run([sys.executable, "-c", _ISOLATED], input=pickle.dumps(req), capture_output=True,
                           timeout=timeout, env=_child_env())
    except subprocess.TimeoutExpired:
        return CompileResult(req.task, req.target, ok=False, error=f"compile timed out after {timeout:.0f} s")
    if p.returncode == 0 and p.stdout:
        return pickle.loads(p.stdout)
    err = p.stderr.decode(errors="replace").strip().splitlines()
    msg = next((ln for ln in err if "LLVM ERROR" in ln), err[-1] if err else f"exit code {p.returncode}")
    return CompileResult(req.task, req.target, ok=False,
                         error=f"LLVM aborted while compiling this task (exit {p.returncode}): {msg}",
                         log=err[-20:])


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env
