"""An A/B finding as one self-contained HTML file: what a reviewer opens anywhere, with scripts off.

`build_report(A, B, comparison)` gives the page: the project and the machine each side ran on, every
task's figures as `qdexplorer compare` computes them, and for each task that changed (a verdict other
than `same`, or other code) its PTX diff, its SASS diff (ptxas + nvdisasm, `qdexplorer[sass]`, when
here), its timing distributions and the comparison with its interval and verdict as inline SVG, the
hardware counters that moved (when profiles of both PTX texts were saved), and how to reproduce it.

Nothing is fetched and nothing runs: the CSS is inline, the figures are SVG, collapsed parts are
`<details>`. Absolute paths of this machine (the project folder, the home folder) are replaced by
`<project>` and `~` unless `paths=True`; PTX `.file` directives keep the file's base name.
"""
from __future__ import annotations

import dataclasses
import datetime
import difflib
import json
import math
import os
import re
from html import escape
from pathlib import Path
from typing import Sequence

from ..compiler.safe_files import output_folder, write_file
from ..compiler.sass import SassNotAvailable, disassemble as disassemble_sass
from ..counters.diff import diff as counters_diff
from ..counters.record import TaskCounters
from ..counters.report import ptx_sha
from ..version import __version__
from ..bench.compare import Comparison
from ..bench.context import unpack_text
from ..bench.run import TOTAL, Run
from .svg import COLORS, distribution_svg, interval_svg

CONTEXT_LINES = 3
# the page forbids itself every script and every fetch: any browser opens it with scripts and network off
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
MAX_DIFF_ROWS = 400   # a whole-kernel rewrite still gives a readable page; the rest is counted


@dataclasses.dataclass
class TaskCode:
    ptx: str = ""
    ll: str = ""


def code_of(run: Run, task: str) -> TaskCode:
    entry = run.context.code.get(task) or {}
    return TaskCode(*(unpack_text(entry[k]) if k in entry else "" for k in ("ptx", "ll")))


def _hash(run: Run, task: str) -> str:
    return (run.context.tasks.get(task) or {}).get("loaded_sha256", "")


def code_changed(ra: Run, rb: Run, task: str) -> bool:
    ca, cb = code_of(ra, task), code_of(rb, task)
    if (ca.ptx or ca.ll) and (cb.ptx or cb.ll):
        return (ca.ptx, ca.ll) != (cb.ptx, cb.ll)
    ha, hb = _hash(ra, task), _hash(rb, task)
    return bool(ha and hb and ha != hb)


