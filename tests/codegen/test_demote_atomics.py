"""Atomic demotion (codegen/demote.py): `v[i] += ...` where no other iteration can touch the element
is a plain load, add and store (merged into vector accesses under coarsening); every atomic another
iteration could race with stays atomic. Checked in the PTX and, on the CPU backend, in the results."""
import re

import numpy as np

import qdexplorer.lang as qd
from qdexplorer.codegen import CodegenOptions, build_task_module
from qdexplorer.codegen.demote import demote_atomics
from qdexplorer.compiler.stages import CompileRequest, compile_module
from qdexplorer.ir import nodes as ir

F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)
F2 = qd.types.ndarray(dtype=qd.f32, ndim=2)
I1 = qd.types.ndarray(dtype=qd.i32, ndim=1)


def ptx_of(kernel, vector=4):
    task = kernel.tasks()[-1]
    tm = build_task_module(task, CodegenOptions("nvptx", vector=vector))
    res = compile_module(CompileRequest(task.name, "nvptx", (tm.text,), (tm.entry,)))
    assert res.ok, res.error
    return res.output.decode()


def atomics_left(kernel) -> list[str]:
    task = demote_atomics(kernel.tasks()[-1])
    return sorted(n.array.name for n in ir.walk(task.body) if isinstance(n, ir.AtomicRMW))


@qd.kernel
def integrate(v: F1, f: F1, x: F1, dt: qd.f32):
    for i in range(x.shape[0]):
        v[i] += dt * f[i]
        x[i] += dt * v[i]


def test_an_update_of_its_own_element_is_a_vector_load_and_store():
    """The 1M-particle step's `integrate`: was a `red` then a load waiting for it, per element."""
    ptx = ptx_of(integrate)
    assert "red." not in ptx and "atom." not in ptx
    assert len(re.findall(r"ld\.global\.v4\.b32", ptx)) == 2 and len(re.findall(r"st\.global\.v4\.b32", ptx)) == 2
    assert atomics_left(integrate) == []


@qd.kernel
def shared_elements(x: I1, bins: I1, total: F1, a: F1, b: F2, c: F2, w: F1):
    for i in range(x.shape[0]):
        bins[x[i]] += 1             # any element: a histogram
        total[0] += 1.0             # one element for all: a reduction
        a[i] += 1.0
        a[i + 1] += 1.0             # iteration i also touches i + 1's element
        qd.atomic_max(w[i], 2.0)    # float max: NaN rules of the atomic kept
    for i, j in qd.ndrange(x.shape[0], 4):
        b[i, 0] += 1.0              # (i, j) for every j share b[i, 0]
        c[j, i] += 1.0              # each (i, j) its own element: demoted
        c[j, i] -= 0.5


def test_atomics_other_iterations_can_race_with_stay_atomic():
    assert atomics_left(shared_elements) == ["b"]
    first = demote_atomics(shared_elements.tasks()[0])
    assert sorted(n.array.name for n in ir.walk(first.body) if isinstance(n, ir.AtomicRMW)) == \
        ["a", "a", "bins", "total", "w"]


@qd.kernel
def particle_rows(pos: F2, vel: F2, dt: qd.f32):
    for i in range(pos.shape[0]):
        vel[i, 1] -= 9.8 * dt
        pos[i, 0] += vel[i, 0] * dt
        pos[i, 1] += vel[i, 1] * dt


def test_rows_of_their_own_are_demoted_and_give_the_same_results_on_the_cpu():
    assert atomics_left(particle_rows) == []
    qd.init(arch=qd.cpu)
    rng = np.random.default_rng(5)
    pos, vel = rng.random((1000, 2), dtype=np.float32), rng.random((1000, 2), dtype=np.float32)
    p, v = pos.copy(), vel.copy()
    particle_rows(p, v, 0.01)
    ev = vel.copy()
    ev[:, 1] -= np.float32(9.8) * np.float32(0.01)
    ep = pos + ev * np.float32(0.01)
    np.testing.assert_allclose(v, ev, rtol=1e-6)
    np.testing.assert_allclose(p, ep, rtol=1e-6)
