"""The CUDA backend on a real GPU: skipped cleanly where there is none (CI)."""
import re
import textwrap

import numpy as np
import pytest

from qdexplorer.engine import Engine
from qdexplorer.events import TaskLoaded, WorkerFaulted

pytestmark = pytest.mark.cuda


def test_every_demo_workload_passes_on_the_gpu():
    with Engine(None, backend="cuda") as eng:
        loads = []
        eng.subscribe(lambda e: loads.append(e) if isinstance(e, TaskLoaded) else None)
        results = eng.run(repeat=3)
        bad = {r.workload: (r.status, r.check_error, r.error) for r in results if r.status != "passed"}
        assert not bad, bad
        assert {r.workload for r in results} >= {"block_sum_1m", "saxpy_1m", "particles_64k", "matmul_256"}
        for run in eng.session.runs:
            assert run.timings and all(t.ms > 0 and t.backend == "cuda" for t in run.timings)
        res = {e.task: e.resources for e in loads if e.resources}
        bs = res["block_sum_kernel_1_range_for"]
        assert bs["static_shared_bytes"] == 256 * 4 and bs["registers"] > 0 and 0 < bs["occupancy"] <= 1
        assert bs["block"] == 256
        assert res["particle_step_kernel_0_serial"]["block"] == 1


def test_whole_module_mode_runs_too():
    with Engine(None, backend="cuda", mode="whole") as eng:
        results = eng.run(["particles_64k", "jacobi_512"])
        assert [r.status for r in results] == ["passed", "passed"]


def _backend_with(tasks_src, tmp_path):
    from qdexplorer.project.loader import load_project
    (tmp_path / "k.py").write_text(textwrap.dedent(tasks_src))
    return load_project(tmp_path / "k.py")


def test_composite_lookup_by_name_memoised_and_invalidated(tmp_path):
    # the CUDA modules load inside each test, as everywhere in this file: collection needs no CUDA bindings
    from qdexplorer.compiler.pipeline import Pipeline
    from qdexplorer.compiler.pool import InlineCompiler
    from qdexplorer.runtime.cuda.backend import CudaBackend
    proj = _backend_with("""
        import qdexplorer.lang as qd
        @qd.kernel
        def two(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
            for i in range(x.shape[0]):
                x[i] = x[i] + 1.0
            for i in range(x.shape[0]):
                x[i] = x[i] * 2.0
        """, tmp_path)
    compiled = Pipeline(InlineCompiler()).compile(proj.kernels["two"].tasks(), "nvptx")
    be = CudaBackend()
    try:
        for ct in compiled:
            be.modules.load(ct.spec, ct.output, ct.load_hash)
        comp = be.modules.composite
        a, b = (ct.task for ct in compiled)
        assert len(comp.modules) == 2
        lookups = comp.lookups
        fa = comp.function(a)
        assert comp.function(a) is fa and comp.lookups == lookups and comp.hits >= 1
        fb = comp.function(b)
        old_module = comp.modules[b]
        edited = compiled[1].output + b"\n// edited\n"
        before = comp.lookups
        be.modules.load(compiled[1].spec, edited, "edited")  # load resolves the new entry point once
        assert comp.modules[b] is not old_module and comp.modules[a] is not None
        assert comp.lookups == before + 1
        assert comp.function(a) is fa  # untouched task keeps its memo entry
        assert comp.function(b) is not fb and comp.lookups == before + 1  # replaced task: new memo entry
        x = np.arange(8, dtype=np.float32)
        prep = be.prepare({"x": x}, {a: 8, b: 8})
        for t in (a, b):
            be.launch(t, prep)
        be.fetch(prep, {"x": x})
        np.testing.assert_array_equal(x, (np.arange(8) + 1) * 2)
    finally:
        be.close()


def test_bad_ptx_reports_the_driver_log_with_the_line():
    from qdexplorer.runtime.cuda.backend import CudaBackend
    from qdexplorer.runtime.cuda.driver import CudaError
    be = CudaBackend()
    ptx = textwrap.dedent("""\
        .version 8.5
        .target sm_90
        .address_size 64
        .visible .entry broken()
        {
            mov.u32 %r1, %tid.x;
            ret;
        }
        """).encode()
    try:
        with pytest.raises(CudaError) as ei:
            be.modules.load_ptx(ptx, "broken")
        msg = str(ei.value)
        assert "cuModuleLoadDataEx" in msg and re.search(r"line \d+", msg), msg
    finally:
        be.close()


