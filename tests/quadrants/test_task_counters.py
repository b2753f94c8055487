"""Counters for a real Quadrants program's task (`quadrants --counters TASK`), without a GPU.

data/saxpy_cuda_dump/ is what Quadrants 1.3.3 dumped for demo_kernels.py on an H200 (CUDA, whole-module
path: both saxpy tasks in `saxpy_c60_0_kernel_0_serial.ptx`, ending with the driver's NUL). The fake ncu
(tests/counters/conftest.py) stands in for ncu and the GPU; the Quadrants runs that can happen here
(on the CPU) are real.
"""
import os
import shutil
from pathlib import Path

import pytest

from qdexplorer.cli import main
from qdexplorer.counters import probe
from qdexplorer.quadrants.dumps import parse_dump
from qdexplorer.quadrants.model import QuadrantsRun
from qdexplorer.quadrants.task_counters import make_report, prepare, profile_task

from ..counters.conftest import fake_ncu  # noqa: F401 - the fixture
from .conftest import needs_quadrants, program

DUMP = Path(__file__).parent / "data" / "saxpy_cuda_dump"
TASK, NAME, MODULE = "saxpy_kernel_1_range_for", "saxpy_c60_0_kernel_1_range_for", "saxpy_c60_0_kernel_0_serial.ptx"
SCRIPT = program("demo_kernels.py")


@pytest.fixture
def baseline(tmp_path):
    dump = tmp_path / "dump"
    shutil.copytree(DUMP, dump)
    run = QuadrantsRun(SCRIPT, [], "cuda", "python", str(dump), arch="cuda")
    run.kernels = parse_dump(dump)
    return run


def test_the_profiled_module_is_loaded_with_a_ptx_line_table(fake_ncu, baseline, tmp_path):  # noqa: F811
    fake_ncu.mode("good")
    prep = prepare(SCRIPT, baseline, TASK, [], "full", None, "2025.3.1.0", tmp_path / "w")
    assert (prep.task, prep.stable, prep.target) == (NAME, TASK, MODULE)   # the shared module is what loads
    assert "\x00" not in prep.ptx and prep.ptx.count(".entry ") == 2
    res, _, shown = make_report(SCRIPT, prep, [], "full", str(fake_ncu.path), tmp_path / "w")
    (call,) = fake_ncu.calls()
    assert f"-k regex:^{NAME}$ -c 1" in call and "--import-source yes" in call and "--nvtx" not in call
    assert call.endswith(f"{SCRIPT} ") or SCRIPT in call.split()       # ncu runs the program itself
    loaded = (tmp_path / "w" / "load" / MODULE).read_text()
    assert shown.read_text() == prep.ptx and f'.file\t1 "{shown}"' in loaded
    fma = next(i for i, ln in enumerate(prep.ptx.splitlines(), 1) if ln.strip().startswith("fma.rn"))
    lines = loaded.splitlines()
    assert lines[lines.index(prep.ptx.splitlines()[fma - 1]) - 1] == f"\t.loc\t1 {fma} 0"
    assert "\x00" not in loaded
    # ncu ended well and left a report: made, not read yet (read_profile reads it, elsewhere if need be)
    assert res.state == "ok"


def test_a_report_without_the_task_is_one_clear_state(fake_ncu, baseline):  # noqa: F811
    fake_ncu.mode("good")   # hands over a real report, of another kernel (qdexplorer's own saxpy)
    res = profile_task(SCRIPT, TASK, preset="full", baseline=baseline)
    assert res.state == "bad_report" and f"holds no result for {NAME}" in res.message
    assert res.task == TASK and "Traceback" not in res.message


@pytest.mark.parametrize("mode,state,words", [
    ("denied", probe.RESTRICTED, "NVreg_RestrictProfilingToAdminUsers=0"),
    ("nokernels", "no_kernels", "ncu profiled no kernel"),
    ("garbage", "bad_report", "cannot be read"),
])
def test_failures_give_one_state_and_message(fake_ncu, baseline, monkeypatch, mode, state, words):  # noqa: F811
    monkeypatch.setattr(probe, "admin_only", lambda: True)
    monkeypatch.setattr(probe, "in_container", lambda: False)
    fake_ncu.mode(mode)
    res = profile_task(SCRIPT, TASK, preset="quick", baseline=baseline)
    assert (res.state, res.task) == (state, TASK) and words in res.message and "\n" not in res.message


