"""The CLI as a user runs it: a real subprocess, real pool and device worker processes."""
import json
import os
import subprocess
import textwrap

from tests._cli import run_cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli(*args, env=None, **kw):
    """`python -m qdexplorer.cli *args`, in this process (tests/_cli.py; QDX_TEST_CLI_SUBPROCESS=1: a child)."""
    return run_cli(*args, env=env, **kw)


def test_compile_json_on_the_demo():
    p = cli("compile", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["arch"] == "sm_90" and out["target"] == "nvptx"
    assert len(out["tasks"]) >= 15
    for t in out["tasks"]:
        assert t["bytes"] > 0 and not t["error"]
        assert t["type"] in ("range_for", "serial")
        assert {"codegen", "cache"} <= set(t["seconds"])
    assert {e["event"] for e in out["events"]} == {"TaskCompiled"}


def test_run_cpu_json_on_the_demo():
    p = cli("run", "--backend", "cpu", "--json", "--repeat", "2")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    status = {w["workload"]: w["status"] for w in out["workloads"]}
    assert status.pop("block_sum_1m") == "skipped"  # shared memory is CUDA-only
    assert set(status.values()) == {"passed"}
    particles = next(w for w in out["workloads"] if w["workload"] == "particles_64k")
    assert len(particles["tasks"]) == 5 and all(t["launches"] == 2 for t in particles["tasks"])
    assert all(tm["backend"] == "cpu" and tm["ms"] >= 0 for tm in particles["timings"])


def test_text_output_and_single_workload():
    p = cli("run", "--workload", "saxpy_1m")
    assert p.returncode == 0, p.stderr
    assert "PASSED" in p.stdout and "saxpy_kernel_0_range_for" in p.stdout


def test_bad_inputs_exit_nonzero_with_one_message(tmp_path):
    p = cli("compile", str(tmp_path / "nope"))
    assert p.returncode == 2 and "project folder not found" in p.stderr and "Traceback" not in p.stderr
    (tmp_path / "syn").mkdir()
    (tmp_path / "syn" / "k.py").write_text("def (:\n")
    p = cli("compile", str(tmp_path / "syn"))
    assert p.returncode == 2 and "k.py:1:" in p.stderr and "syntax error" in p.stderr
    p = cli("run", "--workload", "no_such")
    assert p.returncode == 2 and "no workload named 'no_such'" in p.stderr
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "k.py").write_text(textwrap.dedent("""\
        import qdexplorer.lang as qd
        @qd.kernel
        def k(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
            for i in range(x.shape[0]):
                x[i] = [1 for _ in x]
        """))
    p = cli("compile", str(tmp_path / "bad"))
    assert p.returncode == 2 and "k.py:5:" in p.stderr and "list comprehension" in p.stderr
    assert "Traceback" not in p.stderr


def test_failing_check_exits_one(tmp_path):
    (tmp_path / "k.py").write_text(textwrap.dedent("""\
        import numpy as np
        import qdexplorer.lang as qd
        @qd.kernel
        def inc(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
            for i in range(x.shape[0]):
                x[i] = x[i] + 1.0
        @qd.workload(inc, check=lambda b, a: np.testing.assert_allclose(a["x"], b["x"] - 1.0))
        def w(rng):
            return dict(x=np.zeros(4, np.float32))
        """))
    p = cli("run", str(tmp_path))
    assert p.returncode == 1
    assert "FAILED" in p.stdout and "check error" in p.stdout


def test_show_and_override_commands(tmp_path):
    p = cli("show", "--what", "ptx", "saxpy_kernel_0_range_for")
    assert p.returncode == 0 and ".entry saxpy_kernel_0_range_for" in p.stdout
    p = cli("show", "--what", "ll", "saxpy_kernel_0_range_for")
    assert 'define ptx_kernel void @"saxpy_kernel_0_range_for"' in p.stdout
    import shutil
    from qdexplorer.project.loader import bundled_demo
    proj = tmp_path / "demo"
    shutil.copytree(bundled_demo(), proj)
    p = cli("show", str(proj), "saxpy_kernel_0_range_for")  # never imports: needs a compile first
    assert p.returncode == 2 and "run `qdexplorer compile" in p.stderr and "importing" not in p.stderr
    assert cli("compile", str(proj)).returncode == 0
    ptx = tmp_path / "edit.ptx"
    ptx.write_text(cli("show", str(proj), "saxpy_kernel_0_range_for").stdout + "// edited\n")
    p = cli("override", "set", str(proj), "saxpy_kernel_0_range_for", str(ptx))
    assert p.returncode == 0, p.stderr
    assert cli("override", "list", str(proj)).stdout.split() == ["saxpy_kernel_0_range_for", "active"]
    out = json.loads(cli("compile", str(proj), "--json").stdout)
    assert {t["task"]: t["override"] for t in out["tasks"]}["saxpy_kernel_0_range_for"] == "active"
    assert "reverted" in cli("override", "revert", str(proj), "saxpy_kernel_0_range_for").stdout
    assert cli("override", "list", str(proj)).stdout.startswith("no overrides for ")   # not an empty answer


def test_info_never_crashes_without_a_gpu():
    p = cli("info")   # lines a person reads (it printed raw JSON only)
    assert p.returncode == 0 and p.stdout.startswith("CUDA:") and "cache folder:" in p.stdout, p.stdout
    assert not p.stdout.lstrip().startswith("{")
    p = cli("info", "--json")
    assert p.returncode == 0
    assert "available" in json.loads(p.stdout)["cuda"]


def test_cuda_backend_without_a_gpu_is_one_clear_message():
    from qdexplorer.runtime.cuda.detect import cuda_status
    if cuda_status().available:
        import pytest
        pytest.skip("a GPU is present")
    p = cli("run", "--backend", "cuda")
    assert p.returncode == 2 and "cuda backend is unavailable" in p.stderr and "Traceback" not in p.stderr


def test_history_is_runs_and_a_typo_gets_a_did_you_mean(tmp_path):
    """The window says History, the CLI said `runs` only, and a mistyped command got no suggestion."""
    (tmp_path / "k.py").write_text("import qdexplorer.lang as qd\n")
    p = cli("history", str(tmp_path))
    assert p.returncode == 0 and "no saved runs" in p.stdout, p.stderr
    p = cli("histroy")
    assert p.returncode == 2 and "did you mean 'history'?" in p.stderr
    p = cli("run", "--backend", "cdua")
    assert p.returncode == 2 and "did you mean 'cuda'?" in p.stderr
