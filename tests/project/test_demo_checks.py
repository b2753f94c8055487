"""The bundled demo's checks accept what a correct GPU computes: CUDA fast math fuses `a * x + y` into
one fma (one rounding instead of two), which a relative test of the result rejects where the terms
nearly cancel (the Ray device's run of saxpy_1m on the H200 failed so)."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import qdexplorer

DEMO = Path(qdexplorer.__file__).parent / "resources" / "demo"


def demo_module(name):
    spec = importlib.util.spec_from_file_location(f"demo_{name}", DEMO / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_saxpy_check_takes_the_fused_and_the_unfused_result_and_nothing_else():
    saxpy = demo_module("saxpy")
    rng = np.random.default_rng(0)
    n = 1 << 20
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    before = dict(x=x, y=y, a=2.5)
    a = np.float32(2.5)
    unfused = a * x + y                                                          # mul.rn, add.rn
    fused = (np.float64(a) * x.astype(np.float64) + y).astype(np.float32)        # fma.rn: one rounding
    assert not np.array_equal(fused, unfused)  # they do differ, by one rounding, here and there
    saxpy._check_saxpy(before, dict(y=unfused))
    saxpy._check_saxpy(before, dict(y=fused))
    wrong = fused.copy()
    wrong[12345] = np.nextafter(np.nextafter(np.nextafter(wrong[12345], np.inf), np.inf), np.inf) * np.float32(1.0001)
    with pytest.raises(AssertionError, match="first at 12345"):
        saxpy._check_saxpy(before, dict(y=wrong))
