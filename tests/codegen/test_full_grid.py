"""The launch grid of a CUDA range task (codegen/task_module.py `full_grid`, runtime/cuda/context.py):
a coarsened loop with nothing to combine across its steps gets a thread per step (the capped grid's
grid-stride cost the 8192^2 stencil a quarter of its bandwidth on the H100); a reduction's per-thread
partials, a privatized scatter's one wave, a loop at one index a thread and every host task keep
Quadrants' saturating grid."""
import qdexplorer.lang as qd
from qdexplorer.codegen import CodegenOptions, build_task_module
from qdexplorer.compiler.pipeline import launch_spec

F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)
F2 = qd.types.ndarray(dtype=qd.f32, ndim=2)
I1 = qd.types.ndarray(dtype=qd.i32, ndim=1)


@qd.kernel
def saxpy(x: F1, y: F1, a: qd.f32):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


@qd.kernel
def stencil(u: F2, out: F2):
    for i, j in qd.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
        out[i, j] = 0.2 * (u[i, j] + u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])


@qd.kernel
def total(x: F1, out: F1):
    for i in range(x.shape[0]):
        out[0] += x[i]


@qd.kernel
def histogram(x: I1, bins: I1):
    for i in range(x.shape[0]):
        qd.atomic_add(bins[x[i] % 256], 1)


def spec(kernel, target="nvptx", vector=4):
    task = kernel.tasks()[-1]
    return launch_spec(task, build_task_module(task, CodegenOptions(target, vector=vector)))


def test_a_coarsened_loop_without_a_reduction_launches_a_thread_per_step():
    for k in (saxpy, stencil):
        s = spec(k)
        assert s.vector > 1 and s.full_grid, (k, s)


def test_reductions_privatized_scatters_one_index_loops_and_host_tasks_keep_the_capped_grid():
    assert not spec(total).full_grid            # per-thread partials: few threads, few atomics
    h = spec(histogram)
    assert h.one_wave and not h.full_grid       # one wave of blocks, each flushing its copy once
    assert not spec(saxpy, vector=1).full_grid  # one index a thread: grid-stride was faster (copy 0.82 vs 0.57)
    assert not spec(saxpy, target="host").full_grid
