"""Inline SVG figures for the A/B report: no scripts, no fonts to fetch, readable with scripts off.

Two figures per task: the timing distributions of A and B (every launch as a dot, a box from the
quartiles, the median as a bar) on one time axis, and the comparison (B/A with its confidence
interval, the "same" band of the threshold around 1, the verdict). Plain strings in, an `<svg>`
string out; numbers are placed deterministically (no random jitter), so a report is reproducible.
"""
from __future__ import annotations

import math
from html import escape

import numpy as np

COLORS = {"a": "#4c78a8", "b": "#f58518", "faster": "#2e7d32", "slower": "#c62828", "same": "#616161",
          "unsure": "#8d6e00", "band": "#e8e8e8", "axis": "#444", "grid": "#ddd"}
FONT = 'font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="11"'


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About `n` round tick values covering [lo, hi]."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo]
    raw = (hi - lo) / max(1, n)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [round(first + i * step, 12) for i in range(int((hi - first) / step + 1e-9) + 1)]


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def distribution_svg(a: np.ndarray, b: np.ndarray, label_a: str, label_b: str, unit: str = "ms",
                     width: int = 620) -> str:
    """Each side's launches as dots over a box (quartiles) and a median bar, on one shared axis."""
    left, right, row, top = 110, 20, 46, 10
    height = top + 2 * row + 34
    vals = np.concatenate([a, b]) if len(a) + len(b) else np.array([0.0, 1.0])
    lo, hi = float(np.min(vals)), float(np.max(vals))
    pad = (hi - lo) * 0.06 or abs(hi) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad
    span = width - left - right

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * span
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="dist" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="timing distributions" {FONT}>']
    for t in nice_ticks(lo, hi):
        out.append(f'<line x1="{x(t):.1f}" y1="{top}" x2="{x(t):.1f}" y2="{top + 2 * row}" stroke="{COLORS["grid"]}"/>'
                   f'<text x="{x(t):.1f}" y="{top + 2 * row + 14}" text-anchor="middle" fill="{COLORS["axis"]}">'
                   f'{_fmt(t)}</text>')
    out.append(f'<text x="{left + span / 2:.1f}" y="{height - 4}" text-anchor="middle" fill="{COLORS["axis"]}">'
               f'{escape(unit)} per launch</text>')
    for i, (side, vals_, label) in enumerate((("a", a, label_a), ("b", b, label_b))):
        y0 = top + i * row
        mid = y0 + row / 2
        color = COLORS[side]
        out.append(f'<text x="{left - 8}" y="{mid + 4:.1f}" text-anchor="end" fill="{color}" font-weight="600">'
                   f'{escape(_short(label, 16))}</text>')
        if not len(vals_):
            continue
        q1, med, q3 = (float(v) for v in np.percentile(vals_, [25, 50, 75]))
        out.append(f'<rect x="{x(q1):.1f}" y="{y0 + 8}" width="{max(1.0, x(q3) - x(q1)):.1f}" height="{row - 16}" '
                   f'fill="{color}" fill-opacity="0.15" stroke="{color}"/>')
        out.append(f'<line class="median" x1="{x(med):.1f}" y1="{y0 + 5}" x2="{x(med):.1f}" y2="{y0 + row - 5}" '
                   f'stroke="{color}" stroke-width="3"><title>median {_fmt(med)} {escape(unit)}</title></line>')
        n = len(vals_)
        for k, v in enumerate(vals_):   # spread across the row by launch order, not at random
            dy = ((k * 7919) % 97) / 96.0 - 0.5 if n > 1 else 0.0
            out.append(f'<circle cx="{x(float(v)):.1f}" cy="{mid + dy * (row - 22):.1f}" r="2" fill="{color}" '
                       f'fill-opacity="0.55"/>')
    out.append("</svg>")
    return "".join(out)


def interval_svg(ratio: float, ci: tuple[float | None, float | None], threshold: float, verdict: str,
                 level: float = 0.95, width: int = 620) -> str:
    """B/A on a ratio axis: the threshold's "same" band around 1, the interval as a bar, the ratio a dot."""
    left, right, height = 110, 20, 74
    lo_ci, hi_ci = (c if c is not None and math.isfinite(c) else ratio for c in ci)
    pts = [1 - threshold, 1 + threshold, ratio, lo_ci, hi_ci]
    lo, hi = min(pts), max(pts)
    pad = (hi - lo) * 0.12 or 0.05
    lo, hi = lo - pad, hi + pad
    span = width - left - right

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * span
    color = COLORS.get(verdict, COLORS["same"])
    y = 26
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="interval" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="B/A ratio and its interval" {FONT}>',
           f'<rect x="{x(1 - threshold):.1f}" y="8" width="{x(1 + threshold) - x(1 - threshold):.1f}" height="36" '
           f'fill="{COLORS["band"]}"><title>changes under {threshold:.0%} count as the same</title></rect>',
           f'<line x1="{x(1):.1f}" y1="4" x2="{x(1):.1f}" y2="48" stroke="{COLORS["axis"]}" stroke-dasharray="3,2"/>']
    for t in nice_ticks(lo, hi):
        out.append(f'<text x="{x(t):.1f}" y="{62}" text-anchor="middle" fill="{COLORS["axis"]}">{_fmt(t)}</text>')
    out.append(f'<text x="{left - 8}" y="{y + 4}" text-anchor="end" fill="{color}" font-weight="600">'
               f'{escape(verdict)}</text>')
    if math.isfinite(lo_ci) and math.isfinite(hi_ci):
        out.append(f'<line class="ci" x1="{x(lo_ci):.1f}" y1="{y}" x2="{x(hi_ci):.1f}" y2="{y}" stroke="{color}" '
                   f'stroke-width="4"><title>{level:.0%} interval {_fmt(lo_ci)}–{_fmt(hi_ci)}</title></line>')
        for v in (lo_ci, hi_ci):
            out.append(f'<line x1="{x(v):.1f}" y1="{y - 7}" x2="{x(v):.1f}" y2="{y + 7}" stroke="{color}" '
                       f'stroke-width="2"/>')
    out.append(f'<circle class="ratio" cx="{x(ratio):.1f}" cy="{y}" r="5" fill="{color}">'
               f'<title>B/A = {_fmt(ratio)}</title></circle>')
    out.append(f'<text x="{left + span / 2:.1f}" y="{height - 1}" text-anchor="middle" fill="{COLORS["axis"]}">'
               f'B / A (median time ratio; grey: within ±{threshold:.0%})</text>')
    out.append("</svg>")
    return "".join(out)


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"
