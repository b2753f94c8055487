"""The likely limiter of a task, from its figures, in the spirit of Nsight Compute's rules.

A first reading, not a verdict: which of memory throughput, compute throughput, latency and
occupancy explains the time best, and what to look at next. Thresholds follow ncu's own
speed-of-light guidance (≥ 60 % of peak is "bound"; both low means latency or too little work).
"""
from __future__ import annotations

from .record import TaskCounters

BOUND = 60.0


def limiter(rec: TaskCounters) -> str:
    f = rec.figures
    sm, mem = f.get("sm_pct"), f.get("mem_pct")
    occ, theo, waves = f.get("occ_achieved"), f.get("occ_theoretical"), f.get("waves")
    stalls = rec.top_stalls(1)
    top = stalls[0][0] if stalls else ""
    if f.get("local_bytes", 0) > 0:
        spill = " Local memory traffic (register spills or local arrays) adds to it."
    else:
        spill = ""
    if mem is not None and mem >= BOUND and (sm is None or mem >= sm):
        return (f"Memory bound: memory throughput is {mem:.0f}% of peak. Move fewer bytes (coalesced, vectorised "
                f"accesses; reuse through shared memory or registers).{spill}")
    if sm is not None and sm >= BOUND:
        return f"Compute bound: the busiest SM pipe is at {sm:.0f}% of peak. Do less arithmetic or use a faster pipe.{spill}"
    if waves is not None and waves < 1.0:
        return (f"Too little work: {waves:.2f} waves of blocks do not fill the GPU once, so neither compute nor memory "
                f"is busy (SM {sm or 0:.0f}%, memory {mem or 0:.0f}%). Give it more work per launch.{spill}")
    if theo is not None and theo < 50.0 and f.get("registers", 0) > 32:
        return (f"Occupancy limited by registers: {f['registers']:.0f} registers per thread allow {theo:.0f}% "
                f"occupancy. Fewer live values (or a smaller block) would hide more latency.{spill}")
    if occ is not None and theo is not None and occ < 0.6 * theo:
        return (f"Occupancy limited by the launch: {occ:.0f}% achieved of {theo:.0f}% possible (imbalance or a small "
                f"grid).{spill}")
    if top == "long_scoreboard":
        return (f"Latency bound on memory: warps mostly wait for global loads and neither compute ({sm or 0:.0f}%) "
                f"nor memory ({mem or 0:.0f}%) is busy. More loads in flight (more warps, unrolling) would help.{spill}")
    if top:
        return f"Latency bound: warps mostly stall on {top.replace('_', ' ')}; SM {sm or 0:.0f}%, memory {mem or 0:.0f}%.{spill}"
    if sm is not None and mem is not None:
        return f"Latency bound: SM {sm:.0f}% and memory {mem:.0f}% of peak are both low.{spill}"
    return ""
