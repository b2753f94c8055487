"""Assembly mode `culink` on a machine without a GPU: ptxas assembles each task's PTX to a
relocatable cubin (cached per SM like PTX), and the device links a kernel's cubins into one module."""
import json

import pytest

from qdexplorer.compiler import ptxas
from qdexplorer.compiler.cache import MAGIC
from qdexplorer.compiler.pipeline import Pipeline
from qdexplorer.compiler.pool import InlineCompiler
from qdexplorer.engine import Engine
from qdexplorer.project.loader import ProjectError, load_project
from qdexplorer.runtime.device import LocalDevice
from qdexplorer.runtime.device_api import LoadItem
from tests._cli import run_cli

from .test_cache import write_project

needs_ptxas = pytest.mark.skipif(ptxas.find_ptxas() is None, reason=ptxas.INSTALL_HINT)
TASKS = [f"three_kernel_{i}_range_for" for i in range(3)]
ET_REL = 1  # ELF e_type of a relocatable object


def _elf_type(data: bytes) -> int:
    assert data[:4] == b"\x7fELF"
    return int.from_bytes(data[16:18], "little")


def _compile(proj, cache, **kw):
    with Engine(proj, in_process=True, cache_dir=str(cache), mode="culink", **kw) as eng:
        _, compiled = eng.compile(target="nvptx")
        return {ct.task: ct for ct in compiled}, eng.cache_info()


@needs_ptxas
def test_each_task_becomes_a_relocatable_cubin_cached_per_sm(tmp_path):
    proj = write_project(tmp_path / "p")
    cache = tmp_path / "cache"
    cold, _ = _compile(proj, cache)
    for t in TASKS:
        ct = cold[t]
        assert ct.ok, ct.error
        assert ct.final_kind == "cubin" and _elf_type(ct.output) == ET_REL
        assert ct.unit == "three_kernel_culink"           # one link unit (module) per kernel
        assert ct.tier == "miss" and ct.produced["ptx"].tier == "miss"
        assert f".entry {t}" in ct.ptx                    # the PTX stays readable
    files = sorted(p.relative_to(cache).parts[0] for p in cache.rglob("*.cubin"))
    assert files == ["sm_90-cubin"] * 3
    for p in cache.rglob("*.cubin"):                      # same checksummed, atomic entries as PTX
        assert p.read_bytes().startswith(MAGIC)

    warm, _ = _compile(proj, cache)
    assert {warm[t].tier for t in TASKS} == {"disk"}
    assert all(warm[t].output == cold[t].output for t in TASKS)

    write_project(tmp_path / "p", b="5.0")               # a one-task edit: one ptxas run
    edit, _ = _compile(proj, cache)
    assert {t: edit[t].tier for t in TASKS} == {TASKS[0]: "disk", TASKS[1]: "miss", TASKS[2]: "disk"}


@needs_ptxas
def test_another_sm_is_another_cubin(tmp_path):
    proj = write_project(tmp_path / "p")
    a, _ = _compile(proj, tmp_path / "cache", arch="sm_90")
    b, _ = _compile(proj, tmp_path / "cache", arch="sm_80")
    assert b[TASKS[0]].tier == "miss" and b[TASKS[0]].output != a[TASKS[0]].output
    assert {p.relative_to(tmp_path / "cache").parts[0] for p in (tmp_path / "cache").rglob("*.cubin")} == {
        "sm_90-cubin", "sm_80-cubin"}


@needs_ptxas
def test_offline_mode_off_touches_no_file(tmp_path):
    proj = write_project(tmp_path / "p")
    cache = tmp_path / "cache"
    with Engine(proj, in_process=True, cache_dir=str(cache), mode="culink", offline_cache=False) as eng:
        _, first = eng.compile(target="nvptx")
        _, second = eng.compile(target="nvptx")
    assert all(ct.ok for ct in first) and {ct.tier for ct in second} == {"memory"}
    assert not cache.exists()


