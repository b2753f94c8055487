"""The stage table runs the stages: each stage's function is in the table, the loop reads it, and
reading a task's optimised IR is one more, uncached, walk of the same loop (in the compiler,
never in the caller's process)."""
import dataclasses
import textwrap

import pytest

from qdexplorer.compiler import stages
from qdexplorer.compiler.cache import PtxCache
from qdexplorer.compiler.overrides import OverrideStore
from qdexplorer.compiler.pipeline import Pipeline
from qdexplorer.compiler.pool import CompilePool, InlineCompiler
from qdexplorer.compiler.stages import PATHS, STAGES, CompileRequest, run_stage
from qdexplorer.project.loader import load_project

ADD = textwrap.dedent("""\
    import qdexplorer.lang as qd

    @qd.kernel
    def add(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1.0
    """)
TASK = "add_kernel_0_range_for"
ONE, SEVEN = "0x3ff0000000000000", "0x401c000000000000"   # 1.0 and 7.0 as LLVM float constants


class Recording(InlineCompiler):
    """The in-process compiler, keeping every request it is given."""

    def __init__(self):
        self.requests: list[CompileRequest] = []

    def compile(self, reqs, on_done=None):
        self.requests += reqs
        return super().compile(reqs, on_done)


@pytest.fixture
def tasks(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "k.py").write_text(ADD)
    return load_project(tmp_path / "p").kernels["add"].tasks()


def test_every_stage_has_one_function_and_every_path_is_made_of_stages():
    for kind, stage in STAGES.items():
        assert stage.kind == kind
        assert (stage.codegen is None) != (stage.pooled is None), kind
    for path in PATHS.values():
        assert STAGES[path[0]].source == "task_ir"
        for before, kind in zip(path, path[1:]):
            assert STAGES[kind].source == before
    assert STAGES["opt_ll"].source == "ll" and not STAGES["opt_ll"].cached


def test_a_request_names_its_stage_and_the_pool_runs_that_stages_function(monkeypatch, tasks):
    ran = []

    def spy(req):
        ran.append(req.stage)
        return stages.compile_module(req)
    monkeypatch.setitem(STAGES, "ptx", dataclasses.replace(STAGES["ptx"], pooled=spy))
    (ct,) = Pipeline(Recording(), memo=False).compile(tasks, "nvptx")
    assert ct.ok and ran == ["ptx"]
    assert CompileRequest("t", "host", ("",), ("t",)).stage == "obj"        # a target's code stage by default
    bad = run_stage(CompileRequest("t", "nvptx", ("",), ("t",), stage="ll"))
    assert not bad.ok and "does not run in the pool" in bad.error


def test_optimised_ir_is_an_uncached_walk_through_the_compiler(tmp_path, tasks):
    comp = Recording()
    cache = PtxCache(str(tmp_path / "cache"), offline=True)
    pipe = Pipeline(comp, cache, memo=False)
    (ct,) = pipe.compile(tasks, "nvptx")
    assert [r.stage for r in comp.requests] == ["ptx"]
    entries = sorted(p.name for p in (tmp_path / "cache").rglob("*") if p.is_file())

    text = pipe.optimised_ll(ct)
    again = pipe.optimised_ll(ct)
    assert [r.stage for r in comp.requests] == ["ptx", "opt_ll", "opt_ll"]   # through the compiler, twice
    assert sorted(p.name for p in (tmp_path / "cache").rglob("*") if p.is_file()) == entries
    assert text == again and f"define ptx_kernel void @{TASK}" in text
    assert text != ct.ll and "local_unnamed_addr" in text and "local_unnamed_addr" not in ct.ll
    assert ct.produced.keys() == {"ll", "ptx"}                               # the compiled task is unchanged


def test_optimised_ir_reads_the_ll_in_use_an_override_included(tmp_path, tasks):
    store = OverrideStore(tmp_path / "p")
    (gen,) = Pipeline(InlineCompiler(), memo=False).compile(tasks, "nvptx")
    assert ONE in gen.ll and SEVEN not in gen.ll
    store.write(TASK, gen.ll.replace(ONE, SEVEN), gen.ll, kind="ll", target="nvptx")
    pipe = Pipeline(InlineCompiler(), overrides=store, memo=False)
    (ct,) = pipe.compile(tasks, "nvptx")
    assert ct.override_stage == "ll"
    text = pipe.optimised_ll(ct)
    assert "7.000000e+00" in text and "1.000000e+00" not in text


def test_optimised_ir_of_a_broken_module_says_why(tasks):
    pipe = Pipeline(InlineCompiler(), memo=False)
    (ct,) = pipe.compile(tasks, "nvptx")
    broken = dataclasses.replace(ct, used=dict(ct.used) | {"ll": dataclasses.replace(ct.used["ll"],
                                                                                     data=b"this is not IR")})
    assert pipe.optimised_ll(broken).startswith("; optimisation failed:")
    nothing = dataclasses.replace(ct, used={}, error="codegen failed")
    assert pipe.optimised_ll(nothing) == f"; {TASK} has no LLVM IR to optimise: codegen failed"


def test_optimised_ir_in_a_pool_worker(tasks):
    pool = CompilePool(1)
    try:
        pipe = Pipeline(pool, memo=False)
        (ct,) = pipe.compile(tasks, "nvptx")
        assert f"define ptx_kernel void @{TASK}" in pipe.optimised_ll(ct)
    finally:
        pool.close()