FAULTY = """
    import numpy as np
    import qdexplorer.lang as qd

    @qd.kernel
    def oob(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i + 300000000] = 1.0

    @qd.kernel
    def spin(x: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(x.shape[0]):
            while x[i] >= 0:
                x[i] = x[i] + 0

    @qd.kernel
    def fill_one(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = 1.0

    @qd.workload(oob)
    def crash(rng):
        return dict(x=np.zeros(64, np.float32))

    @qd.workload(spin)
    def hang(rng):
        return dict(x=np.zeros(64, np.int32))

    @qd.workload(fill_one, check=lambda b, a: np.testing.assert_array_equal(a["x"], 1.0))
    def ones(rng):
        return dict(x=np.zeros(1000, np.float32))
    """


def test_faulting_and_hanging_tasks_cost_only_the_worker(tmp_path):
    (tmp_path / "k.py").write_text(textwrap.dedent(FAULTY))
    with Engine(tmp_path, backend="cuda", launch_timeout=8.0) as eng:
        faults = []
        eng.subscribe(lambda e: faults.append(e) if isinstance(e, WorkerFaulted) else None)
        assert eng.run(["ones"])[0].status == "passed"
        (crash,) = eng.run(["crash"])
        assert crash.status == "error", crash
        assert "ILLEGAL_ADDRESS" in crash.error or "ADDRESS_SPACE" in crash.error, crash.error
        assert crash.fault_task == "oob_kernel_0_range_for"
        assert eng.run(["ones"])[0].status == "passed"  # a fresh worker, modules reloaded
        (hang,) = eng.run(["hang"])
        assert hang.status == "error" and "timed out" in hang.error
        assert eng.run(["ones"])[0].status == "passed"
        assert [(f.task, f.fault.kind) for f in faults] == [("oob_kernel_0_range_for", "sticky"),
                                                            ("spin_kernel_0_range_for", "timeout")]


def test_edited_ptx_really_runs(tmp_path):
    (tmp_path / "k.py").write_text(textwrap.dedent(FAULTY))
    with Engine(tmp_path, backend="cuda") as eng:
        _, compiled = eng.compile(["fill_one"])
        ct = compiled[0]
        assert "0f3F800000" in ct.ptx  # 1.0f
        eng.set_override(ct.task, ct.generated.replace(b"0f3F800000", b"0f40000000"))
        (res,) = eng.run(["ones"])
        assert res.status == "failed" and "2." in res.check_error  # the edit (2.0f) ran on the GPU
        eng.revert_override(ct.task)
        assert eng.run(["ones"])[0].status == "passed"
        # an override the driver rejects keeps the previous module and the file
        bad = f".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry {ct.task}()\n{{\nbogus;\n}}\n"
        p = eng.set_override(ct.task, bad.encode())
        (res,) = eng.run(["ones"])
        assert res.status == "error" and "load failed" in res.error and "line" in res.error
        assert p.exists()


def test_dump_and_load_ptx_on_the_gpu(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "k.py").write_text(textwrap.dedent(FAULTY))
    with Engine(tmp_path / "p", backend="cuda", dump_dir=str(tmp_path / "dump")) as eng:
        eng.compile(["fill_one"])
    f = tmp_path / "dump" / "fill_one_kernel_0_range_for.ptx"
    f.write_bytes(f.read_bytes().replace(b"0f3F800000", b"0f40400000"))  # 3.0f
    with Engine(tmp_path / "p", backend="cuda", load_ptx=str(tmp_path / "dump")) as eng:
        (res,) = eng.run(["ones"])
        assert res.status == "failed" and "3." in res.check_error


