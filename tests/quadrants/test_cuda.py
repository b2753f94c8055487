"""The issue's GPU check (benchmarks/quadrants_ptx_edit.py prints it with figures): a task's PTX edited
through the explorer, rerun with QUADRANTS_LOAD_PTX, confirmed used, and the timing change shown.
Needs an NVIDIA GPU and Quadrants (skipped otherwise)."""
import importlib.util
import json
import os

import pytest

from .conftest import ROOT, cli, needs_quadrants, program

pytestmark = needs_quadrants
TASK = "spin_kernel_1_range_for"


def _edit_tool():
    spec = importlib.util.spec_from_file_location("quadrants_ptx_edit", os.path.join(ROOT, "benchmarks",
                                                                                   "quadrants_ptx_edit.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.repeat_in_innermost_loop


def test_the_loop_edit_on_real_quadrants_ptx_assembles():
    """data/: what Quadrants 1.3.3 wrote for gpu_loop.py's kernel on an H200 (whole-module path: both tasks
    in `spin_c60_0_kernel_0_serial.ptx`; LLVM folded 8 iterations into one fma)."""
    ptx = open(os.path.join(os.path.dirname(__file__), "data", "spin_whole_module_cuda.ptx")).read()
    out = _edit_tool()(ptx, 8)
    assert out.count("fma.rn.ftz.f32 %r13, %r13, 0f3F7DF58D, 0f3C029D3B;") == 8
    from qdexplorer.compiler.ptxas import find_ptxas, validate
    if find_ptxas() is not None:
        assert validate(out).ok


def test_the_loop_edit_lengthens_the_chain_inside_a_loop_only():
    ptx = ("mov.f32 %f1, 0f3F800000;\nfma.rn.f32 %f9, %f1, %f1, %f1;\n$L__BB0_2:\n"
           "\tfma.rn.ftz.f32 %f6, %f5, %f2, %f3;\nadd.s32 %r1, %r1, 1;\n@%p1 bra $L__BB0_2;\nret;")
    out = _edit_tool()(ptx, 2).splitlines()
    assert out[4:6] == ["\tfma.rn.ftz.f32 %f6, %f6, %f2, %f3;"] * 2  # each takes the previous result
    assert out.count("fma.rn.f32 %f9, %f1, %f1, %f1;") == 1 and out[3] == "\tfma.rn.ftz.f32 %f6, %f5, %f2, %f3;"


@pytest.mark.cuda
@pytest.mark.gpu_exclusive   # a timing verdict
def test_ptx_edit_in_a_loop_is_used_and_slows_the_task(tmp_path):
    args = ["--", str(1 << 20), "20000", "20"]
    edits = tmp_path / "edits"
    p = cli("quadrants", program("gpu_loop.py"), "--arch", "cuda", "--load-ptx", str(edits), "--export", TASK, *args)
    assert p.returncode == 0, p.stderr
    f = edits / f"{TASK}.ptx"
    f.write_text(_edit_tool()(f.read_text(), 8))
    p = cli("quadrants", program("gpu_loop.py"), "--arch", "cuda", "--load-ptx", str(edits), "--json",
            "--rounds", "4", *args)   # 4 a side: the fewest at which the rule gives a verdict (bench/stats.py)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert [r["side"] for r in doc["reruns"]] == ["generated", "edited"] * 4
    assert doc["arch"] == "cuda"
    (e,) = doc["edited_run"]["load"]["edits"]
    assert e["used"] and e["state"] == "active" and "Loading PTX from file" in e["evidence"]
    row = next(r for r in doc["comparison"] if r["edited"])
    assert row["generated"]["launches"] == row["edited_run"]["launches"] == 80 and row["rounds"] == 4
    assert row["ratio"] > 1.5 and row["stats"]["verdict"] == "slower", row  # a chain 8 instructions longer
    assert row["stats"]["ci"][0] < row["stats"]["ci"][1]  # an interval, not a point
    t = next(t for k in doc["kernels"] for t in k["tasks"] if t["stable_name"] == TASK)
    assert {"llvm", "before_ptx", "ptx"} <= set(t["files"])


@pytest.mark.cuda
def test_ours_shows_qdexplorer_timings_on_cuda():
    """`--ours` printed 0.0000 ms for every qdexplorer task on CUDA (untimed script launches)."""
    p = cli("quadrants", program("gpu_loop.py"), "--arch", "cuda", "--ours", "--json", "--", str(1 << 20), "2000", "5")
    assert p.returncode == 0, p.stderr
    ours = json.loads(p.stdout)["ours"]
    assert ours["error"] is None
    times = [t["ours_median_ms"] for k in ours["kernels"] for t in k["tasks"] if t["ours"]]
    assert times and all(ms is not None and ms > 0.001 for ms in times), ours
