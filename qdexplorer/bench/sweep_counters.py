"""Counters per sweep variant: a block-size sweep shows occupancy and throughput beside time.

After a sweep has timed its variants, each variant of each task is profiled once (one launch
under ncu, as `Engine.counters` does, cached): achieved and theoretical occupancy, registers, SM
and memory throughput. Where there are no counters the row says why and still carries the
registers and theoretical occupancy ptxas gives for that variant, which is what a block size
changes first.
"""
from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from typing import Any, Protocol, Sequence

from ..counters.collect import CountersResult


class CountersEngine(Protocol):
    def variant(self, *, hide_overrides: bool | str = False, mode: str | None = None, block_dim: int | None = None,
                fast_math: bool | None = None) -> AbstractContextManager[None]: ...

    def counters(self, task: str, preset: str = "quick", side: str = "current", ptx: str | None = None,
                 fresh: bool = False, seed: int = 0, timeout: float = 180.0) -> CountersResult: ...


@dataclass
class VariantCounters:
    task: str
    variant: str
    state: str
    message: str = ""
    occ_achieved: float | None = None
    occ_theoretical: float | None = None
    registers: float | None = None
    sm_pct: float | None = None
    mem_pct: float | None = None
    duration_us: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _row(task: str, label: str, res: CountersResult) -> VariantCounters:
    row = VariantCounters(task, label, res.state, res.message)
    if res.ok and res.record is not None:
        f = res.record.figures
        row.occ_achieved, row.occ_theoretical, row.registers = f.get("occ_achieved"), f.get("occ_theoretical"), \
            f.get("registers")
        row.sm_pct, row.mem_pct, row.duration_us = f.get("sm_pct"), f.get("mem_pct"), f.get("duration_us")
    elif res.fallback is not None:
        row.occ_theoretical, row.registers = res.fallback.occupancy_pct, res.fallback.registers
    return row


def variant_counters(engine: CountersEngine, variants: Sequence[Any], tasks: Sequence[str],
                     preset: str = "quick", seed: int = 0) -> list[VariantCounters]:
    """Each (task, variant): `variants` are the sweep's (`label`, `kwargs()`)."""
    out = []
    for v in variants:
        with engine.variant(**v.kwargs()):
            for task in tasks:
                out.append(_row(task, v.label, engine.counters(task, preset, seed=seed)))
    return out


def table(rows: list[VariantCounters]) -> str:
    def f(x: float | None, unit: str = "") -> str:
        return "–" if x is None else f"{x:.0f}{unit}" if unit != "us" else f"{x:.2f}"
    lines = [f"  {'task':<36} {'variant':<24} {'occ.':>6} {'theor.':>7} {'regs':>5} {'SM':>5} {'mem':>5} {'us':>7}"]
    reasons = []
    for r in rows:
        lines.append(f"  {r.task[:36]:<36} {r.variant[:24]:<24} {f(r.occ_achieved, '%'):>6} "
                     f"{f(r.occ_theoretical, '%'):>7} {f(r.registers):>5} {f(r.sm_pct, '%'):>5} {f(r.mem_pct, '%'):>5} "
                     f"{f(r.duration_us, 'us'):>7}")
        if r.state != "ok" and r.message not in reasons:
            reasons.append(r.message)
    head = "Counters per variant (one profiled launch each; occ. = achieved occupancy, theor. = theoretical):"
    return "\n".join([head] + lines + [f"  no counters: {m} (registers and theoretical occupancy from ptxas)"
                                       for m in reasons])
