"""`qd.lang.util` / `qd.lang.exception` / `qd.lang.ops` are read without importing them, as Quadrants'
package imports them (upstream's sparse-solver tests call qd.lang.util.to_numpy_type(dtype))."""
import numpy as np

import qdexplorer.lang as qd


def test_quadrants_lang_submodules_are_attributes():
    assert qd.lang.util.to_numpy_type(qd.f64) is np.float64
    assert qd.lang.util.to_numpy_type(qd.i32) is np.int32
    assert qd.lang.exception.QuadrantsSyntaxError is qd.QuadrantsSyntaxError
    assert qd.lang.ops.add(2, 3) == 5
