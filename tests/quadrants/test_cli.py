"""`qdexplorer quadrants` as a user runs it: a real Quadrants program in a process of its own, forked from a
server that imported Quadrants once (tests/quadrants/_forked_bridge.py), but for the test that starts the
real child."""
import json
import math
import os
import re

import pytest

from .conftest import ROOT, cli, needs_quadrants, program

pytestmark = [needs_quadrants, pytest.mark.usefixtures("forked_bridge")]
DOC = os.path.join(ROOT, "docs", "quadrants.md")


def documented_keys(heading: str) -> set:
    """The keys in the first table after `heading` in docs/quadrants.md."""
    text = open(DOC).read()
    section = text[text.index(heading):]
    rows = re.findall(r"^\| `([a-z_]+)` \|", section[: section.index("\n\n", section.index("| key |"))], re.M)
    return set(rows)


@pytest.fixture(scope="module")
def demo_json():
    p = cli("quadrants", program("demo_kernels.py"), "--arch", "cpu", "--json", "--", "64", "2")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.fixture(scope="module")
def demo_64_1(tmp_path_factory):
    """One run of the demo with `64 1` (a Quadrants child, about 1 s of CPU) for the tests that only read its
    tasks' IR and launches: each reran it for itself."""
    from qdexplorer.quadrants.program import run_program
    run = run_program(program("demo_kernels.py"), ["64", "1"], arch="cpu", dump_dir=tmp_path_factory.mktemp("demo_64_1"))
    assert run.ok, run.error
    return run


def test_json_matches_the_documented_schema(demo_json):
    doc = demo_json
    assert doc["schema"] == 1
    assert set(doc) == documented_keys("Schema version 1")
    kernel = next(k for k in doc["kernels"] if k["func"] == "particle_step")
    assert set(kernel) == documented_keys("A kernel:")
    task = kernel["tasks"][2]
    assert set(task) == documented_keys("A task:")
    assert task["loop_name"] == "bounce" and task["type"] == "range_for" and task["launches"] == 2
    assert task["bytes"]["llvm"] == os.path.getsize(task["files"]["llvm"]) > 0
    assert doc["args"] == ["64", "2"] and "y0=4 total=64" in doc["stdout"]
    assert doc["launches"][task["name"]] == task["launches_ms"]
    assert [s["stage"] for s in kernel["stages"]][:1] == ["from_ast"] and doc["error"] is None


def test_table_hides_quadrants_internal_kernels_unless_all(real_bridge_child):
    p = cli("quadrants", program("ndarrays.py"))
    assert p.returncode == 0, p.stderr
    assert "double_c" in p.stdout and "ext_arr_to_ndarray" not in p.stdout
    assert "Quadrants-internal kernel(s); --all lists them" in p.stdout
    p = cli("quadrants", program("ndarrays.py"), "--all")
    assert "[internal] ext_arr_to_ndarray_c" in p.stdout


def test_failing_program_exits_1_with_its_error():
    p = cli("quadrants", program("failing.py"))
    assert p.returncode == 1
    assert "ValueError: boom: n=3 is too large" in p.stderr and "failing.py" in p.stderr
    p = cli("quadrants", program("failing.py"), "--json")
    assert p.returncode == 1 and "ValueError: boom" in json.loads(p.stdout)["error"]


def test_timeout_flag():
    p = cli("quadrants", program("sleepy.py"), "--timeout", "3", "--", os.devnull)
    assert p.returncode == 1 and "timed out after 3 s" in p.stderr


def test_bad_input_exits_2_with_one_message(tmp_path):
    p = cli("quadrants", str(tmp_path / "nope.py"))
    assert p.returncode == 2 and "Quadrants program not found" in p.stderr and "Traceback" not in p.stderr
    p = cli("quadrants", program("demo_kernels.py"), "--export", "saxpy_kernel_1_range_for")
    assert p.returncode == 2 and "--export TASK needs --load-ptx DIR or --load-ll DIR" in p.stderr


def _fsub(text: str) -> str:
    edited = re.sub(r"= fadd (.*?)float", r"= fsub \1float", text, count=1)
    assert edited != text
    return edited