@needs_ptxas
def test_a_ptx_override_is_what_ptxas_assembles(tmp_path):
    proj = write_project(tmp_path / "p")
    with Engine(proj, in_process=True, cache_dir=str(tmp_path / "cache"), mode="culink") as eng:
        _, compiled = eng.compile(target="nvptx")
        ct = {c.task: c for c in compiled}[TASKS[0]]
        assert "0f3F800000" in ct.ptx
        eng.set_override(ct.task, ct.ptx.replace("0f3F800000", "0f40000000"))
        _, again = eng.compile(target="nvptx")
        new = {c.task: c for c in again}[TASKS[0]]
        assert new.override == "active" and new.output != ct.output and _elf_type(new.output) == ET_REL
        # a PTX override ptxas rejects: its line, from ptxas
        lines = ct.ptx.splitlines()
        n = next(i for i, ln in enumerate(lines, 1) if "0f3F800000" in ln)
        assert "add." in lines[n - 1], lines[n - 1]  # add.f32, add.rn.f32 or add.ftz.f32 (fast math)
        lines[n - 1] = lines[n - 1].replace("add.", "addd.")
        eng.set_override(ct.task, "\n".join(lines) + "\n")
        _, bad = eng.compile(target="nvptx")
        err = {c.task: c for c in bad}[TASKS[0]].error
        assert "ptxas rejected the PTX" in err and f"line {n}" in err, err


def test_no_ptxas_is_a_clear_message(tmp_path, monkeypatch):
    monkeypatch.setenv("QDEXPLORER_PTXAS", str(tmp_path / "no-such-ptxas"))
    proj = write_project(tmp_path / "p")
    compiled, _ = _compile(proj, tmp_path / "cache")
    for ct in compiled.values():
        assert not ct.ok and ct.error_stage == "cubin"
        assert "assembly mode 'culink' needs ptxas" in ct.error and "nvidia-cuda-nvcc" in ct.error
        assert "0f3F800000" in compiled[TASKS[0]].ptx  # the PTX before it is still there to read


def test_the_cpu_backend_runs_culink_projects_on_its_own_path(tmp_path):
    """culink is an nvptx assembly mode; on the CPU the same project compiles ll → obj and runs."""
    proj = write_project(tmp_path / "p")
    with Engine(proj, in_process=True, cache_dir=str(tmp_path / "cache"), mode="culink") as eng:
        assert eng.run()[0].status == "passed"
        assert eng.compiled_for(TASKS[0], "host").final_kind == "obj"


def test_cubins_reach_the_backend_as_one_link_per_unit(tmp_path):
    """LocalDevice groups a unit's cubins into one load_linked call; the CPU backend refuses it clearly."""
    proj = write_project(tmp_path / "p")
    compiled = Pipeline(InlineCompiler(), mode="per_task").compile(load_project(proj).kernels["three"].tasks(),
                                                                   "host")
    dev = LocalDevice("cpu")
    try:
        items = [LoadItem(ct.spec, b"\x7fELF-not-really", ct.load_hash, "three_kernel_culink", "cubin")
                 for ct in compiled]
        results = dev.load(items)
        assert sorted(r.task for r in results) == TASKS
        assert all(not r.ok and "three_kernel_culink: linked cubins" in r.error for r in results)
        assert dev.loaded_tasks() == []
    finally:
        dev.close()


def test_unknown_mode_and_project_setting(tmp_path):
    proj = write_project(tmp_path / "p")
    with pytest.raises(ValueError, match="per_task, whole or culink"):
        Engine(proj, in_process=True, mode="fused")
    proj2 = write_project(tmp_path / "p2")
    (proj2 / "qdexplorer.toml").write_text('mode = "culink"\n')
    with Engine(proj2, in_process=True, offline_cache=False) as eng:
        assert eng.mode == "culink"
    (proj / "qdexplorer.toml").write_text('mode = "linked"\n')
    with pytest.raises(ProjectError, match="mode must be"):
        load_project(proj, reload=True)


@needs_ptxas
def test_cli_mode_culink(tmp_path):
    proj = write_project(tmp_path / "p")
    env = dict(QDEXPLORER_CACHE_DIR=str(tmp_path / "cache"))
    out = json.loads(run_cli("compile", str(proj), "--json", "--mode", "culink", env=env, check=True).stdout)
    assert out["mode"] == "culink"
    assert {(t["kind"], t["unit"], t["error"]) for t in out["tasks"]} == {("cubin", "three_kernel_culink", "")}