def test_timeout_stops_ncu_and_the_program(fake_ncu, baseline):  # noqa: F811
    fake_ncu.mode("hang")
    res = profile_task(SCRIPT, TASK, baseline=baseline, timeout=1.5)
    assert res.state == "timeout" and "within 1.5 s" in res.message


def test_an_edit_set_is_loaded_whole_and_named_in_the_key(fake_ncu, baseline, tmp_path):  # noqa: F811
    from qdexplorer.quadrants.edits import EditFolder
    gen = (DUMP / MODULE).read_text().replace("\x00", "")
    edited = gen.replace("fma.rn.ftz.f32", "fma.rn.f32")
    EditFolder(tmp_path / "edits", "ptx").write(TASK, edited, gen)
    a = prepare(SCRIPT, baseline, TASK, [], "quick", None, "v", tmp_path / "a")
    b = prepare(SCRIPT, baseline, TASK, [], "quick", tmp_path / "edits", "v", tmp_path / "b")
    assert a.ptx == gen and b.ptx == edited and a.key != b.key
    assert a.key == prepare(SCRIPT, baseline, TASK, [], "quick", None, "v", tmp_path / "c").key


def test_unknown_task_names_the_tasks(baseline, tmp_path):
    from qdexplorer.ir.errors import QdError
    with pytest.raises(QdError, match="no task named nosuch .*saxpy_kernel_1_range_for"):
        prepare(SCRIPT, baseline, "nosuch", [], "quick", None, "v", tmp_path)


@needs_quadrants
def test_cli_on_a_machine_without_ncu(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    monkeypatch.delenv("QDEXPLORER_NCU", raising=False)
    probe.forget()
    rc = main(["quadrants", SCRIPT, "--counters", TASK])
    out = capsys.readouterr().out
    probe.forget()
    if os.path.exists("/usr/local/cuda/bin/ncu"):
        pytest.skip("this machine has ncu")
    from qdexplorer.runtime.cuda.detect import cuda_status
    why = "Nsight Compute (ncu) was not found" if cuda_status().available else "no NVIDIA GPU"   # the root cause first
    assert rc == 3 and out.startswith(f"No counters for {TASK}: {why}")


@needs_quadrants
def test_cli_says_counters_need_cuda_when_quadrants_ran_on_the_cpu(fake_ncu, capsys):  # noqa: F811
    rc = main(["quadrants", SCRIPT, "--counters", TASK, "--", "64", "1"])   # real Quadrants: no GPU here
    err = capsys.readouterr().err
    assert rc == 2 and "wrote no PTX" in err and "--arch cuda on a machine with an NVIDIA GPU" in err
    assert fake_ncu.calls() == []    # no profile was attempted


def test_an_ab_side_is_its_repeats_and_the_first_failure_stands_for_it():
    from qdexplorer.counters.collect import CountersResult
    from qdexplorer.counters.record import TaskCounters
    from qdexplorer.quadrants.task_counters import repeated
    asked = []

    def profile(i, fail_at=None):
        asked.append(i)
        if i == fail_at:
            return CountersResult(TASK, "quick", "timeout", "ncu did not finish")
        return CountersResult(TASK, "quick", "ok", record=TaskCounters(TASK, "quick", figures={"duration_us": 4.0 + i}))
    res = repeated(profile, 3)
    assert asked == [0, 1, 2] and [r.figures["duration_us"] for r in res.records] == [4.0, 5.0, 6.0]
    asked.clear()
    res = repeated(lambda i: profile(i, fail_at=1), 3)
    assert asked == [0, 1] and res.state == "timeout" and res.message == "ncu did not finish"
    assert len(repeated(profile, 1).records) == 1
