"""Read an Nsight Compute report (`.ncu-rep`) into a `TaskCounters`, with ncu's own reader.

`ncu_report` (the `ncu-report` package, the `[counters]` extra) reads reports on any machine,
without a CUDA toolkit, so a report made on a remote GPU is read here. Per-line counters come
from the source-correlated metrics (one value per SASS address): each address's PTX line is
exact when the profiled PTX carried a line table naming the PTX itself
(`compiler/ptx_lines.with_ptx_line_table`); otherwise ncu's address-to-PTX map is matched to the
PTX text, and the record says which it was.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from ..compiler.ptx_lines import line_map
from .presets import FLOP_OPS
from .record import LineCounters, Roofline, SassLine, TaskCounters


class ReportError(Exception):
    """The report cannot be read, or holds no result for the task."""


class ReaderMissing(ReportError):
    """Nsight Compute's report reader (`ncu-report`) is not installed."""


def reader() -> Any:
    try:
        import ncu_report
    except ImportError:
        raise ReaderMissing("reading counters needs Nsight Compute's report reader: "
                            "pip install 'qdexplorer[counters]' (the ncu-report package)") from None
    return ncu_report


def _value(action: Any, name: str) -> float | None:
    m = action.metric_by_name(name)
    if m is None or not m.has_value():
        return None
    try:
        return float(m.as_double())
    except (TypeError, ValueError):
        return None


def _instances(action: Any, name: str) -> list[tuple[Any, float]]:
    """(correlation id, value) of each instance of a source-correlated or per-opcode metric."""
    m = action.metric_by_name(name)
    if m is None or m.num_instances() == 0:
        return []
    ids = m.correlation_ids()
    out = []
    for i in range(m.num_instances()):
        key = ids.as_uint64(i) if ids.kind() in (m.ValueKind_UINT64, m.ValueKind_UINT32) else ids.as_string(i)
        out.append((key, float(m.as_double(i))))
    return out


def _action(path: Path, task: str) -> Any:
    ncu = reader()
    try:
        ctx = ncu.load_report(str(path))
    except Exception as e:  # noqa: BLE001 - the reader raises plain exceptions for any unreadable file
        raise ReportError(f"ncu's report {path.name} cannot be read: {e}") from None
    if ctx is None or ctx.num_ranges() == 0:
        raise ReportError(f"ncu's report {path.name} cannot be read: it holds no results (damaged, or not a report)")
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        for a in range(rng.num_actions()):
            action = rng.action_by_idx(a)
            if action.name() == task:
                return action
    raise ReportError(f"ncu's report {path.name} holds no result for {task}")


