"""PtxCache: key sensitivity, tiers, corruption, concurrency, offline mode, overrides, dump/load."""
import dataclasses
import json
import multiprocessing as mp
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from qdexplorer.compiler.cache import PtxCache, cache_key
from qdexplorer.compiler.stages import CompileRequest
from qdexplorer.engine import Engine
from tests._cli import run_cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KERNEL = textwrap.dedent("""\
    import numpy as np
    import qdexplorer.lang as qd

    @qd.kernel
    def three(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] + {a}
        for i in range(x.shape[0]):
            x[i] = x[i] * {b}
        for i in range(x.shape[0]):
            x[i] = x[i] - {c}

    @qd.workload(three, check=lambda b, a: np.testing.assert_allclose(a["x"], ((b["x"] + {a}) * {b}) - {c}))
    def small(rng):
        return dict(x=rng.standard_normal(1000).astype(np.float32))
    """)


def write_project(path, a="1.0", b="2.0", c="3.0"):
    path.mkdir(exist_ok=True)
    (path / "k.py").write_text(KERNEL.format(a=a, b=b, c=c))
    return path


def compile_tiers(proj, cache_dir, **kw):
    with Engine(proj, in_process=True, cache_dir=str(cache_dir), **kw) as eng:
        _, compiled = eng.compile(target="nvptx")
    return {ct.task: ct for ct in compiled}


BASE = CompileRequest("t", "nvptx", ("define void @t() { ret void }",), ("t",), libdevice=None)


@pytest.mark.parametrize("change", [
    dict(texts=("define void @t() { ret void } ; edited",)), dict(target="host"), dict(arch="sm_80"),
    dict(ptx_isa="ptx84"), dict(opt_level=2), dict(fast_math=True), dict(entries=("t", "u")),
])
def test_each_key_ingredient_changes_the_key(change):
    assert cache_key(dataclasses.replace(BASE, **change)) != cache_key(BASE)


def test_libdevice_and_toolchain_identity_change_the_key(tmp_path, monkeypatch):
    req = dataclasses.replace(BASE, texts=("declare float @__nv_sinf(float)",))
    a, b = tmp_path / "a.bc", tmp_path / "b.bc"
    a.write_bytes(b"libdevice one")
    b.write_bytes(b"libdevice two")
    ka = cache_key(dataclasses.replace(req, libdevice=str(a)))
    assert ka != cache_key(dataclasses.replace(req, libdevice=str(b)))
    before = cache_key(BASE)
    import llvmlite
    monkeypatch.setattr(llvmlite, "__version__", "0.0.0-test")
    assert cache_key(BASE) != before


def test_unchanged_tasks_hit_after_an_edit_elsewhere(tmp_path):
    proj = write_project(tmp_path / "p")
    cache = tmp_path / "cache"
    cold = compile_tiers(proj, cache)
    assert {ct.tier for ct in cold.values()} == {"miss"}
    write_project(tmp_path / "p", b="5.0")  # edit the middle task only
    warm = compile_tiers(proj, cache)
    assert warm["three_kernel_0_range_for"].tier == "disk"
    assert warm["three_kernel_1_range_for"].tier == "miss"
    assert warm["three_kernel_2_range_for"].tier == "disk"
    # same engine, nothing changed: memory tier
    with Engine(proj, in_process=True, cache_dir=str(cache)) as eng:
        eng.compile(target="nvptx")
        _, again = eng.compile(target="nvptx")
    assert {ct.tier for ct in again} == {"memory"}


def test_whole_module_mode_misses_on_any_edit(tmp_path):
    proj = write_project(tmp_path / "p")
    cache = tmp_path / "cache"
    compile_tiers(proj, cache, mode="whole")
    write_project(tmp_path / "p", c="7.0")
    warm = compile_tiers(proj, cache, mode="whole")
    assert {ct.tier for ct in warm.values()} == {"miss"}
    ptx = next(iter(warm.values())).generated.decode()
    assert ptx.count(".entry") == 3


