"""LLVM-IR overrides: an edited `<task>.ll` (or `QD_LOAD_IR`'s `<task>_before_ptx.ll`) really runs.

The CPU backend compiles `ll → obj`, so a changed constant in the LLVM IR changes what the CPU
computes: the workload's check sees it. On the nvptx path the same edit changes the PTX.
"""
import json

from qdexplorer.engine import Engine
from qdexplorer.events import TaskLoaded
from tests._cli import run_cli

from .test_cache import write_project

TASK = "three_kernel_0_range_for"          # x[i] = x[i] + 1.0
ONE, TWO = b"0x3ff0000000000000", b"0x4000000000000000"   # 1.0 and 2.0 as LLVM float constants


def _by_task(compiled):
    return {ct.task: ct for ct in compiled}


def test_a_changed_constant_changes_the_cpu_result_and_the_ptx(tmp_path):
    proj = write_project(tmp_path / "p")
    with Engine(proj, in_process=True, cache_dir=str(tmp_path / "cache")) as eng:
        assert eng.run()[0].status == "passed"
        gen = eng.compiled_for(TASK, "host")
        ll = gen.produced["ll"].data
        assert ll.count(ONE) == 1
        eng.set_override(TASK, ll.replace(ONE, TWO), kind="ll", target="host")
        (res,) = eng.run()
        assert res.status == "failed" and "Mismatched elements: 1000 / 1000" in res.check_error
        ct = eng.compiled_for(TASK, "host")
        assert ct.override == "active" and ct.override_stage == "ll"
        assert ct.output != gen.output  # a different object file was loaded
        assert any("LL override (project)" in line for line in ct.log)

        # the same edit on the nvptx path: the PTX now adds 2.0f, not 1.0f
        _, before = eng.compile(target="nvptx")
        nv_ll = _by_task(before)[TASK].produced["ll"].data
        assert b"0f3F800000" in _by_task(before)[TASK].ptx.encode()
        eng.set_override(TASK, nv_ll.replace(ONE, TWO), kind="ll", target="nvptx")
        _, after = eng.compile(target="nvptx")
        ptx = _by_task(after)[TASK].ptx
        assert "0f40000000" in ptx and "0f3F800000" not in ptx
        assert _by_task(after)[TASK].override_stage == "ll"
        # the other tasks are untouched
        assert _by_task(after)["three_kernel_1_range_for"].ptx == _by_task(before)["three_kernel_1_range_for"].ptx


def test_an_override_for_the_other_target_is_not_used(tmp_path):
    proj = write_project(tmp_path / "p")
    with Engine(proj, in_process=True, cache_dir=str(tmp_path / "cache")) as eng:
        _, compiled = eng.compile(target="nvptx")
        ll = _by_task(compiled)[TASK].produced["ll"].data
        eng.set_override(TASK, ll.replace(ONE, TWO), kind="ll", target="nvptx")
        (res,) = eng.run()  # the CPU backend compiles for host: the nvptx IR must not reach it
        assert res.status == "passed"
        ct = eng.compiled_for(TASK, "host")
        assert ct.override is None
        assert any("written for target nvptx; not used when compiling for host" in line for line in ct.log)


