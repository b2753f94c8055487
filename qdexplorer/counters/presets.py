"""The two section sets a task is profiled with, and the metrics every figure needs.

quick: speed of light, occupancy, launch statistics (10 replay passes on an H200 with ncu
2025.3). full: adds memory workload, warp states, instruction statistics, the roofline and
source counters (per-line), 20 passes. Each pass replays the kernel, saving and restoring its
writable memory, which is why a task with much writable data takes longer to profile.
The figures' own metrics are asked for by name (`--metrics`) in both presets: the sections show
DRAM throughput as a percentage but not the bytes, and the roofline wants the FLOP counts.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Preset:
    name: str
    sections: tuple[str, ...]
    passes: int            # replay passes seen on an H200 (ncu 2025.3.1); the report gives the real number
    summary: str


QUICK = Preset("quick", ("SpeedOfLight", "Occupancy", "LaunchStats"), 10,
               "speed of light, occupancy, launch statistics")
FULL = Preset("full", QUICK.sections + ("MemoryWorkloadAnalysis", "WarpStateStats", "InstructionStats",
                                         "SpeedOfLight_RooflineChart", "SourceCounters"), 20,
              "adds memory workload, warp states, instruction mix, roofline and per-line source counters")
PRESETS = {p.name: p for p in (QUICK, FULL)}

FLOP_OPS = {"ffma": 2, "fadd": 1, "fmul": 1, "dfma": 2, "dadd": 1, "dmul": 1}
METRICS = (
    "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
    "l1tex__t_sector_hit_rate.pct", "lts__t_sector_hit_rate.pct", "sm__sass_data_bytes_mem_local.sum",
    "smsp__inst_executed.sum", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
    "dram__bytes.sum.peak_sustained", "sm__cycles_elapsed.avg.per_second", "dram__cycles_elapsed.avg.per_second",
) + tuple(f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum" for op in FLOP_OPS)


def preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown counters preset {name!r}: quick or full") from None
