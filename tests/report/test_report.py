"""`qdexplorer report A B -o finding.html` on a real A/B of the demo (CPU backend): the page's figures
are `compare --json`'s, the changed task shows its PTX diff (and SASS diff where the wheels are),
two inline SVG plots and its verdict, and the page holds no script, no network reference and no
absolute path of this machine unless `--paths` asks for them."""
import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from qdexplorer.bench.history import History
from qdexplorer.report.page import diff_rows, scrub
from qdexplorer.report.svg import interval_svg, nice_ticks
from qdexplorer.bench.runner import bench
from qdexplorer.compiler import ptxas
from qdexplorer.engine import Engine
from qdexplorer.project.data_folder import history_path
from qdexplorer.project.loader import bundled_demo
from tests._cli import run_cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SLOWER_COPY = "dst[i] = src[i] + 1e-30 * qd.sin(src[i])"   # the same values, a libm call more per element


def cli(*args, cwd, env_extra=None):
    """`python -m qdexplorer.cli *args` in `cwd`, in this process (tests/_cli.py; QDX_TEST_CLI_SUBPROCESS=1: a child)."""
    out = run_cli(*args, cwd=cwd, env=env_extra)
    assert out.returncode == 0, out.stderr
    return out


@pytest.fixture(scope="module")
def ab(tmp_path_factory):
    """A demo copy benched as `before`, its copy kernel made slower, benched as `after` (CPU, in rounds)."""
    tmp = tmp_path_factory.mktemp("report")
    proj = tmp / "demo"
    shutil.copytree(bundled_demo(), proj)
    cache = str(tmp / "cache")
    for name in ("before", "after"):
        if name == "after":
            src = proj / "saxpy.py"
            src.write_text(src.read_text().replace("dst[i] = src[i]\n", SLOWER_COPY + "\n"))
        with Engine(proj, backend="cpu", in_process=True, cache_dir=cache) as eng, \
                History(history_path(proj)) as h:
            eng.compile(target="nvptx")   # as the window and `bench` do: the run keeps its PTX
            bench(eng, ["copy_1m", "saxpy_1m"], repeat=8, rounds=4, warmup=1, history=h, name=name)
    out = tmp / "finding.html"
    cli("report", str(proj), "before", "after", "-o", str(out), "--cache-dir", cache, cwd=tmp)
    cmp = json.loads(cli("compare", str(proj), "before", "after", "--json", cwd=tmp).stdout)
    return proj, tmp, out.read_text(), cmp, cache


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.tags, self.articles = {}, [], []
        self._stack = []
        self.text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "tr" and "task-row" in (a.get("class") or ""):
            self.rows[a["data-task"]] = a
        if tag == "article":
            self.articles.append({"task": a["data-task"], "svg": 0, "diffs": [], "ins": []})
        if self.articles and tag == "svg":
            self.articles[-1]["svg"] += 1
        if self.articles and tag == "table" and a.get("data-what"):
            self.articles[-1]["diffs"].append(a["data-what"])
        self._stack.append((tag, a.get("class")))

    def handle_endtag(self, tag):
        while self._stack and self._stack.pop()[0] != tag:
            pass

    def handle_data(self, data):
        self.text.append(data)
        if self.articles and self._stack and self._stack[-1] == ("td", "ins"):
            self.articles[-1]["ins"].append(data)


def test_the_report_figures_are_compare_json(ab):
    _, _, page, cmp, _ = ab
    p = _Page()
    p.feed(page)
    want = {t["task"]: t for t in cmp["tasks"] + [cmp["total"]]}
    assert set(p.rows) == set(want)
    for task, t in want.items():
        row = p.rows[task]
        assert float(row["data-median-a"]) == t["median_a"] and float(row["data-median-b"]) == t["median_b"]
        assert float(row["data-ratio"]) == t["ratio"] and float(row["data-p"]) == t["p"]
        assert [float(row["data-ci-low"]), float(row["data-ci-high"])] == t["ci"]
        assert row["data-verdict"] == t["verdict"]
    summary = next(a for tag, a in p.tags if tag == "table" and "summary" in (a.get("class") or ""))
    assert float(summary["data-threshold"]) == cmp["threshold"] and summary["data-metric"] == cmp["metric"]
    # the visible numbers are the same figures, rounded
    text = "".join(p.text)
    copy = want["copy_kernel_0_range_for"]
    assert f"{copy['ratio']:.3f}" in text and f"{copy['median_b']:.4g}" in text


