"""A small project for the remote tests: one range_for task whose PTX depends on fast_math (a
division) and whose launch depends on block_dim, and a workload that checks it."""
from pathlib import Path

SCALE = """
import numpy as np
import qdexplorer.lang as qd

@qd.kernel
def scale(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        y[i] = x[i] / 3.0

@qd.workload(scale, check=lambda b, a: np.testing.assert_allclose(a["y"], b["x"] / 3.0, rtol=1e-6))
def scale_64k(rng):
    return dict(x=rng.standard_normal(1 << 16, dtype=np.float32), y=np.zeros(1 << 16, np.float32))
"""
TASK = "scale_kernel_0_range_for"


def scale_project(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "k.py").write_text(SCALE)
    return folder