def test_disk_tier_across_processes(tmp_path):
    proj = write_project(tmp_path / "p")
    env = dict(os.environ, PYTHONPATH=ROOT, QDEXPLORER_CACHE_DIR=str(tmp_path / "cache"))
    cmd = [sys.executable, "-m", "qdexplorer.cli", "compile", str(proj), "--json"]
    first = json.loads(subprocess.run(cmd, env=env, capture_output=True, check=True).stdout)
    second = json.loads(subprocess.run(cmd, env=env, capture_output=True, check=True).stdout)
    assert {t["tier"] for t in first["tasks"]} == {"miss"}
    assert {t["tier"] for t in second["tasks"]} == {"disk"}
    assert second["cache"]["disk"] == 3
    events = [e for e in second["events"] if e["event"] == "TaskCompiled"]
    assert len(events) == 3 and all("cache" in e["seconds"] for e in events)
    assert any((tmp_path / "cache" / "sm_90").rglob("*.ptx"))


def test_corrupt_entry_is_dropped_and_rebuilt(tmp_path):
    proj = write_project(tmp_path / "p")
    cache = tmp_path / "cache"
    compile_tiers(proj, cache)
    files = sorted((cache / "sm_90").rglob("*.ptx"))
    assert len(files) == 3
    files[0].write_bytes(files[0].read_bytes()[:40])  # truncated
    files[1].write_bytes(files[1].read_bytes().replace(b".entry", b".entrx"))  # bit rot
    with Engine(proj, in_process=True, cache_dir=str(cache)) as eng:
        _, compiled = eng.compile(target="nvptx")
        assert eng.cache_info()["corrupt"] == 2
    assert sorted(ct.tier for ct in compiled) == ["disk", "miss", "miss"]
    for ct in compiled:
        assert b".entry " + ct.task.encode() in ct.generated
    c = PtxCache(cache)
    for f in (cache / "sm_90").rglob("*.ptx"):
        assert c._read(f, f.stem) is not None  # rebuilt entries are valid


def _writer(folder, n, seed):
    c = PtxCache(folder, offline=True)
    for i in range(n):
        c.put(f"{i:064x}", "sm_90", (f"payload {i} " * (50 + seed)).encode())


def test_concurrent_writers_leave_only_valid_entries(tmp_path):
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), 40, s)) for s in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    c = PtxCache(tmp_path)
    for i in range(40):
        data, tier = c.get(f"{i:064x}", "sm_90")
        assert tier == "disk" and data.startswith(f"payload {i} ".encode())
    assert c.stats.corrupt == 0
    assert not list(tmp_path.rglob("*.tmp"))


def test_offline_cache_false_touches_no_file(tmp_path, monkeypatch):
    proj = write_project(tmp_path / "p")
    cache = tmp_path / "never"
    tiers = compile_tiers(proj, cache, offline_cache=False)
    assert not cache.exists()
    assert {ct.tier for ct in tiers.values()} == {"miss"}
    for ct in tiers.values():  # a session nonce keeps the driver's compute cache from serving old SASS
        assert ct.output.startswith(b"// qdexplorer session nonce ")
        assert not ct.generated.startswith(b"// qdexplorer session nonce")
    monkeypatch.setenv("QDEXPLORER_OFFLINE_CACHE", "0")
    assert not PtxCache(cache).offline
    compile_tiers(proj, cache)
    assert not cache.exists()


def test_unwritable_cache_folder_degrades_to_memory(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    proj = write_project(tmp_path / "p")
    with pytest.warns(UserWarning, match="memory-only"):
        eng = Engine(proj, in_process=True, cache_dir=str(blocker / "cache"))
    with eng:
        _, compiled = eng.compile(target="nvptx")
        _, again = eng.compile(target="nvptx")
    assert all(ct.ok for ct in compiled)
    assert {ct.tier for ct in again} == {"memory"}


def _make_read_only(folder):
    """chmod for ordinary users; root ignores permissions, so use the immutable attribute there."""
    if os.geteuid() != 0:
        folder.chmod(0o500)
        return lambda: folder.chmod(0o700)
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(folder)]).returncode != 0:
        pytest.skip("cannot make a folder read-only for root here (no chattr +i)")
    return lambda: subprocess.run(["chattr", "-i", str(folder)], check=True)