def test_the_changed_task_has_its_diff_plots_and_verdict(ab):
    _, _, page, cmp, _ = ab
    p = _Page()
    p.feed(page)
    copy = next(t for t in cmp["tasks"] if t["task"] == "copy_kernel_0_range_for")
    assert copy["verdict"] == "slower", copy           # 20-odd times slower on any CPU
    art = next(a for a in p.articles if a["task"] == "copy_kernel_0_range_for")
    assert art["svg"] == 2                             # the distributions and the interval
    assert "PTX" in art["diffs"] and "LLVM IR (host)" in art["diffs"]
    assert any(re.search(r"sin|\bcall|ex2|fma", s) for s in art["ins"]), art["ins"][:20]
    if ptxas.find_ptxas() and ptxas.find_tool("nvdisasm"):
        assert any(d.startswith("SASS sm_90") for d in art["diffs"])
    assert 'class="verdict b-slower"' in page
    # saxpy's code did not change: if it has an article, it is for its (unsure/noisy) verdict only
    assert all(a["task"] != "saxpy_kernel_0_range_for" or "PTX" not in a["diffs"] for a in p.articles)


def test_the_report_needs_no_script_no_network_and_names_no_local_path(ab):
    proj, tmp, page, _, cache = ab
    assert "<script" not in page.lower() and "javascript:" not in page.lower()
    assert not re.search(r'(src|href)\s*=\s*"(https?:|//|file:)', page), "fetches nothing"
    assert not re.search(r"@import|url\(", page)
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)"', page)[1]
    assert "default-src 'none'" in csp and "script-src" not in csp   # no script may run, nothing may load
    for local in (str(proj), str(tmp), os.path.expanduser("~"), ROOT):
        assert local not in page, local
    assert "<td>&lt;project&gt;</td>" in page      # the project folder row, as a placeholder
    out = tmp / "with-paths.html"
    cli("report", str(proj), "before", "after", "-o", str(out), "--paths", "--no-sass", "--cache-dir", cache, cwd=tmp)
    assert str(proj) in out.read_text()


def test_scrub_and_diff_rows():
    pairs = [("/home/me/proj", "<project>"), ("/home/me", "~")]
    assert scrub('.file 1 "/home/me/proj/k.py" and /home/me/x', pairs) == '.file 1 "k.py" and ~/x'
    assert scrub('\t.file\t2 "/opt/lib/libdevice.bc"', []) == '\t.file\t2 "libdevice.bc"'
    hunks = diff_rows(["a", "b", "c"], ["a", "B", "c", "d"], context=1)
    assert [r[0] for r in hunks[0]] == ["eq", "chg", "eq", "ins"]


def test_svg_figures():
    assert nice_ticks(0.0, 1.0) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0] and nice_ticks(0.93, 1.07)[0] >= 0.93
    svg = interval_svg(1.3, (1.2, 1.4), 0.05, "slower")
    assert svg.startswith("<svg") and 'class="ci"' in svg and "slower" in svg


@pytest.mark.skipif(shutil.which("chromium") is None, reason="no chromium (apt-get install chromium)")
def test_the_report_renders_in_headless_chromium_with_scripts_off(ab):
    _, tmp, page, _, _ = ab
    shot = tmp / "report.png"
    html = tmp / "finding.html"
    # scripts off by the page's own policy (Content-Security-Policy: default-src 'none'): chromium's
    # --blink-settings=scriptEnabled=false also stops its headless screenshot, which needs script
    assert "default-src 'none'" in page
    out = subprocess.run(["chromium", "--headless", "--disable-gpu", "--no-sandbox", f"--screenshot={shot}", "--window-size=1400,2000", html.as_uri()],
                         capture_output=True, text=True, timeout=180)
    assert shot.is_file() and shot.stat().st_size > 20_000, out.stderr[-2000:]