def test_script_call_on_cuda(cuda):
    qd = cuda

    @qd.kernel
    def saxpy(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1), a: qd.f32):
        for i in range(x.shape[0]):
            y[i] = a * x[i] + y[i]

    for n in (1, 3, 4, 1000, 1 << 20, (1 << 20) + 7):
        x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
        y = np.ones(n, np.float32)
        saxpy(x, y, 2.0)
        np.testing.assert_allclose(y, 2 * x + 1, rtol=1e-6)


def test_launch_grid_follows_quadrants():
    from qdexplorer.runtime.cuda.backend import CudaBackend
    from qdexplorer.machine.launch_spec import LaunchSpec
    be = CudaBackend()
    try:
        spec = LaunchSpec("t", "k", "range_for", (), block_dim=None, vector=1)
        assert spec.block == 128
        assert be.ctx.grid_of(spec, 1000) == 8
        assert be.ctx.grid_of(spec, 1 << 30) == be.ctx.sm_count * be.ctx.max_blocks_per_sm * 2
        assert be.ctx.grid_of(LaunchSpec("t", "k", "serial", ()), 10) == 1
    finally:
        be.close()


@pytest.mark.parametrize("mode", ["per_task", "whole", "culink"])
def test_every_demo_workload_passes_in_every_assembly_mode(mode):
    from qdexplorer.compiler import ptxas
    if mode == "culink" and ptxas.find_ptxas() is None:
        pytest.skip(ptxas.INSTALL_HINT)
    with Engine(None, backend="cuda", mode=mode) as eng:
        loads = []
        eng.subscribe(lambda e: loads.append(e) if isinstance(e, TaskLoaded) else None)
        results = eng.run(repeat=2)
        bad = {r.workload: (r.status, r.check_error, r.error) for r in results if r.status != "passed"}
        assert not bad, bad
        assert all(not e.error for e in loads)
        if mode == "culink":
            gpu = [ct for (target, _), ct in eng.session.compiled.items() if target == "nvptx"]
            assert gpu and all(ct.unit.endswith("_kernel_culink") for ct in gpu)
            assert all(ct.final_kind == "cubin" for ct in gpu)


@pytest.mark.parametrize("mode", ["per_task", "culink"])
def test_an_llvm_ir_edit_changes_the_result_on_the_gpu(tmp_path, mode):
    from qdexplorer.compiler import ptxas
    if mode == "culink" and ptxas.find_ptxas() is None:
        pytest.skip(ptxas.INSTALL_HINT)
    (tmp_path / "k.py").write_text(textwrap.dedent(FAULTY))
    with Engine(tmp_path, backend="cuda", mode=mode) as eng:
        assert eng.run(["ones"])[0].status == "passed"
        ct = eng.compiled_for("fill_one_kernel_0_range_for", "nvptx")
        ll = ct.produced["ll"].data
        assert b"0x3ff0000000000000" in ll  # 1.0
        eng.set_override(ct.task, ll.replace(b"0x3ff0000000000000", b"0x4000000000000000"), kind="ll",
                         target="nvptx")
        (res,) = eng.run(["ones"])
        assert res.status == "failed" and "2." in res.check_error  # the edited IR (2.0) ran on the GPU
        # a broken edit: its line, and the last good module keeps running the edit before it
        p = eng.set_override(ct.task, ll.replace(b"store float", b"store flaot"), kind="ll", target="nvptx")
        (res,) = eng.run(["ones"])
        assert res.status == "error" and f"{p}:" in res.error
        eng.revert_override(ct.task)
        assert eng.run(["ones"])[0].status == "passed"


def test_a_full_grid_task_gets_a_thread_per_coarsened_step():
    from qdexplorer.runtime.cuda.backend import CudaBackend
    from qdexplorer.machine.launch_spec import LaunchSpec
    be = CudaBackend()
    try:
        capped = LaunchSpec("t", "k", "range_for", (), vector=4)
        full = LaunchSpec("t", "k", "range_for", (), vector=4, full_grid=True)
        n = 1 << 28
        assert be.ctx.grid_of(capped, n) == be.ctx.saturating_grid
        assert be.ctx.grid_of(full, n) == n // 4 // 128 > be.ctx.saturating_grid
        assert be.ctx.grid_of(full, 1000) == be.ctx.grid_of(capped, 1000) == 2
    finally:
        be.close()
