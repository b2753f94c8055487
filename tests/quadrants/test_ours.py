"""Our language against theirs: one program, run by Quadrants and by qdexplorer.lang, task by task."""
import json
import shutil

import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.quadrants import run_program
from qdexplorer.quadrants.ours import compare_with_ours, run_ours
from qdexplorer.runtime import device

from .conftest import cli, needs_quadrants, program

pytestmark = needs_quadrants


@pytest.fixture(scope="module")
def both():
    return (run_program(program("demo_kernels.py"), ["256", "2"], arch="cpu"),
            run_ours(program("demo_kernels.py"), ["256", "2"]))


def test_task_lists_match_for_demo_style_kernels(both):
    theirs, ours = both
    assert theirs.ok and ours["error"] is None, (theirs.error, ours)
    # the same program gives the same answer under both
    assert theirs.stdout.strip().splitlines()[-1] == ours["stdout"].strip().splitlines()[-1]
    rows = {r["func"]: r for r in compare_with_ours(theirs, ours)}
    assert set(rows) == {"saxpy", "particle_step", "atomic_sum"}
    assert all(r["match"] for r in rows.values()), rows
    # saxpy: Quadrants' bound-only serial task is the only one set aside
    assert [n.split("_kernel_")[1] for n in rows["saxpy"]["set_aside"]] == ["0_serial"]
    assert [t["ours"] for t in rows["saxpy"]["tasks"]] == ["saxpy_kernel_0_range_for"]
    assert rows["particle_step"]["set_aside"] == []
    names = [(t["quadrants"].split("_kernel_")[1], t["ours"].split("_kernel_")[1])
             for t in rows["particle_step"]["tasks"]]
    assert names == [("0_serial", "0_serial"), ("1_range_for", "1_range_for"),
                     ("2_bounce_range_for", "2_bounce_range_for"), ("3_range_for", "3_range_for"),
                     ("4_serial", "4_serial")]
    for t in rows["particle_step"]["tasks"]:
        assert t["ours_ptx_bytes"] > 0 and t["quadrants_llvm_bytes"] > 0
        if shutil.which("ptxas"):
            assert t["ours_registers"] > 0
        assert t["ours_median_ms"] is not None and t["quadrants_median_ms"] is not None


def test_a_different_task_list_is_reported(both):
    """The comparison must be able to say no: a kernel whose loop count differs under our language."""
    import copy
    theirs, ours = both[0], copy.deepcopy(both[1])
    k = next(k for k in ours["kernels"] if k["kernel"] == "particle_step")
    k["tasks"] = k["tasks"][:-1]  # as if the trailing serial statement had been merged away
    rows = {r["func"]: r for r in compare_with_ours(theirs, ours)}
    assert rows["particle_step"]["match"] is False and rows["saxpy"]["match"] is True
    assert rows["particle_step"]["tasks"][-1]["ours"] is None


def test_cli_ours_json():
    p = cli("quadrants", program("demo_kernels.py"), "--ours", "--json", "--", "64", "1")
    assert p.returncode == 0, p.stderr
    ours = json.loads(p.stdout)["ours"]
    assert ours["error"] is None and all(k["match"] for k in ours["kernels"])
    assert all(t["ours_median_ms"] > 0 for k in ours["kernels"] for t in k["tasks"] if t["ours"])


def _ours_child():
    import importlib.util
    from qdexplorer.quadrants.ours import CHILD
    spec = importlib.util.spec_from_file_location("ours_child", CHILD)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_script_calls_are_timed_under_ours():
    """`--ours` on CUDA printed 0.0000 ms: script calls ask the device for untimed launches, whose times
    stay at the 0.0 placeholder. The child observes the launches (device.observe_launches), which times
    them whatever the call asked (on the CPU: `cpu_ms` read, None untimed), hands them over once they
    ended, and stops when told; the recorder keeps only launches that ran (grid > 0)."""
    from qdexplorer.runtime.launch import LaunchTiming

    @qd.kernel
    def fill(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = i * 2.0

    qd.init(arch=qd.cpu)
    try:
        seen, timings = [], {}
        stops = [device.observe_launches(seen.append),
                 device.observe_launches(_ours_child().launch_recorder(timings))]
        x = np.zeros(64, np.float32)
        try:
            fill(x)
        finally:
            for stop in stops:
                stop()
        fill(x)  # no longer observed
        assert x[-1] == 126.0
        assert len(seen) == 1 and len(seen[0]) == 1
        tm = seen[0][0]
        assert tm.grid > 0 and tm.ms > 0 and tm.cpu_ms is not None  # timed, though a script call is not
        assert timings == {tm.task: [tm.ms]}
        record = _ours_child().launch_recorder(timings)
        record([LaunchTiming("idle_task", "k", "cuda", 0.0, 0, 128)])  # grid 0: nothing ran, nothing kept
        assert "idle_task" not in timings
    finally:
        qd.reset()