def test_a_broken_edit_reports_its_file_and_line_and_keeps_what_was_loaded(tmp_path):
    proj = write_project(tmp_path / "p")
    with Engine(proj, in_process=True, cache_dir=str(tmp_path / "cache")) as eng:
        assert eng.run()[0].status == "passed"
        loads = []
        eng.subscribe(lambda e: loads.append(e) if isinstance(e, TaskLoaded) and e.task == TASK else None)
        ll = eng.compiled_for(TASK, "host").produced["ll"].data
        good = ll.replace(ONE, TWO)
        eng.set_override(TASK, good, kind="ll", target="host")
        assert eng.run()[0].status == "failed"
        assert len(loads) == 1 and not loads[0].error   # the edit was loaded

        lines = good.decode().splitlines()
        bad_line = next(n for n, line in enumerate(lines, 1) if " fadd " in line)   # flags may stand before the type
        broken = lines[:]
        broken[bad_line - 1] = broken[bad_line - 1].replace(" float ", " flaot ", 1)
        path = eng.set_override(TASK, "\n".join(broken).encode(), kind="ll", target="host")
        (res,) = eng.run()
        assert res.status == "error" and res.fault_task == TASK
        assert f"{path}:{bad_line}:" in res.error and "expected type" in res.error
        assert "stays loaded" in res.error
        assert eng.compiled_for(TASK, "host").error_stage == "obj"
        # nothing lost: the file is still there, and nothing replaced the last good module
        assert path.read_bytes().count(b"flaot") == 1
        assert len(loads) == 1

        # a verifier error (no line from llvmlite) is pointed at the instruction's line too
        name = lines[bad_line - 1].split("=")[0].strip()        # %".23" = fadd float %".22", ...
        use = next(n for n, line in enumerate(lines, 1) if f", {name}" in line or f" {name}," in line)
        swapped = lines[:]
        swapped[bad_line - 1], swapped[use - 1] = lines[use - 1], lines[bad_line - 1]
        eng.set_override(TASK, "\n".join(swapped).encode(), kind="ll", target="host")
        (res,) = eng.run()
        assert res.status == "error" and "does not dominate" in res.error
        assert f"{path}:{use}:" in res.error or f"{path}:{bad_line}:" in res.error, res.error

        assert eng.revert_override(TASK)
        assert eng.run()[0].status == "passed"


def test_stale_and_revert(tmp_path):
    proj = write_project(tmp_path / "p")
    cache = tmp_path / "cache"
    with Engine(proj, in_process=True, cache_dir=str(cache)) as eng:
        _, compiled = eng.compile(target="host")
        ll = _by_task(compiled)[TASK].produced["ll"].data
        eng.set_override(TASK, ll.replace(ONE, TWO), kind="ll", target="host")
    write_project(tmp_path / "p", a="1.5")  # the kernel changes under the override
    with Engine(proj, in_process=True, cache_dir=str(cache)) as eng:
        (res,) = eng.run()
        ct = eng.compiled_for(TASK, "host")
        assert ct.override == "stale" and any("STALE" in line for line in ct.log)
        assert res.status == "failed"  # the stale edit (+2.0) still runs, as the user asked
        assert eng.revert_override(TASK, ("ll",))
        assert eng.run()[0].status == "passed"
        assert eng.compiled_for(TASK, "host").override is None
    assert not list((proj / ".qdexplorer" / "overrides").iterdir())


def test_ptx_override_wins_over_an_ll_override(tmp_path):
    proj = write_project(tmp_path / "p")
    with Engine(proj, in_process=True, cache_dir=str(tmp_path / "cache")) as eng:
        _, compiled = eng.compile(target="nvptx")
        gen = _by_task(compiled)[TASK]
        ll = gen.produced["ll"].data
        eng.set_override(TASK, ll.replace(ONE, TWO), kind="ll", target="nvptx")
        hand = gen.generated + b"\n// hand-written PTX\n"
        eng.set_override(TASK, hand)
        _, again = eng.compile(target="nvptx")
        ct = _by_task(again)[TASK]
        assert ct.output == hand and ct.override == "active" and ct.override_stage == "ptx"
        assert ct.used["ll"].origin == "generated"   # the LL edit was not compiled into anything
        assert any("PTX override" in line and "wins" in line for line in ct.log)