# ---- paths
def path_replacements(runs: Sequence[Run], extra: Sequence[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """(absolute path, placeholder) pairs, longest first: each run's project folder, then the home folder."""
    pairs = list(extra)
    for run in runs:
        p = run.context.project
        if p:
            folder = Path(p) if not p.endswith(".py") else Path(p).parent
            pairs.append((str(folder), "<project>"))
    home = os.path.expanduser("~")
    if home and home != "/":
        pairs.append((home, "~"))
    return sorted(set(pairs), key=lambda kv: -len(kv[0]))


_FILE_DIRECTIVE = re.compile(r'(\.file\s+\d+\s+")([^"]*[/\\])([^"/\\]*")')


def scrub(text: str, pairs: Sequence[tuple[str, str]]) -> str:
    for path, placeholder in pairs:
        text = text.replace(path, placeholder)
    return _FILE_DIRECTIVE.sub(lambda m: m[1] + m[3], text)


# ---- diffs
DiffRow = tuple[str, "int | None", "str | None", "int | None", "str | None"]


def diff_rows(a: list[str], b: list[str], context: int = CONTEXT_LINES) -> list[list[DiffRow]]:
    """Hunks of aligned rows (kind, line_a, text_a, line_b, text_b); kind in eq/del/ins/chg."""
    hunks = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        rows: list[DiffRow] = []
        for op, i1, i2, j1, j2 in group:
            if op == "equal":
                rows += [("eq", i + 1, a[i], j + 1, b[j]) for i, j in zip(range(i1, i2), range(j1, j2))]
                continue
            n = max(i2 - i1, j2 - j1)
            for k in range(n):
                i, j = i1 + k, j1 + k
                ta, tb = (a[i] if i < i2 else None), (b[j] if j < j2 else None)
                kind = "chg" if ta is not None and tb is not None else "del" if ta is not None else "ins"
                rows.append((kind, i + 1 if ta is not None else None, ta, j + 1 if tb is not None else None, tb))
        hunks.append(rows)
    return hunks


def diff_html(a: str, b: str, label_a: str, label_b: str, what: str) -> str:
    la, lb = a.splitlines(), b.splitlines()
    hunks = diff_rows(la, lb)
    if not hunks:
        return f'<p class="note">{escape(what)}: identical ({len(la)} lines).</p>'
    added = sum(1 for h in hunks for r in h if r[0] in ("ins", "chg"))
    removed = sum(1 for h in hunks for r in h if r[0] in ("del", "chg"))
    out = [f'<table class="diff" data-what="{escape(what)}"><caption>{escape(what)}: −{removed} +{added} lines '
           f'({len(la)} → {len(lb)})</caption>'
           '<colgroup><col class="n"><col><col class="n"><col></colgroup>'
           f'<thead><tr><th colspan="2">A · {escape(label_a)}</th><th colspan="2">B · {escape(label_b)}</th></tr>'
           f'</thead><tbody>']
    shown = 0
    for h, rows in enumerate(hunks):
        if h:
            out.append('<tr class="gap"><td colspan="4">⋯</td></tr>')
        for kind, na, ta, nb, tb in rows:
            if shown >= MAX_DIFF_ROWS:
                break
            shown += 1
            cls_a = {"del": "del", "chg": "del"}.get(kind, "eq" if ta is not None else "pad")
            cls_b = {"ins": "ins", "chg": "ins"}.get(kind, "eq" if tb is not None else "pad")
            out.append(f'<tr class="{kind}"><td class="n">{na or ""}</td><td class="{cls_a}">'
                       f'{escape(ta) if ta is not None else ""}</td><td class="n">{nb or ""}</td>'
                       f'<td class="{cls_b}">{escape(tb) if tb is not None else ""}</td></tr>')
    total = sum(len(r) for r in hunks)
    if total > shown:
        out.append(f'<tr class="gap"><td colspan="4">… {total - shown} more rows not shown</td></tr>')
    out.append("</tbody></table>")
    return "".join(out)


def sass_diff_html(pa: str, pb: str, arch: str, label_a: str, label_b: str) -> str:
    try:
        sa, sb = disassemble_sass(pa, arch), disassemble_sass(pb, arch)
    except SassNotAvailable as e:
        return f'<p class="note">SASS diff: not made here — {escape(str(e))}.</p>'
    except ValueError as e:
        return f'<p class="note">SASS diff for {escape(arch)}: {escape(str(e))}</p>'
    return diff_html("\n".join(sa.instructions()), "\n".join(sb.instructions()), label_a, label_b,
                     f"SASS {arch} (ptxas + nvdisasm; offsets left out)")


# ---- counters
def saved_counters(folder: Path | None, task: str, ptx: str) -> list[TaskCounters]:
    """Every saved profile of `task` whose PTX is `ptx` (the counters cache, read only)."""
    if folder is None or not ptx or not folder.is_dir():
        return []
    want = ptx_sha(ptx)
    out = []
    for f in sorted(folder.glob("*/*.json")):
        try:
            d = json.loads(f.read_text())
            if d.get("task") != task or d.get("ptx_sha") != want:
                continue
            out.append(TaskCounters.from_json(d))
        except (OSError, ValueError, TypeError, KeyError):
            continue
    return out


def counters_html(folder: Path | None, task: str, pa: str, pb: str) -> str:
    ca, cb = saved_counters(folder, task, pa), saved_counters(folder, task, pb)
    if not ca or not cb:
        have = "A" if ca else "B" if cb else "neither side"
        return (f'<p class="note">Counters: no saved profiles of both PTX texts ({have} has some); profile each with '
                f'<code>qdexplorer counters</code> on a GPU with ncu to see which counters moved.</p>')
    rows = [r for r in counters_diff(ca, cb) if r.verdict in ("changed", "unsure")]
    if not rows:
        return f'<p class="note">Counters: none moved beyond their noise ({len(ca)} + {len(cb)} profiles).</p>'
    out = ['<table class="counters"><caption>Counters that moved (median of each side\'s profiles)</caption>'
           '<thead><tr><th>counter</th><th>A</th><th>B</th><th>Δ</th><th>verdict</th></tr></thead><tbody>']
    for r in rows[:30]:
        pct = f"{r.pct:+.1f}%" if r.pct is not None else ""
        out.append(f'<tr data-counter="{escape(r.key)}"><td title="{escape(r.explain)}">{escape(r.label)}</td>'
                   f'<td>{_num(r.a)} {escape(r.unit)}</td><td>{_num(r.b)} {escape(r.unit)}</td><td>{pct}</td>'
                   f'<td class="v-{r.verdict}">{r.verdict}</td></tr>')
    out.append("</tbody></table>")
    return "".join(out)


# ---- the page
def _num(v: float | None, digits: int = 4) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}g}"


