"""`qd.types.vector(n, dt, unpacked=True)` on a @qd.dataclass member: n scalar members `_r0..`,
reached as `obj.r[i]` with a compile-time `i` (Quadrants 1.3.3's results and messages)."""
import pytest

import qdexplorer.lang as qd


def test_unpacked_member_is_scalar_members_indexed_at_compile_time(cpu):
    @qd.dataclass
    class Inner:
        r: qd.types.vector(3, qd.f32, unpacked=True)

    @qd.dataclass
    class Outer:
        inner: Inner
        scale: qd.f32

    assert list(Inner.members) == ["_r0", "_r1", "_r2"] and Inner._unpacked_groups["r"][:2] == (3, qd.f32)
    tiles = Outer.field(shape=(2,))
    out = qd.field(qd.f32, shape=2)

    @qd.kernel
    def k():
        for n in range(2):
            for i in qd.static(range(3)):
                tiles[n].inner.r[i] = qd.cast(n * 10 + i, qd.f32)
            tiles[n].inner.r[1] += 100.0
        t = Outer()
        t.inner.r[2] = 4.0
        t.scale = 2.5
        out[0] = tiles[0].inner.r[1] + tiles[1].inner.r[2]
        out[1] = t.inner.r[2] * t.scale

    k()
    assert out.to_numpy().tolist() == [101.0 + 12.0, 10.0]


def test_unpacked_misuse_is_refused(cpu):
    T = qd.types.vector(4, qd.f32, unpacked=True)
    for make in (lambda: T(1.0, 2.0, 3.0, 4.0), lambda: T.field(shape=(8,)), lambda: T.ndarray(shape=(8,))):
        with pytest.raises(qd.QuadrantsSyntaxError, match="unpacked=True.*@qd.dataclass"):
            make()
    with pytest.raises(qd.QuadrantsSyntaxError, match="'_r2'.*unpacked"):
        @qd.dataclass
        class Bad:
            r: qd.types.vector(4, qd.f32, unpacked=True)
            _r2: qd.f32

    @qd.dataclass
    class Tile:
        r: qd.types.vector(4, qd.f32, unpacked=True)

    @qd.kernel
    def runtime_index(j: qd.i32) -> qd.f32:
        t = Tile()
        return t.r[j]

    @qd.kernel
    def out_of_bounds() -> qd.f32:
        t = Tile()
        return t.r[7]

    with pytest.raises(qd.QuadrantsSyntaxError, match="python-int"):
        runtime_index(1)
    with pytest.raises(qd.QuadrantsSyntaxError, match="out of bounds"):
        out_of_bounds()
