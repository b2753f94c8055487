"""What a profile of one task says, as a plain record (`TaskCounters`): figures, stalls, mix, lines.

A figure is a number with a key that A/B diffs, the CLI and the window share; each has a label,
a unit and a one-line explanation (the `FIGURES` catalogue), so every place that shows it says
the same thing. The record is JSON-able (it is cached beside the report and crosses processes).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

RECORD_VERSION = 1   # bump when what a record holds changes: cached records of another version are re-read


@dataclass(frozen=True)
class Figure:
    key: str
    label: str
    unit: str        # '%', 'B', 'us', 'inst', 'flop', 'regs', '' (a count), 'x'
    explain: str     # one line: what it is and what a change in it means
    better: str = ""  # 'higher' | 'lower' | '' (neither: context)
    exact: bool = False  # fixed by the code and the launch (a count ncu does not sample): one profile tells


FIGURES: tuple[Figure, ...] = (
    Figure("duration_us", "Kernel time (profiled)", "us",
           "GPU time of the one profiled launch; ncu locks clocks to base, so it is slower than the bench's", "lower"),
    Figure("sm_pct", "SM throughput", "%",
           "busiest SM pipeline as % of its speed of light: near 100 means compute bound", ""),
    Figure("mem_pct", "Memory throughput", "%",
           "busiest of DRAM, L2 and L1 as % of speed of light: near 100 means memory bound", ""),
    Figure("dram_pct", "DRAM throughput", "%", "DRAM bandwidth used, % of its peak", ""),
    Figure("occ_achieved", "Achieved occupancy", "%",
           "resident warps per SM on average, % of the maximum; low hides less latency", "higher"),
    Figure("occ_theoretical", "Theoretical occupancy", "%",
           "the most warps per SM that registers, shared memory and block size allow", "higher", exact=True),
    Figure("dram_read_bytes", "DRAM read", "B", "bytes read from device memory (HBM)", "lower"),
    Figure("dram_write_bytes", "DRAM written", "B", "bytes written to device memory (HBM)", "lower"),
    Figure("l2_read_bytes", "L2 read (from L1)", "B",
           "bytes the SMs read from L2 (32-byte sectors): what global loads that missed L1 asked for", "lower"),
    Figure("l1_hit", "L1 hit rate", "%", "sectors served by L1 without going to L2", "higher"),
    Figure("l2_hit", "L2 hit rate", "%", "L2 sector lookups that hit, so needed no DRAM", "higher"),
    Figure("registers", "Registers / thread", "regs",
           "registers each thread holds; more can lower theoretical occupancy", "lower", exact=True),
    Figure("local_bytes", "Local memory traffic", "B",
           "bytes of local (spill) loads and stores: register spills or local arrays; 0 is best", "lower"),
    Figure("inst_executed", "Warp instructions", "inst", "instructions executed, counted per warp", "lower",
           exact=True),
    Figure("flops", "FLOPs", "flop", "floating-point operations executed (an FMA counts 2)", "", exact=True),
    Figure("intensity", "Arithmetic intensity", "flop/B",
           "FLOPs per DRAM byte: left of the roofline's ridge a task is memory bound", ""),
    Figure("block", "Block size", "", "threads per block of the launch", "", exact=True),
    Figure("grid", "Grid size", "", "blocks in the launch", "", exact=True),
    Figure("waves", "Waves per SM", "", "blocks ÷ (blocks resident at once on all SMs)", "", exact=True),
)
FIGURE = {f.key: f for f in FIGURES}

STALL_EXPLAIN = {
    "long_scoreboard": "waiting on a global/local memory load (L1TEX): memory latency",
    "short_scoreboard": "waiting on shared memory or a special-function result",
    "wait": "a fixed-latency dependency between instructions",
    "math_pipe_throttle": "a math pipe is busy: compute bound on that pipe",
    "mio_throttle": "the memory input/output queue is full (shared memory, special math)",
    "lg_throttle": "the local/global memory queue is full: too many memory instructions",
    "tex_throttle": "the texture/L1 unit is busy",
    "barrier": "waiting at a block barrier for other warps",
    "membar": "waiting on a memory fence",
    "branch_resolving": "waiting for a branch target",
    "dispatch_stall": "the dispatcher could not issue",
    "drain": "waiting for memory writes at exit",
    "imc_miss": "waiting for the constant cache",
    "no_instruction": "the instruction cache had nothing ready (a miss, or after a branch)",
    "not_selected": "ready, but another warp was picked (not a problem)",
    "selected": "issuing (not a stall)",
    "sleeping": "the warp was asleep",
    "misc": "other reasons",
    "gmma": "waiting on a warpgroup MMA",
}


@dataclass
class LineCounters:
    """Counters of one line (PTX, source or SASS): what ncu's source page shows per line."""
    inst_executed: float = 0.0     # warp instructions executed on this line
    samples: float = 0.0           # warp-state samples (where warps spent their time)
    stalls: dict[str, float] = field(default_factory=dict)   # samples by stall reason

    def add(self, other: LineCounters) -> None:
        self.inst_executed += other.inst_executed
        self.samples += other.samples
        for k, v in other.stalls.items():
            self.stalls[k] = self.stalls.get(k, 0.0) + v


