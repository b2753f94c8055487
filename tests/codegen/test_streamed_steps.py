"""A coarsened step of a body with libdevice math (accurate sin·exp) streams its accesses: every index's
loads first, as one vector load, and every index's stores last, as one vector store (schedule.py:
`streamed`); bodies that could jump past their stores, or read what they store, keep one index a step."""
import re

import qdexplorer.lang as qd
from qdexplorer.codegen import CodegenOptions, build_task_module
from qdexplorer.codegen import schedule
from qdexplorer.codegen.math_lib import libdevice_path
from qdexplorer.compiler.stages import CompileRequest, compile_module

F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)


def build(kernel, vector=4):
    task = kernel.tasks()[-1]
    tm = build_task_module(task, CodegenOptions("nvptx", vector=vector, fast_math=False, libdevice=libdevice_path()))
    res = compile_module(CompileRequest(task.name, "nvptx", (tm.text,), (tm.entry,), libdevice=libdevice_path() if tm.needs_libdevice else None))
    assert res.ok, res.error
    return tm, res.output.decode()


@qd.kernel
def wave(x: F1, y: F1):
    for i in range(x.shape[0]):
        v = x[i]
        y[i] = qd.sin(v) * qd.exp(-v * v)


@qd.kernel
def wave_skips(x: F1, y: F1):
    for i in range(x.shape[0]):
        v = x[i]
        if v > 100.0:
            continue
        y[i] = qd.sin(v) * qd.exp(-v * v)


def test_accurate_sin_exp_loads_and_stores_four_elements_at_once():
    tm, ptx = build(wave)
    assert tm.vector == 4
    assert len(re.findall(r"ld\.global\.nc\.v4\.b32", ptx)) == 1 and len(re.findall(r"st\.global\.v4\.b32", ptx)) == 1
    assert any("each step's loads first" in line for line in tm.log)


def test_a_body_that_can_skip_its_store_keeps_one_index_a_step(monkeypatch):
    tm, ptx = build(wave_skips)
    assert tm.vector == 1 and "v4" not in ptx
    monkeypatch.setattr(schedule, "HEAVY_MATH_COARSENING", False)
    tm, _ = build(wave)
    assert tm.vector == 1
