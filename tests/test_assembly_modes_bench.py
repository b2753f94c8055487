"""benchmarks/assembly_modes.py runs on a CPU-only machine (GPU columns null) and its JSON reads as
the comparison rows the window and benchmarks/README.md show."""
import json
import os
import subprocess
import sys

import pytest

from qdexplorer.bench.assembly_table import COLUMNS, load, markdown, rows
from qdexplorer.compiler.ptxas import find_ptxas
from qdexplorer.runtime.cuda.detect import cuda_status

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_bench(tmp_path, *args):
    env = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "assembly_modes.py"), *args],
                       env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    out = tmp_path / "modes.json"
    out.write_text(p.stdout)
    return json.loads(p.stdout), out


@pytest.fixture(scope="module")
def small_doc(tmp_path_factory):
    return run_bench(tmp_path_factory.mktemp("bench"), "--no-demo", "--k", "2", "--workers", "1")


def test_the_benchmark_compares_the_three_modes(small_doc):
    doc, path = small_doc
    assert doc["modes"] == ["whole", "per_task", "culink"] and [r["project"] for r in doc["rows"]] == ["K=2"]
    rs = load(path)
    assert [(r["project"], r["mode"]) for r in rs] == [("K=2", "whole"), ("K=2", "per_task"), ("K=2", "culink")]
    by = {r["mode"]: r for r in rs}
    for mode in ("whole", "per_task") + (("culink",) if find_ptxas() else ()):
        r = by[mode]
        assert r["error"] is None and r["cold_s"] > 0 and r["edit_s"] > 0 and r["disk_kb"] > 0
        assert r["warm_s"] < r["cold_s"]
    cell = doc["rows"][0]
    # the one-task edit recompiles one task per-task, the whole kernel whole-module
    assert cell["per_task"]["compile"]["warm_one_edit"]["tiers"] == {"memory": 1, "miss": 1}
    assert cell["whole"]["compile"]["warm_one_edit"]["tiers"] == {"miss": 1}
    if find_ptxas():
        assert {"sm_90", "sm_90-cubin"} <= set(cell["culink"]["compile"]["disk_bytes"])
        assert by["culink"]["disk_kb"] > by["per_task"]["disk_kb"]
    else:
        assert "needs ptxas" in by["culink"]["error"]
    if not cuda_status().available:
        assert all(cell[m]["gpu"] is None for m in doc["modes"])
        assert all(r["load_fresh_ms"] is None and r["kernel_ms"] is None for r in rs)
    table = markdown(rs)
    assert table.count("\n") == 1 + len(rs) and "warm one-task edit (s)" in table
    assert len(table.splitlines()[0].split("|")) == len(COLUMNS) + 4


def test_other_json_is_refused_clearly(tmp_path):
    f = tmp_path / "x.json"
    f.write_text('{"benchmark": "warm_edit"}')
    with pytest.raises(ValueError, match="not the output of benchmarks/assembly_modes.py"):
        load(f)
    assert rows({"modes": ["whole"], "rows": [{"project": "p", "whole": None}]})[0]["cold_s"] is None
