"""`qd.init(default_ip=..., default_fp=...)` retypes `qd.math.ivec2`, `vec3`, `uvec2`, `mat2`, ... as
in Quadrants (checked with real Quadrants 1.3.3: `qd.field(qd.math.ivec2, ())` is i64 after
`qd.init(default_ip=qd.i64)`), and keeps the one `qd.i64` object even when given a copy."""
import copy

import pytest

import qdexplorer.lang as qd
from qdexplorer.lang.frontend.values import default_types


@pytest.fixture(autouse=True)
def reset():
    yield
    qd.reset()


def test_math_vector_types_follow_the_default_types_of_each_init():
    qd.init(arch=qd.cpu, default_ip=copy.deepcopy(qd.i64), default_fp=qd.f64)
    assert qd.field(qd.math.ivec2, ()).dtype == qd.i64 and qd.math.uvec3.dtype == qd.u64
    assert qd.math.vec3.dtype == qd.f64 and qd.math.mat2.dtype == qd.f64
    assert default_types()[0] is qd.i64
    qd.init(arch=qd.cpu)
    assert qd.math.ivec2.dtype == qd.i32 and qd.math.vec2.dtype == qd.f32 and qd.math.uvec2.dtype == qd.u32
