"""How counters read as text: one formatter shared by the CLI and the window, so both say the same.

`summary_lines` is a profile as lines (figure, value, explanation); `diff_lines` an A/B table
(A | B | Δ | Δ%, largest changes first); `unavailable_lines` the reason there are no counters and
what is known without them (a model roofline, labelled as such).
"""
from __future__ import annotations

from .advice import limiter
from .collect import CountersResult
from .diff import DiffRow, k_spread
from .model import NoCounters
from .presets import PRESETS
from .record import FIGURES, STALL_EXPLAIN, Roofline, TaskCounters


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "–"
    if unit == "B":
        for div, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
            if abs(value) >= div:
                return f"{value / div:.2f} {name}"
        return f"{value:.0f} B"
    if unit == "%":
        return f"{value:.1f}%"
    if unit == "us":
        return f"{value:.2f} us"
    if unit in ("inst", "flop"):
        return f"{value:,.0f}"
    if unit == "flop/B":
        return f"{value:.3f}"
    if unit == "cycles/inst":
        return f"{value:.2f}"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:.2f}"


def fmt_delta(row: DiffRow) -> tuple[str, str]:
    d, p = row.delta, row.pct
    ds = "–" if d is None else ("+" if d > 0 else "") + fmt(d, row.unit)
    ps = "–" if p is None else f"{p:+.1f}%"
    return ds, ps


def roofline_line(r: Roofline) -> str:
    if not r.flops:
        return ("Roofline: no floating-point work, so no point on a FLOP roofline"
                + (" (MODEL: counted in the task's IR)" if r.model else ""))
    label = "MODEL roofline (counted in the task's IR, not measured)" if r.model else "Roofline"
    parts = [f"{label}: {r.intensity:.3f} FLOP/byte"]
    if r.seconds:
        parts.append(f"{r.achieved_flops / 1e9:.1f} GFLOP/s, {r.bytes / r.seconds / 1e9:.0f} GB/s")
    if r.peak_flops and r.peak_bytes:
        side = "memory" if r.intensity < r.ridge else "compute"
        parts.append(f"ridge at {r.ridge:.1f} FLOP/byte ({r.peak_flops / 1e12:.1f} TFLOP/s, "
                     f"{r.peak_bytes / 1e12:.2f} TB/s): {side} side")
    return "; ".join(parts)


def headline(rec: TaskCounters) -> str:
    p = PRESETS.get(rec.preset)
    return (f"{rec.task} ({rec.workload}, {rec.variant or 'current'}) on {rec.device or 'the GPU'}: preset "
            f"{rec.preset}, {rec.passes or (p.passes if p else 0)} replay passes, ncu {rec.ncu_version}"
            + (" [cached]" if rec.cached else ""))


def summary_lines(rec: TaskCounters) -> list[str]:
    out = [headline(rec), ""]
    for f in FIGURES:
        if f.key in rec.figures:
            out.append(f"  {f.label:<24} {fmt(rec.figures[f.key], f.unit):>14}   {f.explain}")
    lim = limiter(rec)
    if lim:
        out += ["", "  Likely limiter: " + lim]
    return out + detail_lines(rec)


def detail_lines(rec: TaskCounters) -> list[str]:
    """What follows the figures: stalls, instruction mix, roofline, hottest PTX lines, ncu's rules."""
    out: list[str] = []
    stalls = rec.top_stalls()
    if stalls:
        out += ["", "  Top warp stalls (cycles per issued instruction):"]
        out += [f"    {k:<20} {v:8.2f}   {STALL_EXPLAIN.get(k, '')}" for k, v in stalls]
    if rec.mix:
        total = sum(rec.mix.values()) or 1.0
        top = sorted(rec.mix.items(), key=lambda kv: -kv[1])[:8]
        out += ["", "  Instruction mix: " + ", ".join(f"{k} {100 * v / total:.0f}%" for k, v in top)]
    if rec.roofline is not None:
        out += ["", "  " + roofline_line(rec.roofline)]
    if rec.ptx_lines:
        how = ("exact: the profiled PTX carried a line table naming its own lines"
               if rec.line_mapping == "ptx-line-table" else "mapped from SASS by instruction text")
        hot = sorted(rec.ptx_lines.items(), key=lambda kv: -kv[1].samples)[:5]
        out += ["", f"  Hottest PTX lines ({how}):"]
        out += [f"    line {ln:>4}: {c.samples:.0f} samples, {c.inst_executed:,.0f} warp instructions" for ln, c in hot]
    if rec.rules:
        out += ["", "  Nsight Compute says:"] + [f"    {r}" for r in rec.rules[:6]]
    return out


def verdict_note(n_a: int, n_b: int) -> str:
    """What the verdict column means for this A/B: the rule, or why most rows are 'unsure'."""
    if min(n_a, n_b) < 2:
        return ("one profile a side: a count fixed by the code (registers, instructions, FLOPs, launch shape) "
                "that moved has 'changed'; any other figure is 'unsure': profile 3 times a side to tell "
                "(--repeats 3; in the window, 'A/B profiles a side: 3')")
    return (f"medians of {n_a} | {n_b} profiles; 'noise': |Δ| within {k_spread(min(n_a, n_b)):g} × (spread of A + "
            f"spread of B) + the counter's step")


def diff_lines(rows: list[DiffRow], a_label: str = "A", b_label: str = "B") -> list[str]:
    out = [f"  {'figure':<26} {a_label:>14} {b_label:>14} {'Δ':>14} {'Δ%':>9}  {'verdict':<8} {'noise band':>12}"]
    for r in rows:
        if r.verdict == "same":
            continue
        d, p = fmt_delta(r)
        band = "±" + fmt(r.band, r.unit) if len(r.a_reps) > 1 and len(r.b_reps) > 1 else ""
        out.append(f"  {r.label:<26} {fmt(r.a, r.unit):>14} {fmt(r.b, r.unit):>14} {d:>14} {p:>9}  "
                   f"{r.verdict:<8} {band:>12}")
    same = sum(1 for r in rows if r.verdict == "same")
    if same:
        out.append(f"  ({same} figures the same in every profile)")
    return out


def unavailable_lines(res: CountersResult) -> list[str]:
    out = [f"No counters for {res.task}: {res.message}"]
    fb: NoCounters | None = res.fallback
    if fb is None:
        return out
    out.append("Without counters:")
    if fb.registers is not None:
        out.append(f"  registers/thread {fb.registers}, spills {fb.spill_bytes or 0} B, theoretical occupancy "
                   f"{fb.occupancy_pct:.0f}%" + (f" (limited by {fb.limited_by})" if fb.limited_by else "")
                   + "  [ptxas]")
    if fb.roofline is not None:
        out.append("  " + roofline_line(fb.roofline))
    out += [f"  note: {n}" for n in fb.notes]
    return out