def _ci(ci) -> tuple[float | None, float | None]:
    return tuple(None if c is None or (isinstance(c, float) and math.isnan(c)) else float(c) for c in ci)  # type: ignore


def _machine_rows(ra: Run, rb: Run) -> list[tuple[str, str, str]]:
    def git(c):
        return f"{c.git['revision'][:12]}{' (dirty)' if c.git.get('dirty') else ''}" if c.git else "not in git"

    def when(r):
        return r.context.time or datetime.datetime.fromtimestamp(r.created, datetime.timezone.utc).isoformat(
            timespec="seconds")

    def clocks(c):
        return ", ".join(f"{k} {v}" for k, v in c.clocks_mhz.items()) if c.clocks_mhz else ""
    getters = [("run", lambda r: f"{r.label} (#{r.id})" if r.id is not None else r.label), ("measured", when),
               ("project folder", lambda r: r.context.project),
               ("backend", lambda r: r.context.backend), ("device", lambda r: r.context.device),
               ("driver", lambda r: str(r.context.driver or "")), ("SMs", lambda r: str(r.context.sm_count or "")),
               ("PTX target", lambda r: r.context.arch), ("assembly mode", lambda r: r.context.mode),
               ("platform", lambda r: r.context.platform), ("Python", lambda r: r.context.python),
               ("qdexplorer", lambda r: r.context.qdexplorer), ("project revision", lambda r: git(r.context)),
               ("workloads", lambda r: ", ".join(r.context.workloads)),
               ("repeats · rounds · warm-ups · seed", lambda r: f"{r.context.repeat} · {r.context.rounds or 1} · "
                                                             f"{r.context.warmup} · {r.context.seed}"),
               ("clocks while timing (MHz)", lambda r: clocks(r.context)),
               ("status", lambda r: r.status + (f": {r.message}" if r.message else ""))]
    rows = [(name, get(ra), get(rb)) for name, get in getters]
    return [r for r in rows if r[1] or r[2]]   # a CPU run has no driver, SM count or clocks


def _reproduce(ra: Run, rb: Run, project_arg: str) -> str:
    lines = []
    for side, r in (("A", ra), ("B", rb)):
        c = r.context
        rev = f"git checkout {c.git['revision'][:12]}" + ("   # it had uncommitted changes" if c.git.get("dirty")
                                                            else "") if c.git else "# the project is not in git"
        wl = " ".join(f"--workload {w}" for w in c.workloads)
        arch = f" --arch {c.arch}" if c.arch and c.backend == "cuda" else ""
        lines += [f"# {side}: {r.label}, qdexplorer {c.qdexplorer}, measured {c.time}", rev,
                  f"qdexplorer bench {project_arg} --backend {c.backend}{arch} {wl} --repeat {c.repeat} "
                  f"--rounds {c.rounds or 1} --warmup {c.warmup} --seed {c.seed} --save {r.label}".replace("  ", " ")]
        lines.append("")
    lines += [f"qdexplorer compare {project_arg} {ra.label} {rb.label}",
              f"qdexplorer report {project_arg} {ra.label} {rb.label} -o finding.html"]
    return "\n".join(lines)


CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1280px;padding:0 16px;color:#1b1b1b}
h1{font-size:22px;margin:0 0 4px} h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin:22px 0 6px} code,pre,.diff td{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:12px}
.lede{font-size:15px;margin:4px 0 14px} table{border-collapse:collapse;margin:6px 0}
td,th{padding:3px 8px;text-align:left;vertical-align:top} table.grid td,table.grid th{border-bottom:1px solid #eee}
table.grid td.num{text-align:right;font-variant-numeric:tabular-nums} caption{text-align:left;font-weight:600;padding:4px 0}
.v-faster{color:#2e7d32;font-weight:700}.v-slower{color:#c62828;font-weight:700}.v-same{color:#616161}
.v-unsure{color:#8d6e00;font-weight:700}.v-changed{color:#c62828;font-weight:700}.v-noise{color:#616161}
.verdict{display:inline-block;padding:2px 10px;border-radius:10px;color:#fff;font-weight:700}
.b-faster{background:#2e7d32}.b-slower{background:#c62828}.b-same{background:#757575}.b-unsure{background:#8d6e00}
.task{border:1px solid #ddd;border-radius:6px;padding:4px 16px 12px;margin:14px 0}
.figs{display:flex;flex-wrap:wrap;gap:8px 24px}
table.diff{width:100%;table-layout:fixed;border:1px solid #ddd} table.diff td{white-space:pre;overflow:hidden;text-overflow:ellipsis;padding:0 6px}
table.diff col.n{width:48px} table.diff td{tab-size:4} table.diff td.n{color:#888;text-align:right;background:#fafafa} table.diff th{background:#f3f3f3}
td.del{background:#ffd7d5} td.ins{background:#ccffd8} td.pad{background:#f6f6f6} tr.gap td{color:#888;text-align:center;background:#f3f3f3}
.note{color:#555} pre.repro{background:#f6f6f6;padding:10px;border-radius:4px;overflow-x:auto}
.swatch-a{color:COLOR_A;font-weight:700}.swatch-b{color:COLOR_B;font-weight:700}
@media print{.task{break-inside:avoid}}
""".replace("COLOR_A", COLORS["a"]).replace("COLOR_B", COLORS["b"])


def build_report(ra: Run, rb: Run, cmp: Comparison, *, project_name: str = "", project_arg: str = "PROJECT",
                 counters_folder: Path | None = None, paths: bool = False, sass: bool = True,
                 extra_paths: Sequence[tuple[str, str]] = ()) -> str:
    """The report page (a str of HTML). `project_arg`: how the reproduce section names the project."""
    la, lb = cmp.a, cmp.b
    unit = "CPU ms" if cmp.metric == "cpu_ms" else "ms"
    level = 1 - cmp.alpha
    name = project_name or ra.context.project_name or rb.context.project_name or "project"
    rows = cmp.tasks + ([cmp.total] if cmp.total else [])
    changed = [t for t in cmp.tasks if t.verdict != "same" or code_changed(ra, rb, t.task)]
    counts = {v: sum(1 for t in cmp.tasks if t.verdict == v) for v in ("faster", "slower", "unsure", "same")}
    h: list[str] = []
    h.append(f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
             f'content="width=device-width,initial-scale=1"><meta name="generator" content="qdexplorer {__version__}">'
             f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
             f'<title>{escape(name)}: {escape(lb)} vs {escape(la)}</title><style>{CSS}</style></head><body>')
    h.append(f'<h1>{escape(name)}: <span class="swatch-b">B = {escape(lb)}</span> against '
             f'<span class="swatch-a">A = {escape(la)}</span></h1>')
    total_txt = ""
    if cmp.total:
        t = cmp.total
        total_txt = (f' The workload total is <span class="v-{t.verdict}">{t.verdict}</span>: B/A = {t.ratio:.3f} '
                     f'({level:.0%} interval {_num(_ci(t.ci)[0])}–{_num(_ci(t.ci)[1])}).')
    h.append(f'<p class="lede">{len(cmp.tasks)} tasks compared ({"interleaved, rounds paired" if cmp.paired else "separate runs"}; '
             f'{unit} per launch; changes under {cmp.threshold:.0%} count as the same): '
             + ", ".join(f'<span class="v-{v}">{n} {v}</span>' for v, n in counts.items() if n)
             + f'.{total_txt} {len(changed)} task{"s" if len(changed) != 1 else ""} changed (verdict or code).</p>')
    for w in cmp.warnings:
        h.append(f'<p class="note">⚠ {escape(w)}</p>')
    # machine
    h.append('<h2 id="machine">Project and machine</h2><table class="grid machine"><thead><tr><th></th>'
             f'<th class="swatch-a">A</th><th class="swatch-b">B</th></tr></thead><tbody>')
    for label, va, vb in _machine_rows(ra, rb):
        h.append(f'<tr><th>{escape(label)}</th><td>{escape(va)}</td><td>{escape(vb)}</td></tr>')
    h.append("</tbody></table>")
    # summary
    h.append(f'<h2 id="summary">Every task</h2><table class="grid summary" data-metric="{cmp.metric}" '
             f'data-threshold="{cmp.threshold!r}" data-alpha="{cmp.alpha!r}" data-paired="{str(cmp.paired).lower()}">'
             f'<thead><tr><th>task</th><th>A median {unit}</th><th>B median {unit}</th><th>B/A</th>'
             f'<th>{level:.0%} interval</th><th>p</th><th>verdict</th><th>code</th></tr></thead><tbody>')
    for t in rows:
        lo, hi = _ci(t.ci)
        code = "" if t.task == TOTAL else ("changed" if code_changed(ra, rb, t.task) else "same")
        anchor = f'<a href="#task-{escape(t.task)}">{escape(t.task)}</a>' if t in changed else escape(t.task)
        h.append(f'<tr class="task-row" data-task="{escape(t.task)}" data-median-a="{t.median_a!r}" '
                 f'data-median-b="{t.median_b!r}" data-ratio="{t.ratio!r}" data-ci-low="{lo!r}" data-ci-high="{hi!r}" '
                 f'data-p="{t.p!r}" data-verdict="{t.verdict}"><td>{anchor}</td><td class="num">{_num(t.median_a)}</td>'
                 f'<td class="num">{_num(t.median_b)}</td><td class="num">{t.ratio:.3f}</td>'
                 f'<td class="num">{_num(lo)} – {_num(hi)}</td><td class="num">{_num(t.p, 2)}</td>'
                 f'<td class="v-{t.verdict}">{t.verdict}</td><td>{code}</td></tr>')
    for n in cmp.only_a:
        h.append(f'<tr><td>{escape(n)}</td><td colspan="7">only in A</td></tr>')
    for n in cmp.only_b:
        h.append(f'<tr><td>{escape(n)}</td><td colspan="7">only in B</td></tr>')
    h.append("</tbody></table>")
    # each changed task
    h.append('<h2 id="changed">Tasks that changed</h2>')
    if not changed:
        h.append('<p class="note">None: every task is the same code and the same speed within the threshold.</p>')
    metric = cmp.metric
    for t in changed:
        lo, hi = _ci(t.ci)
        h.append(f'<article class="task" id="task-{escape(t.task)}" data-task="{escape(t.task)}"><h3>{escape(t.task)} '
                 f'<span class="verdict b-{t.verdict}">{t.verdict}</span></h3>')
        more = f" — {escape(t.reason)}" if t.reason else ""
        h.append(f'<p>B/A = <b>{t.ratio:.3f}</b> ({t.change:+.1%}), {level:.0%} interval {_num(lo)}–{_num(hi)}, '
                 f'p = {_num(t.p, 2)}; medians {_num(t.median_a)} → {_num(t.median_b)} {unit} over '
                 f'{t.n_a} and {t.n_b} launches in {t.rounds_a} and {t.rounds_b} rounds{more}.</p>')
        h.append('<div class="figs">' + distribution_svg(ra.samples(t.task, metric), rb.samples(t.task, metric), la, lb,
                                                         unit)
                 + interval_svg(t.ratio, (lo, hi), cmp.threshold, t.verdict, level) + "</div>")
        ca, cb = code_of(ra, t.task), code_of(rb, t.task)
        if ca.ptx and cb.ptx:
            h.append(diff_html(ca.ptx, cb.ptx, la, lb, "PTX"))
            if sass:
                h.append(sass_diff_html(ca.ptx, cb.ptx, rb.context.arch or ra.context.arch or "sm_90", la, lb))
            h.append(counters_html(counters_folder, t.task, ca.ptx, cb.ptx))
        if ca.ll and cb.ll:
            h.append(f'<details{" open" if not (ca.ptx and cb.ptx) else ""}><summary>LLVM IR the CPU ran '
                     f'(host)</summary>{diff_html(ca.ll, cb.ll, la, lb, "LLVM IR (host)")}</details>')
        if not (ca.ptx and cb.ptx) and not (ca.ll and cb.ll):
            h.append('<p class="note">No code saved with one of these runs (saved before reports kept it): '
                     'the diff needs both.</p>')
        h.append("</article>")
    h.append(f'<h2 id="reproduce">How to reproduce</h2><pre class="repro">{escape(_reproduce(ra, rb, project_arg))}</pre>')
    h.append(f'<p class="note">Made by qdexplorer {__version__} on '
             f'{datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}. One file: no scripts, '
             f'no network. The figures are those of <code>qdexplorer compare --json</code> on the same runs.</p>')
    h.append("</body></html>")
    page = "".join(h)
    # on the page the placeholders are text, so HTML-escaped (`<project>` would read as a tag)
    pairs = [(path, escape(placeholder)) for path, placeholder in path_replacements([ra, rb], extra_paths)]
    return page if paths else scrub(page, pairs)


def write_report(path: str | Path, page: str) -> Path:
    """Through the product's one write guard (no symlink at the path, a fresh temporary file renamed
    over it); a missing folder is created; the page is readable by others (it is meant to be shared)."""
    out = Path(path)
    if not out.parent.exists():
        output_folder(out.parent, "report folder")
    return write_file(out, page.encode("utf-8"), mode=0o644)