def _figures(a: Any) -> dict[str, float]:
    def v(name: str) -> float | None:
        return _value(a, name)
    f: dict[str, float | None] = {
        "duration_us": (v("gpu__time_duration.sum") or 0.0) / 1e3 if v("gpu__time_duration.sum") is not None else None,
        "sm_pct": v("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
        "mem_pct": v("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"),
        "dram_pct": v("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
        "occ_achieved": v("sm__warps_active.avg.pct_of_peak_sustained_active"),
        "occ_theoretical": v("sm__maximum_warps_per_active_cycle_pct"),
        "dram_read_bytes": v("dram__bytes_read.sum"),
        "dram_write_bytes": v("dram__bytes_write.sum"),
        "l2_read_bytes": (lambda s: s * 32 if s is not None else None)(v("lts__t_sectors_srcunit_tex_op_read.sum")),
        "l1_hit": v("l1tex__t_sector_hit_rate.pct"),
        "l2_hit": v("lts__t_sector_hit_rate.pct"),
        "registers": v("launch__registers_per_thread"),
        "local_bytes": v("sm__sass_data_bytes_mem_local.sum"),
        "inst_executed": v("smsp__inst_executed.sum"),
        "block": v("launch__block_size"),
        "grid": v("launch__grid_size"),
        "waves": v("launch__waves_per_multiprocessor"),
    }
    ops = {op: v(f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum") for op in FLOP_OPS}
    if any(x is not None for x in ops.values()):
        f["flops"] = sum((x or 0.0) * FLOP_OPS[op] for op, x in ops.items())
        dram = (f["dram_read_bytes"] or 0.0) + (f["dram_write_bytes"] or 0.0)
        f["intensity"] = (f["flops"] or 0.0) / dram if dram else None
    return {k: x for k, x in f.items() if x is not None}


def _roofline(a: Any, fig: dict[str, float]) -> Roofline | None:
    if "flops" not in fig or "duration_us" not in fig:
        return None
    ffma_peak, sm_hz = _value(a, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"), \
        _value(a, "sm__cycles_elapsed.avg.per_second")
    dram_peak, dram_hz = _value(a, "dram__bytes.sum.peak_sustained"), _value(a, "dram__cycles_elapsed.avg.per_second")
    return Roofline(flops=fig["flops"], bytes=fig.get("dram_read_bytes", 0.0) + fig.get("dram_write_bytes", 0.0),
                    seconds=fig["duration_us"] * 1e-6,
                    peak_flops=2 * ffma_peak * sm_hz if ffma_peak and sm_hz else 0.0,
                    peak_bytes=dram_peak * dram_hz if dram_peak and dram_hz else 0.0)


_STALL = re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$")
_PCSAMP = re.compile(r"^smsp__pcsamp_warps_issue_stalled_(\w+)$")
_LINK = re.compile(r"@\w+:[^:@]*:([^@]*)@|@url:([^:@]*):[^@]*@")


def _rules(a: Any) -> list[str]:
    """Nsight Compute's own findings (its rules), one line each, links reduced to their text."""
    out = []
    for r in a.rule_results():
        if not r.has_rule_message():
            continue
        msg = r.rule_message().get("message", "")
        msg = _LINK.sub(lambda m: m.group(1) or m.group(2) or "", msg)
        first = msg.split(". ")[0].strip().rstrip(".")
        if first:
            out.append(f"{r.name()}: {first}.")
    return out


def _per_address(a: Any) -> dict[int, LineCounters]:
    lines: dict[int, LineCounters] = {}
    for pc, x in _instances(a, "inst_executed"):
        lines.setdefault(pc, LineCounters()).inst_executed = x
    for pc, x in _instances(a, "smsp__pcsamp_sample_count"):
        lines.setdefault(pc, LineCounters()).samples = x
    for name in a.metric_names():
        m = _PCSAMP.match(name)
        if m and not name.endswith("_not_issued"):
            for pc, x in _instances(a, name):
                if x:
                    lines.setdefault(pc, LineCounters()).stalls[m[1]] = x
    return lines


def _norm(text: str) -> str:
    return " ".join(text.replace(";", "").split())


def read_report(path: str | Path, task: str, preset: str, ptx: str = "", ptx_path: str = "") -> TaskCounters:
    """The counters of `task` in the report at `path`. `ptx` is the task's PTX as the user sees
    it, and `ptx_path` the file name its profiled copy's line table gave (see
    `compiler/ptx_lines.with_ptx_line_table`); with them the per-line counters are placed on PTX
    lines and, through the PTX's own `.loc`s, on source lines."""
    path = Path(path)
    a = _action(path, task)
    fig = _figures(a)
    rec = TaskCounters(task=task, preset=preset, figures=fig, roofline=_roofline(a, fig))
    rec.passes = int(_value(a, "profiler__replayer_passes") or 0)
    rec.replay_bytes = _value(a, "profiler__replayer_bytes_mem_backed_up.avg") or 0.0
    dev = a.metric_by_name("device__attribute_display_name")
    rec.device = dev.as_string() if dev is not None and dev.has_value() else ""
    for name in a.metric_names():
        m = _STALL.match(name)
        if m:
            x = _value(a, name)
            if x is not None:
                rec.stalls[m[1]] = x
    rec.mix = {str(k): x for k, x in _instances(a, "sass__inst_executed_per_opcode")}
    rec.rules = _rules(a)
    if ptx_path:   # the text the line table named, as the report imported it: exactly what was profiled
        profiled = next((t for f, t in a.source_files().items() if Path(f).name == Path(ptx_path).name and t), "")
        ptx = profiled or ptx
    rec.ptx_sha = ptx_sha(ptx) if ptx else ""
    _lines(a, rec, ptx, ptx_path)
    return rec


def ptx_sha(text: str) -> str:
    """What identifies a PTX text in a record: a view paints the per-line counters only on the same text."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _lines(a: Any, rec: TaskCounters, ptx: str, ptx_path: str) -> None:
    per_pc = _per_address(a)
    if not per_pc:
        return
    base = min(per_pc)
    ptx_text_lines = ptx.splitlines()
    by_text: dict[str, int] = {}
    for i, t in enumerate(ptx_text_lines, start=1):
        by_text.setdefault(_norm(t.split("//", 1)[0]), i)
    lm = line_map(ptx) if ptx else None
    exact = bool(ptx_path)
    mapped_by_text = False
    for pc in sorted(per_pc):
        c = per_pc[pc]
        info = a.source_info(pc)
        src = (info.file_name(), int(info.line())) if info is not None else ("", 0)
        ptx_line = 0
        if exact and src[0] and Path(src[0]).name == Path(ptx_path).name:
            ptx_line = src[1]
        elif ptx:
            ptx_line = by_text.get(_norm(a.ptx_by_pc(pc) or ""), 0)
            mapped_by_text = mapped_by_text or ptx_line > 0
        source = src if not (exact and ptx_line) else ("", 0)
        if ptx_line and lm is not None:   # the PTX's own line table says which source line it came from
            source = lm.source_line(ptx_line) or ("", 0)
        rec.sass.append(SassLine(pc - base, a.sass_by_pc(pc).strip(), c, ptx_line, source))
        if ptx_line:
            rec.ptx_lines.setdefault(ptx_line, LineCounters()).add(c)
        if source[0] and source[1]:
            rec.source_lines.setdefault(source[0], {}).setdefault(source[1], LineCounters()).add(c)
    if rec.ptx_lines:
        rec.line_mapping = "ptx-line-table" if exact and not mapped_by_text else "sass-to-ptx"
