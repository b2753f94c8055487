"""Our language against theirs: one program, run by Quadrants and by qdexplorer.lang, task by task."""
import json
import shutil

from qdexplorer.quadrants import run_program
from qdexplorer.quadrants.ours import compare_with_ours, run_ours

import pytest

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
    """`--ours` on CUDA printed 0.0000 ms: script calls ask the device for untimed launches (no CUDA
    events), whose times stay at the 0.0 placeholder. The child makes them timed, and never records
    a launch that reports no time (grid 0: nothing ran)."""
    from qdexplorer.runtime.launch import LaunchTiming
    asked = []

    def cuda_run_args(self, tasks, trips, args, timed=True, wait=True):
        """What the CUDA backend returns: event times only for timed launches."""
        asked.append((timed, wait))
        return [LaunchTiming(t, "k", "cuda", 0.25 if timed else 0.0, grid, 128)
                for t, grid in zip(tasks, (4, 0))]
    timings = {}
    run_args = _ours_child().timed_run_args(cuda_run_args, timings)
    run_args(None, ["k_kernel_0_range_for", "k_kernel_1_range_for"], {}, {}, timed=False, wait=False)
    assert asked == [(True, False)]  # timed, and still not waiting where the caller did not
    assert timings == {"k_kernel_0_range_for": [0.25]}