def test_read_only_cache_folder(tmp_path):
    proj = write_project(tmp_path / "p")
    ro = tmp_path / "ro"
    compile_tiers(proj, ro)  # a populated cache that then becomes read-only
    undo = _make_read_only(ro)
    try:
        with pytest.warns(UserWarning, match="memory-only"):
            eng = Engine(proj, in_process=True, cache_dir=str(ro))
        with eng:
            _, compiled = eng.compile(target="nvptx")
            assert all(ct.ok and ct.generated for ct in compiled)
            assert not eng.cache_info()["offline"]
    finally:
        undo()


def test_override_beats_a_cache_hit_and_goes_stale_and_reverts(tmp_path):
    proj = write_project(tmp_path / "p")
    cache = tmp_path / "cache"
    task = "three_kernel_1_range_for"
    with Engine(proj, in_process=True, cache_dir=str(cache)) as eng:
        _, first = eng.compile(target="nvptx")
        gen = {ct.task: ct for ct in first}[task]
        edited = gen.generated.replace(b"ret;", b"ret;\n// hand edit")
        path = eng.set_override(task, edited + b"\x00")
        assert b"\x00" not in path.read_bytes()
        _, second = eng.compile(target="nvptx")
        ct = {c.task: c for c in second}[task]
        assert ct.tier == "memory" and ct.override == "active"
        assert ct.output == edited and ct.load_hash != gen.load_hash
    write_project(tmp_path / "p", b="9.0")  # the kernel changes underneath the override
    with Engine(proj, in_process=True, cache_dir=str(cache)) as eng:
        _, third = eng.compile(target="nvptx")
        ct = {c.task: c for c in third}[task]
        assert ct.override == "stale" and ct.output == edited
        assert any("STALE" in line for line in ct.log)
        assert eng.revert_override(task)
        _, fourth = eng.compile(target="nvptx")
        ct = {c.task: c for c in fourth}[task]
        assert ct.override is None and ct.output == ct.generated
    assert not (proj / ".qdexplorer" / "overrides" / f"{task}.json").exists()


def test_dump_and_load_folder_round_trip(tmp_path):
    proj = write_project(tmp_path / "p")
    dump = tmp_path / "dump"
    env = dict(QDEXPLORER_CACHE_DIR=str(tmp_path / "cache"))
    cli = ["compile", str(proj), "--json"]
    run_cli(*cli, "--dump", str(dump), env=env, check=True)
    names = sorted(p.name for p in dump.iterdir())
    assert names == sorted([f"three_kernel_{i}_range_for{s}" for i in range(3) for s in ("_before_ptx.ll", ".ptx")])
    for p in dump.glob("*.ptx"):
        assert b"\x00" not in p.read_bytes()
    edited = dump / "three_kernel_0_range_for.ptx"
    edited.write_text(edited.read_text() + "\n// edited by hand\n")
    out = json.loads(run_cli(*cli, "--load-ptx", str(dump), env=env, check=True).stdout)
    assert all(t["override"] == "active" for t in out["tasks"])
    # Quadrants' spelling of the same thing
    env2 = dict(env, QUADRANTS_LOAD_PTX="1", QD_DEBUG_DUMP_PATH=str(dump))
    out2 = json.loads(run_cli(*cli, env=env2, check=True).stdout)
    assert all(t["override"] == "active" for t in out2["tasks"])
    env3 = dict(env, QD_DUMP_IR="1", QD_DEBUG_DUMP_PATH=str(tmp_path / "qd_dump"))
    run_cli(*cli, env=env3, check=True)
    assert len(list((tmp_path / "qd_dump").glob("*.ptx"))) == 3
