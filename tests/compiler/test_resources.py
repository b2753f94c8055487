"""Resource estimates outside the window: one block-size rule (LaunchSpec.block, the one the CUDA
backend launches with) and ptxas figures kept per PTX text, block and arch."""
import dataclasses
import textwrap

import pytest

from qdexplorer.compiler import ptxas, resources
from qdexplorer.compiler.pipeline import Pipeline
from qdexplorer.compiler.pool import InlineCompiler
from qdexplorer.compiler.resources import estimate_resources
from qdexplorer.machine.launch_spec import LaunchSpec
from qdexplorer.project.loader import load_project

needs_ptxas = pytest.mark.skipif(ptxas.find_ptxas() is None, reason=ptxas.INSTALL_HINT)

BLOCKS = textwrap.dedent("""\
    import qdexplorer.lang as qd

    @qd.kernel
    def blocks(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1.0
        qd.loop_config(block_dim=256)
        for i in range(x.shape[0]):
            x[i] = x[i] * 2.0
        x[0] = 5.0
    """)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    folder = tmp_path_factory.mktemp("blocks") / "p"
    folder.mkdir()
    (folder / "k.py").write_text(BLOCKS)
    tasks = load_project(folder).kernels["blocks"].tasks()
    cts = Pipeline(InlineCompiler(), memo=False).compile(tasks, "nvptx")
    assert all(ct.ok for ct in cts), [ct.error for ct in cts]
    return cts


@pytest.fixture(autouse=True)
def nothing_kept(monkeypatch):
    monkeypatch.setattr(resources, "_kept", type(resources._kept)())


def test_the_block_rule_lives_on_the_launch_spec(compiled):
    assert [ct.spec.block for ct in compiled] == [128, 256, 1]
    assert LaunchSpec("t", "k", "range_for", (), block_dim=64, serialize=True).block == 1
    assert LaunchSpec("t", "k", "range_for", (), block_dim=64).block == 64


@needs_ptxas
def test_the_estimate_is_at_the_block_the_task_launches_with(compiled):
    got = [estimate_resources(ct) for ct in compiled]
    assert [r["block"] for r in got] == [128, 256, 1]
    assert all(r["source"] == "ptxas" and r["registers"] > 0 and "error" not in r for r in got)
    assert estimate_resources(compiled[0], "sm_80")["arch"] == "sm_80"


@needs_ptxas
def test_the_estimate_is_kept_per_ptx_text(compiled, monkeypatch):
    runs = []
    real = ptxas.task_resources

    def counted(ptx, task, block, arch=None):
        runs.append(block)
        return real(ptx, task, block, arch)
    monkeypatch.setattr(ptxas, "task_resources", counted)
    ct = compiled[0]
    first = estimate_resources(ct)
    first["registers"] = -1                          # a caller's copy: what is kept is untouched
    again = estimate_resources(dataclasses.replace(ct))
    assert runs == [128] and again["registers"] > 0
    edited = ct.ptx.replace("add.f32", "sub.f32") if "add.f32" in ct.ptx else ct.ptx + "\n"
    other = dataclasses.replace(ct, used=dict(ct.used) | {"ptx": dataclasses.replace(ct.used["ptx"],
                                                                                       data=edited.encode())})
    estimate_resources(other)
    assert runs == [128, 128]


def test_no_ptxas_is_an_error_result_that_is_asked_again(compiled, monkeypatch, tmp_path):
    monkeypatch.setenv("QDEXPLORER_PTXAS", str(tmp_path / "no-ptxas-here"))
    res = estimate_resources(compiled[0])
    assert res == {"source": "ptxas", "error": ptxas.INSTALL_HINT}
    assert len(resources._kept) == 0
    monkeypatch.delenv("QDEXPLORER_PTXAS")
    if ptxas.find_ptxas() is not None:
        assert "error" not in estimate_resources(compiled[0])


@needs_ptxas
def test_a_ptx_that_ptxas_refuses_is_an_error_with_its_diagnostics(compiled):
    ct = compiled[0]
    bad = dataclasses.replace(ct, used=dict(ct.used) | {"ptx": dataclasses.replace(
        ct.used["ptx"], data=ct.ptx.replace(".entry", ".entryy").encode())})
    res = estimate_resources(bad)
    assert res["source"] == "ptxas" and res["error"] and res["diagnostics"]


def test_nothing_to_estimate_without_ptx(compiled):
    assert estimate_resources(dataclasses.replace(compiled[0], used={})) == {}
