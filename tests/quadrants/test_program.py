"""A real Quadrants 1.3.3 program run on the CPU: its kernels, tasks, IR, CHI stages, timings and failures.
Its process is forked from a server that imported Quadrants once (tests/quadrants/_forked_bridge.py), but for
the timeout's test, which starts the real child."""
import os
import time

import pytest

from qdexplorer.ir.errors import QdError
from qdexplorer.quadrants import run_program
from qdexplorer.quadrants.dumps import STAGE_ORDER, offloaded_blocks

from .conftest import needs_quadrants, program

pytestmark = [needs_quadrants, pytest.mark.usefixtures("forked_bridge")]


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    return run_program(program("demo_kernels.py"), ["1000", "3"], arch="cpu",
                       dump_dir=tmp_path_factory.mktemp("dump"))


def test_kernels_and_tasks_listed_with_their_llvm_ir(demo_run):
    r = demo_run
    assert r.ok, r.error
    assert r.quadrants_version == "1.3.3" and r.arch == "x64"
    assert "y0=6 total=1000" in r.stdout  # the program really ran: 3 × saxpy(a=2) of ones into zeros
    mine = [k for k in r.kernels if not k.internal]
    assert [k.func for k in mine] == ["saxpy", "particle_step", "atomic_sum"]
    assert all(k.file == program("demo_kernels.py") and k.line > 0 for k in mine)
    tasks = {k.func: [(t.index, t.loop_name, t.type) for t in k.tasks] for k in mine}
    assert tasks["saxpy"] == [(0, "", "serial"), (1, "", "range_for")]
    assert tasks["particle_step"] == [(0, "", "serial"), (1, "", "range_for"), (2, "bounce", "range_for"),
                                      (3, "", "range_for"), (4, "", "serial")]
    for k in mine:
        for t in k.tasks:
            assert t.name.startswith(f"{k.name}_kernel_{t.index}_")
            assert t.stable_name == t.name.replace(k.name, k.func, 1)
            ir = t.text("llvm")
            # each task's own module defines the task's entry point under its Quadrants name
            assert f"define void @{t.name}(" in ir, t.name
            assert len(t.launches_ms) == 3 and all(ms >= 0 for ms in t.launches_ms), t.name
            assert "ptx" not in t.files  # PTX exists only on CUDA
    assert r.task("particle_step_kernel_2_bounce_range_for").name.endswith("_kernel_2_bounce_range_for")


def test_chi_ir_pass_dumps_collected_in_pipeline_order(demo_run):
    k = next(k for k in demo_run.kernels if k.func == "particle_step")
    names = [s for s, _ in k.stages]
    assert names == STAGE_ORDER, names
    assert "for @tmp" in k.stage_text("from_ast") or "range(" in k.stage_text("from_ast")
    blocks = offloaded_blocks(k.stage_text("after_offload"))
    assert len(blocks) == len(k.tasks) == 5
    assert "loop_name=bounce" in blocks[2]
    assert all(os.path.dirname(p) == demo_run.dump_dir for _, p in k.stages)


def test_quadrants_own_kernels_are_marked_internal(tmp_path):
    r = run_program(program("ndarrays.py"), arch="cpu", dump_dir=tmp_path)
    assert r.ok, r.error
    assert "56.0" in r.stdout
    internal = {k.func for k in r.kernels if k.internal}
    assert {"ext_arr_to_ndarray", "ndarray_to_ext_arr"} <= internal
    assert [k.func for k in r.kernels if not k.internal] == ["double"]
    # the program asked for offline_cache=True; the explorer turned it off, or nothing would be dumped
    assert r.init_calls[0]["offline_cache"] == "True"


def test_program_arguments_after_double_dash(tmp_path):
    r = run_program(program("demo_kernels.py"), ["16", "1"], arch="cpu", dump_dir=tmp_path)
    assert r.ok and "y0=2 total=16" in r.stdout


