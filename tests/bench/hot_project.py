"""A two-kernel project for real runs: `hot`'s inner loop can be doubled, `steady` is never touched.

2048 indices stay in one chunk on the CPU backend (one thread), so a launch's CPU time is the
work of its dependent loop, steady on a busy machine.
"""
from pathlib import Path

SOURCE = """
import numpy as np
import qdexplorer.lang as qd


@qd.kernel
def hot(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        acc = x[i]
        for j in range({steps}):
            acc = acc * 0.999 + 0.001
{doubled}        x[i] = acc


@qd.kernel
def steady(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        acc = x[i]
        for j in range({steps}):
            acc = acc * 0.999 + 0.002
        x[i] = acc


@qd.workload(hot)
def hot_2k(rng):
    return dict(x=rng.standard_normal(2048, dtype=np.float32))


@qd.workload(steady)
def steady_2k(rng):
    return dict(x=rng.standard_normal(2048, dtype=np.float32))
"""
HOT, STEADY = "hot_kernel_0_range_for", "steady_kernel_0_range_for"


def write_project(folder: Path, doubled: bool = False, steps: int = 2000) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    extra = (f"        for j in range({steps}):\n            acc = acc * 0.999 + 0.001\n") if doubled else ""
    (folder / "kernels.py").write_text(SOURCE.format(steps=steps, doubled=extra))
    return folder


def real_runs(folder: Path, cache_dir: Path, repeat: int = 8, steps: int = 500):
    """(before, after, after_again): real CPU runs of the project, with `hot` doubled after the first."""
    from qdexplorer.bench.runner import bench
    from qdexplorer.engine import Engine
    out = []
    for i, doubled in enumerate((False, True, True)):
        write_project(folder, doubled, steps)
        with Engine(folder, backend="cpu", in_process=True, cache_dir=str(cache_dir)) as eng:
            out.append(bench(eng, repeat=repeat, name=("before", "after", "after-again")[i]))
    return out
