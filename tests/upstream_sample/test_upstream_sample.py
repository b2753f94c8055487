"""Quadrants' own tests, a fixed sample, under qdexplorer.lang through the upstream-suite shim: every
case real Quadrants passes (sample.json) must pass here too (README.md says what is vendored)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
HARNESS = REPO / "benchmarks" / "upstream_harness"


@pytest.mark.long   # 252 upstream cases in a child pytest
def test_the_sampled_upstream_cases_pass_under_qdexplorer_lang(tmp_path):
    sample = json.loads((HERE / "sample.json").read_text())["cases"]
    select, out = tmp_path / "select.json", tmp_path / "out.jsonl"
    select.write_text(json.dumps(sample))
    env = dict(os.environ, QD_WANTED_ARCHS="cpu", QDX_SUITE_SELECT=str(select), QDX_SUITE_OUT=str(out),
               QDX_SUITE_EXPECT="qdexplorer.lang", PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join(map(str, [HARNESS / "shim", HARNESS / "plugin", HERE / "tree", REPO])))
    files = sorted({n.split("::")[0] for n in sample})
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "qdx_suite_plugin", "-p", "no:cacheprovider",
                        "-p", "no:xdist", "-c", "pytest.ini", "--rootdir", ".", "-o", "addopts=", "-W", "ignore",
                        f"--basetemp={tmp_path / 'bt'}", *files],
                       cwd=HERE / "tree", env=env, capture_output=True, text=True, timeout=600)
    passed, causes = set(), {}
    for line in out.read_text().splitlines() if out.exists() else []:
        rec = json.loads(line)
        if rec.get("outcome") == "passed" and rec.get("when") == "call":
            passed.add(rec["nodeid"])
        elif "nodeid" in rec and rec.get("outcome") != "passed":
            causes.setdefault(rec["nodeid"], rec.get("cause", ""))
        elif "collect_error" in rec:
            causes.setdefault(rec["collect_error"], rec.get("cause", ""))
    missing = [n for n in sample if n not in passed]
    assert not missing, "\n".join(f"{n}: {causes.get(n) or causes.get(n.split('::')[0]) or 'did not run'}"
                                  for n in missing) + "\n" + p.stdout[-3000:] + p.stderr[-2000:]
    assert len(passed) == len(sample) >= 30