def test_failing_program_shows_its_traceback():
    r = run_program(program("failing.py"), arch="cpu")
    assert not r.ok and r.returncode == 1
    assert "ValueError: boom: n=3 is too large" in r.error
    assert 'failing.py", line 8, in setup' in r.error  # the user's frames, not the explorer's
    assert "child.py" not in r.error and "runpy" not in r.error


def test_timeout_kills_the_program_and_its_children(tmp_path, real_bridge_child):
    pidfile = tmp_path / "helper.pid"
    r = run_program(program("sleepy.py"), [str(pidfile)], arch="cpu", timeout=8)
    assert r.timed_out and "timed out after 8 s" in r.error
    assert "sleeping" in r.stdout  # output up to the kill is kept
    pid = int(pidfile.read_text())
    for _ in range(50):  # the helper was in the program's process group: it is gone too
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, 9)
        pytest.fail("the program's helper process outlived the timeout")


def test_a_crash_names_the_signal_and_keeps_the_output():
    r = run_program(program("aborts.py"), arch="cpu")
    assert not r.ok and "SIGABRT" in r.error and "about to abort" in r.stdout


def test_not_a_quadrants_program():
    r = run_program(program("no_init.py"), arch="cpu")
    assert not r.ok and "never called qd.init()" in r.error


def test_bad_script_paths(tmp_path):
    with pytest.raises(QdError, match="Quadrants program not found"):
        run_program(tmp_path / "missing.py")
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(QdError, match="not a Python file"):
        run_program(tmp_path / "notes.txt")


def test_interpreter_without_quadrants_says_how_to_install(tmp_path):
    # `python -S` has no site-packages, so no Quadrants: what a user sees with the extra missing
    exe = tmp_path / "python-without-site"
    exe.write_text(f"#!/bin/sh\nexec {os.path.realpath(os.sys.executable)} -S \"$@\"\n")
    exe.chmod(0o755)
    r = run_program(program("demo_kernels.py"), python=str(exe))
    assert not r.ok and "cannot import quadrants" in r.error and "pip install 'qdexplorer[quadrants]'" in r.error


def test_asking_for_cuda_without_a_gpu_warns_of_the_fallback(tmp_path):
    from qdexplorer.runtime.cuda.detect import cuda_status
    if cuda_status().available:
        pytest.skip("a GPU is present: Quadrants does not fall back")
    r = run_program(program("demo_kernels.py"), ["16", "1"], arch="cuda", dump_dir=tmp_path)
    assert r.ok and r.arch == "x64"
    assert r.warnings and "asked for --arch cuda, but Quadrants started on x64" in r.warnings[0]


def test_ptx_load_evidence_is_read_from_quadrants_log():
    """What Quadrants 1.3.3 prints for each file it loads (jit_cuda.cpp: QD_INFO "Loading PTX from file: {}")."""
    from qdexplorer.quadrants.edits import confirm_used
    from qdexplorer.quadrants.model import QuadrantsRun
    run = QuadrantsRun("p.py", [], "cuda", "python", "/tmp/load")
    run.stdout = ("[I 11/30/26 00:00:01.000 1] [jit_cuda.cpp:compile_module_to_ptx_with_dump@147] Loading PTX from "
                  "file: /tmp/load/spin_c60_0_kernel_1_range_for.ptx\n")
    load = {"kind": "ptx", "edits": [{"task": "spin_c60_0_kernel_1_range_for"}, {"task": "spin_c60_0_kernel_0_serial"}]}
    confirm_used(load, run)
    assert [e["used"] for e in load["edits"]] == [True, False]


def test_every_launch_is_kept_across_profiler_clears_and_resets(tmp_path):
    r = run_program(program("profiler_games.py"), arch="cpu", dump_dir=tmp_path)
    assert r.ok, r.error
    assert "x0 = 5.0" in r.stdout and len(r.init_calls) == 2
    launches = {name: len(v) for name, v in r.launches.items() if name.startswith("inc_")}
    # 5 calls of a 2-task kernel; the second qd.init compiles it again under the same name
    assert sorted(launches.values()) == [5, 5], launches