def test_edit_llvm_ir_and_rerun_with_qd_load_ir(tmp_path):
    """The CPU half of the editing loop: export a task, edit it, rerun, see the edit used and its effect."""
    edits = tmp_path / "edits"
    p = cli("quadrants", program("demo_kernels.py"), "--load-ll", str(edits), "--export", "saxpy_kernel_1_range_for",
            "--", "64", "2")
    assert p.returncode == 0, p.stderr
    f = edits / "saxpy_kernel_1_range_for_llvm.ll"
    assert p.stdout.strip() == str(f)
    side = json.loads((edits / "saxpy_kernel_1_range_for_llvm.ll.json").read_text())
    assert side["kind"] == "ll" and len(side["generated_sha256"]) == 64
    f.write_text(_fsub(f.read_text()))  # y = a*x - y instead of a*x + y
    # one round: the alternation over several is test_generated_and_edited_programs_rerun_alternately's
    # (each round is two more Quadrants processes, seconds each)
    p = cli("quadrants", program("demo_kernels.py"), "--load-ll", str(edits), "--json", "--rounds", "1",
            "--", "64", "2")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert [(r["side"], r["round"]) for r in doc["reruns"]] == [("generated", 0), ("edited", 0)]
    assert "y0=4 total=64" in doc["stdout"]             # generated: 0 -> 2 -> 4
    assert "y0=0 total=64" in doc["edited_run"]["stdout"]  # edited: 2-0=2, then 2-2=0
    (e,) = doc["edited_run"]["load"]["edits"]
    assert e["stable_name"] == "saxpy_kernel_1_range_for" and e["state"] == "active" and e["used"] is True
    row = next(r for r in doc["comparison"] if r["edited"])
    assert row["stable_name"] == "saxpy_kernel_1_range_for"
    assert row["generated"]["launches"] == row["edited_run"]["launches"] == 2 and row["rounds"] == 1
    assert row["ratio"] is None or row["ratio"] > 0
    assert sum(r["edited"] for r in doc["comparison"]) == 1 and len(doc["comparison"]) == 9
    # the edit folder is untouched by the runs; the load folder holds every task's IR (QD_LOAD_IR needs it)
    assert sorted(x.name for x in edits.iterdir()) == [f.name, f.name + ".json"]
    assert len(os.listdir(doc["edited_run"]["load"]["folder"])) == 9


def test_stale_edit_is_flagged_and_still_loaded(tmp_path, demo_64_1):
    from qdexplorer.quadrants.edits import EditFolder
    t = demo_64_1.task("atomic_sum_kernel_1_range_for")
    # derived from code that differs from what Quadrants generates now: stale
    EditFolder(tmp_path, "ll").write(t.stable_name, t.text("llvm"), generated="; an older kernel\n")
    p = cli("quadrants", program("demo_kernels.py"), "--load-ll", str(tmp_path), "--rounds", "1", "--", "64", "1")
    assert p.returncode == 0, p.stderr
    line = next(ln for ln in p.stdout.splitlines() if "_llvm.ll" in ln and "edit" in ln)
    assert "atomic_sum_kernel_1_range_for_llvm.ll  stale  USED" in line
    assert re.search(r"^ \*atomic_sum_c\d+_0_kernel_1_range_for \(edited\) +[\d.]+ ms +[\d.]+ ms", p.stdout, re.M)


def test_edit_naming_no_task_lists_the_tasks(tmp_path):
    (tmp_path / "nosuch_kernel_0_serial_llvm.ll").write_text("; nothing\n")
    p = cli("quadrants", program("demo_kernels.py"), "--load-ll", str(tmp_path))
    assert p.returncode == 2 and "no task named nosuch_kernel_0_serial" in p.stderr
    assert "saxpy_kernel_1_range_for" in p.stderr


def test_ptx_edit_on_the_cpu_says_use_cuda(tmp_path):
    (tmp_path / "saxpy_kernel_1_range_for.ptx").write_text("// ptx\n")
    p = cli("quadrants", program("demo_kernels.py"), "--arch", "cpu", "--load-ptx", str(tmp_path))
    assert p.returncode == 2 and "PTX exists only on CUDA" in p.stderr


def test_broken_llvm_edit_shows_quadrants_error(tmp_path):
    (tmp_path / "saxpy_kernel_1_range_for_llvm.ll").write_text("this is not LLVM IR\n")
    p = cli("quadrants", program("demo_kernels.py"), "--load-ll", str(tmp_path), "--", "64", "1")
    assert p.returncode == 1
    assert "NOT USED" in p.stdout and "was not used" in p.stderr
    assert "saxpy_c" in p.stderr and ("SIGABRT" in p.stderr or "Failed to load LLVM IR" in p.stderr)


def test_saved_json_reopens_as_the_same_run(demo_json, tmp_path):
    import shutil

    from qdexplorer.quadrants.model import run_from_dict
    moved = tmp_path / "moved"
    shutil.copytree(demo_json["dump_dir"], moved)
    run = run_from_dict(demo_json, moved=(demo_json["dump_dir"], str(moved)))
    again = run.to_dict()
    assert again["kernels"] != demo_json["kernels"]  # paths now point into the copy...
    assert json.loads(json.dumps(again).replace(str(moved), demo_json["dump_dir"])) == demo_json  # ...and only they
    t = run.task("particle_step_kernel_2_bounce_range_for")
    assert t.files["llvm"].startswith(str(moved)) and "define void @" in t.text("llvm")


