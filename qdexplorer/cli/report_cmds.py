"""`qdexplorer report A B -o finding.html`: an A/B of two saved runs as one self-contained HTML file.

The runs are named as `compare` takes them (name, #id, latest, latest~1); the figures are those of
`compare --json` on the same runs (same alpha and threshold). The page is `report.page`'s.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..bench.compare import compare_runs
from ..report import build_report, write_report
from ..compiler.cache import default_cache_dir
from ..project.loader import bundled_demo
from .arg_types import percent, probability
from .common import open_history


def add_commands(sub: Any) -> None:
    r = sub.add_parser("report", help="write an A/B of two saved runs as one HTML file (no scripts, no network): "
                                      "machine, changed tasks with their PTX/SASS diffs, plots, verdicts")
    r.add_argument("project", nargs="?", help="project folder or kernel file (default: the bundled demo)")
    r.add_argument("a", metavar="A", help="baseline: a saved run (name, #id, latest, latest~1)")
    r.add_argument("b", metavar="B", help="candidate, as A")
    r.add_argument("-o", "--output", metavar="FILE.html", default="finding.html", help="where (default finding.html)")
    r.add_argument("--alpha", type=probability, default=0.05, help="as for compare (default 0.05: 95%% intervals)")
    r.add_argument("--threshold", type=percent, metavar="PCT", help="as for compare")
    r.add_argument("--paths", action="store_true",
                   help="keep this machine's absolute paths (default: the project folder reads <project>, home ~)")
    r.add_argument("--no-sass", dest="sass", action="store_false", help="leave out the SASS diffs (ptxas + nvdisasm)")
    r.add_argument("--cache-dir", help="cache folder holding saved counters (default: the user cache folder)")


def project_arg(project: str | None) -> str:
    """How the reproduce section names the project: its folder's name, or nothing for the bundled demo."""
    if project is None or Path(project).resolve() == bundled_demo():
        return ""
    return Path(project).name


def cmd_report(a: argparse.Namespace) -> int:
    with open_history(a.project, create=False) as h:
        ra, rb = h.load(a.a), h.load(a.b)
    cmp = compare_runs(ra, rb, alpha=a.alpha, threshold=None if a.threshold is None else a.threshold / 100.0)
    folder = (Path(a.cache_dir) if a.cache_dir else default_cache_dir()) / "counters"
    page = build_report(ra, rb, cmp, project_arg=project_arg(a.project), counters_folder=folder, paths=a.paths,
                        sass=a.sass)
    out = write_report(a.output, page)
    print(f"wrote {out} ({len(page) // 1024} KB: {ra.label} against {rb.label}, {len(cmp.tasks)} tasks)", file=sys.stderr)
    return 0


COMMANDS = {"report": cmd_report}