@dataclass
class SassLine:
    offset: int          # address from the function's start
    text: str
    counters: LineCounters
    ptx_line: int = 0    # 1-based line of the task's PTX as the user sees it (0: unknown)
    source: tuple[str, int] = ("", 0)


@dataclass
class Roofline:
    """One point against the GPU's ceilings. `model` True: counted from the task's IR, not measured."""
    flops: float
    bytes: float
    seconds: float
    peak_flops: float = 0.0      # FP32 FLOP/s
    peak_bytes: float = 0.0      # DRAM B/s
    model: bool = False

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes if self.bytes else 0.0

    @property
    def achieved_flops(self) -> float:
        return self.flops / self.seconds if self.seconds else 0.0

    @property
    def ridge(self) -> float:
        return self.peak_flops / self.peak_bytes if self.peak_bytes else 0.0


@dataclass
class TaskCounters:
    task: str
    preset: str
    figures: dict[str, float] = field(default_factory=dict)
    stalls: dict[str, float] = field(default_factory=dict)        # reason -> warps stalled per issued inst
    mix: dict[str, float] = field(default_factory=dict)           # SASS opcode -> warp instructions
    roofline: Roofline | None = None
    sass: list[SassLine] = field(default_factory=list)
    ptx_lines: dict[int, LineCounters] = field(default_factory=dict)
    source_lines: dict[str, dict[int, LineCounters]] = field(default_factory=dict)   # file -> line -> counters
    line_mapping: str = ""     # how PTX lines were attributed: 'ptx-line-table' | 'sass-to-ptx' | ''
    passes: int = 0
    rules: list[str] = field(default_factory=list)                # Nsight Compute's own findings, one line each
    ncu_version: str = ""
    device: str = ""
    workload: str = ""
    variant: str = ""          # 'generated' | 'override' | a file name
    ptx_sha: str = ""
    replay_bytes: float = 0.0  # bytes ncu saved and restored between replay passes
    cached: bool = False
    version: int = RECORD_VERSION

    def top_stalls(self, n: int = 5) -> list[tuple[str, float]]:
        useful = {k: v for k, v in self.stalls.items() if k not in ("selected", "not_selected") and v > 0}
        return sorted(useful.items(), key=lambda kv: -kv[1])[:n]

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["ptx_lines"] = {str(k): v for k, v in d["ptx_lines"].items()}
        d["source_lines"] = {f: {str(k): v for k, v in lines.items()} for f, lines in d["source_lines"].items()}
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TaskCounters:
        d = dict(d)
        d["ptx_lines"] = {int(k): LineCounters(**v) for k, v in d.get("ptx_lines", {}).items()}
        d["source_lines"] = {f: {int(k): LineCounters(**v) for k, v in lines.items()}
                             for f, lines in d.get("source_lines", {}).items()}
        d["sass"] = [SassLine(s["offset"], s["text"], LineCounters(**s["counters"]), s["ptx_line"],
                              (s["source"][0], s["source"][1])) for s in d.get("sass", [])]
        if d.get("roofline"):
            d["roofline"] = Roofline(**d["roofline"])
        return cls(**d)