def test_a_symlink_in_the_edit_folder_is_refused(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("not yours\n")
    edits = tmp_path / "edits"
    edits.mkdir()
    os.symlink(secret, edits / "saxpy_kernel_1_range_for_llvm.ll")
    p = cli("quadrants", program("demo_kernels.py"), "--load-ll", str(edits), "--", "16", "1")
    assert p.returncode == 2 and "symbolic link" in p.stderr and "Traceback" not in p.stderr


def test_comparison_rows_carry_the_bench_statistics(tmp_path):
    from qdexplorer.quadrants.compare import compare_runs
    from qdexplorer.quadrants.program import run_program
    a = run_program(program("demo_kernels.py"), ["64", "6"], arch="cpu", dump_dir=tmp_path / "a")
    b = run_program(program("demo_kernels.py"), ["64", "6"], arch="cpu", dump_dir=tmp_path / "b")
    rows = {r["stable_name"]: r for r in compare_runs(a, b)}
    st = rows["particle_step_kernel_3_range_for"]["stats"]
    assert st["n_a"] == st["n_b"] == 6 and st["rounds_a"] == 1 and st["paired"]
    assert st["verdict"] in ("same", "unsure")  # one run a side: never faster or slower
    assert st["ci"] == [None, None] and 0 <= st["p"] <= 1   # one round a side: no interval reaches 95%


def test_one_launch_a_side_has_no_interval_rather_than_a_point(demo_64_1):
    """Quadrants printed "too few launches to tell" with the interval [x, x]: a point looks certain."""
    from qdexplorer.quadrants.compare import compare_runs
    from qdexplorer.quadrants.program import run_program
    a = demo_64_1
    b = run_program(program("demo_kernels.py"), ["64", "1"], arch="cpu", dump=False)
    assert b.dump_dir == "" and b.kernels == [] and b.launches.keys() == a.launches.keys()
    for row in compare_runs(a, b):
        assert row["generated"]["launches"] == 1 and row["stats"]["ci"] == [None, None]
        assert row["stats"]["verdict"] in ("same", "unsure")


def test_generated_and_edited_programs_rerun_alternately(tmp_path):
    """G E G E G E: the first generated run keeps the dumps, the reruns dump nothing; each task is
    compared over the three pairs of runs, and no untouched task is called faster or slower."""
    from qdexplorer.quadrants.compare import edit_and_rerun
    from qdexplorer.quadrants.edits import EditFolder
    from qdexplorer.quadrants.program import run_program
    base = run_program(program("demo_kernels.py"), ["4096", "3"], arch="cpu", dump_dir=tmp_path / "dump")
    t = base.task("saxpy_kernel_1_range_for")
    EditFolder(tmp_path / "edits", "ll").write(t.stable_name, t.text("llvm"), t.text("llvm"))  # unchanged code
    order = []
    res = edit_and_rerun(program("demo_kernels.py"), tmp_path / "edits", "ll", ["4096", "3"], arch="cpu",
                         baseline=base, rounds=3, on_run=lambda side, rnd, run: order.append((side, rnd, run.ok)))
    assert order == [("edited", 0, True), ("generated", 1, True), ("edited", 1, True), ("generated", 2, True),
                     ("edited", 2, True)]
    assert res["generated_runs"][0] is base and [r.dump_dir for r in res["generated_runs"][1:]] == ["", ""]
    assert len(res["edited_runs"]) == 3 and res["load"]["edits"][0]["used"]
    from qdexplorer.bench.stats import default_threshold
    th = default_threshold(["cpu"], interleaved=True)
    for row in res["comparison"]:
        st = row["stats"]
        assert row["rounds"] == 3 and row["generated"]["launches"] == row["edited_run"]["launches"] == 9
        assert st["paired"] and st["rounds_a"] == st["rounds_b"] == 3
        # The same code on both sides. Live timings on a loaded box can still produce the rare false verdict the
        # calibration allows (≤1 in 20, benchmarks/compare_calibration.py); the test pins that any verdict is the
        # paired hierarchical statistics' own: an interval clear of the threshold and a change beyond the noise floor.
        if st["verdict"] in ("faster", "slower"):
            lo, hi = st["ci"]
            assert (lo > 1 + th if st["verdict"] == "slower" else hi < 1 - th), row
            assert abs(math.log(st["ratio"])) > math.log1p(st["noise_floor"]), row
        else:
            assert st["verdict"] in ("same", "unsure"), row