def test_qd_load_ir_round_trip_through_a_dump_folder(tmp_path):
    proj = write_project(tmp_path / "p")
    dump = tmp_path / "dump"
    env = dict(QDEXPLORER_CACHE_DIR=str(tmp_path / "cache"))
    run_cli("compile", str(proj), "--target", "host", "--dump", str(dump), env=env, check=True)
    f = dump / f"{TASK}_before_ptx.ll"
    f.write_bytes(f.read_bytes().replace(ONE, TWO))
    run = ["run", str(proj), "--json"]
    plain = json.loads(run_cli(*run, env=env).stdout)
    assert plain["workloads"][0]["status"] == "passed"
    env_ir = dict(env, QD_LOAD_IR="1", QD_DEBUG_DUMP_PATH=str(dump))
    p = run_cli(*run, env=env_ir)
    out = json.loads(p.stdout)
    assert p.returncode == 1 and out["workloads"][0]["status"] == "failed", out   # the edited +2.0 ran
    # every task with a `<task>_before_ptx.ll` in the folder is loaded from it
    out = json.loads(run_cli("compile", str(proj), "--json", "--target", "host", env=env_ir, check=True).stdout)
    assert {t["task"]: t["override"] for t in out["tasks"]} == {f"three_kernel_{i}_range_for": "active"
                                                                for i in range(3)}


def test_cli_override_set_stage_ll_for_the_cpu(tmp_path):
    proj = write_project(tmp_path / "p")
    env = dict(QDEXPLORER_CACHE_DIR=str(tmp_path / "cache"))
    run_cli("compile", str(proj), "--target", "host", "--dump", str(tmp_path / "d"), env=env, check=True)
    edited = tmp_path / "edited.ll"
    edited.write_bytes((tmp_path / "d" / f"{TASK}_before_ptx.ll").read_bytes().replace(ONE, TWO))
    run_cli("override", "set", str(proj), TASK, str(edited), "--stage", "ll", "--target", "host", env=env, check=True)
    side = json.loads((proj / ".qdexplorer" / "overrides" / f"{TASK}.ll.json").read_text())
    assert side["target"] == "host" and side["stage"] == "ll"
    p = run_cli("run", str(proj), "--json", env=env)
    assert p.returncode == 1 and json.loads(p.stdout)["workloads"][0]["status"] == "failed"


def test_an_ll_override_with_another_signature_is_refused_never_run_on_zeros(tmp_path):
    """Issue 21: an LLVM-IR override whose entry takes other parameters than the launcher packs was
    accepted and ran reading zeros; `override set` and a file placed by hand are both refused."""
    import pytest

    from qdexplorer.ir.errors import QdError
    proj = write_project(tmp_path / "p")
    with Engine(proj, in_process=True, cache_dir=str(tmp_path / "cache")) as eng:
        eng.run()
        ll = eng.compiled_for(TASK, "host").produced["ll"].data
        head = ll[ll.index(b"define"):].split(b"\n", 1)[0]
        wrong = ll.replace(head, head.replace(b"(", b"(i32 %extra, ", 1))
        with pytest.raises(QdError, match=r"takes \(i32, ptr.*generated one takes \(ptr"):
            eng.set_override(TASK, wrong, kind="ll", target="host")
        folder = proj / ".qdexplorer" / "overrides"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{TASK}.ll").write_bytes(wrong)
        (res,) = eng.run()
        assert res.status == "error" and "refused" in res.error and "signature" in res.error, res.error


def test_cli_override_set_checks_the_signature_against_the_indexed_ll(tmp_path):
    """After a compile, `override set --stage ll` knows the generated LLVM IR from the cache (not only
    its hash), so a wrong signature is refused at once rather than at the next run."""
    proj = write_project(tmp_path / "p")
    env = dict(QDEXPLORER_CACHE_DIR=str(tmp_path / "cache"))
    run_cli("compile", str(proj), "--target", "host", "--dump", str(tmp_path / "d"), env=env, check=True)
    f = tmp_path / "d" / f"{TASK}_before_ptx.ll"
    text = f.read_bytes()
    head = text[text.index(b"define"):].split(b"\n", 1)[0]
    f.write_bytes(text.replace(head, head.replace(b"(", b"(i32 %extra, ", 1)))
    p = run_cli("override", "set", str(proj), TASK, str(f), "--stage", "ll", "--target", "host", env=env)
    assert p.returncode == 2 and "generated one takes" in p.stderr, p.stderr
    assert not (proj / ".qdexplorer" / "overrides" / f"{TASK}.ll").exists()
