"""Quantized types (`qd.types.quant.int / fixed / float`, `qd.BitpackedFields`, `quant_array`) with
Quadrants' encodings: the expected values were printed by real Quadrants 1.3.3 on the CPU running
the same program (rounding, flush to zero, exponent overflow and integer wraparound included)."""
import numpy as np
import pytest

import qdexplorer.lang as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


VALS = [0.0, 1e-9, 0.1, -0.37, 3.14159, 1000.5, -65504.0, 1e6]
WANT = {  # written in a kernel or from Python: the same
    "float5_10": [0.0, 0.0, 0.0999755859375, -0.3701171875, 3.140625, 1001.0, -65536.0, 0.00023293495178222656],
    "ufloat6_13": [0.0, 9.999894245993346e-10, 0.09999847412109375, 0.3699951171875, 3.1416015625, 1000.5,
                   65504.0, 1000000.0],
    "fixed13": [0.0, 0.0, 0.10000000149011612, -0.4000000059604645, 3.1000001430511475, 181.3000030517578, 32.0,
                -243.1999969482422],
    "int5": [0, 0, 0, -2, -11, -5, 0, 0],
}


def _fields():
    a = qd.field(dtype=qd.types.quant.float(exp=5, frac=10))
    b = qd.field(dtype=qd.types.quant.float(exp=6, frac=13, signed=False))
    c = qd.field(dtype=qd.types.quant.fixed(bits=13, signed=True, scale=0.1))
    d = qd.field(dtype=qd.types.quant.int(5, True))
    bp = qd.BitpackedFields(max_num_bits=32)
    bp.place(a, c)
    qd.root.dense(qd.i, 8).place(bp)
    bp2 = qd.BitpackedFields(max_num_bits=32)
    bp2.place(b, d)
    qd.root.dense(qd.i, 8).place(bp2)
    return a, b, c, d


def _read(*fields):
    return [[f[i] for i in range(8)] for f in fields]


def test_kernel_and_python_stores_encode_as_quadrants_does():
    a, b, c, d = _fields()

    @qd.kernel
    def write(v: qd.types.ndarray()):
        for i in range(8):
            a[i] = v[i]
            b[i] = v[i]
            c[i] = v[i]
            d[i] = qd.cast(v[i] * 7, qd.i32)

    want = [WANT[k] for k in ("float5_10", "ufloat6_13", "fixed13", "int5")]
    write(np.array(VALS, np.float32))
    assert _read(a, b, c, d) == want
    for i, v in enumerate(VALS):
        a[i], b[i], c[i], d[i] = v, v, v, int(v * 7)
    assert _read(a, b, c, d) == want
    assert a.to_numpy().tolist() == WANT["float5_10"]  # (Quadrants' to_numpy refuses quantized fields)


def test_atomic_adds_of_quant_ints_and_fixed_are_atomic_and_floats_round_each_step():
    a, b, c, d = _fields()
    for i, v in enumerate(VALS):
        a[i], c[i], d[i] = v, v, int(v * 7)

    @qd.kernel
    def add():
        for i in range(8):
            a[i] += 0.5
            c[i] -= 0.33
            d[i] += 3
        for k in range(100):  # contended: every thread adds to the same element
            d[7] += 1
            c[7] += 0.1

    add()
    assert _read(a)[0] == [0.5, 0.5, 0.599609375, 0.1298828125, 3.640625, 1002.0, -65536.0, 0.5]
    assert _read(c)[0] == [-0.30000001192092896, -0.30000001192092896, -0.20000000298023224,
                           -0.699999988079071, 2.799999952316284, 181.0, 31.700000762939453, -233.5]
    assert _read(d)[0] == [3, 3, 3, 1, -8, -2, 3, 7]  # 7000000 + 103 in 5 bits


def test_a_quant_array_of_small_ints():
    x = qd.field(dtype=qd.types.quant.int(4, False))
    qd.root.quant_array(qd.i, 8, max_num_bits=32).place(x)

    @qd.kernel
    def fill():
        for i in range(8):
            x[i] = i * 3

    fill()
    assert [x[i] for i in range(8)] == [0, 3, 6, 9, 12, 15, 2, 5]


def test_shared_exponents_store_as_quadrants_does_from_kernels_and_python():
    """Each store re-encodes the whole group with its largest exponent; stores to the members at
    one index, one after the other, are one store (Quadrants fuses them): a small value next to a
    large one loses its digits. Values printed by real Quadrants 1.3.3."""
    a = qd.field(dtype=qd.types.quant.float(exp=5, frac=10, signed=False))
    b = qd.field(dtype=qd.types.quant.float(exp=5, frac=14, signed=False))
    bp = qd.BitpackedFields(max_num_bits=32)
    bp.place(a, b, shared_exponent=True)
    qd.root.dense(qd.i, 4).place(bp)

    @qd.kernel
    def write(x: qd.f32, y: qd.f32):
        for i in range(4):
            a[i] = x * (i + 1)
            b[i] = y

    @qd.kernel
    def bump():
        for i in range(4):
            a[i] += 0.5
            b[i] *= 2.0

    write(3.2, 0.25)
    assert [(a[i], b[i]) for i in range(4)] == [(3.19921875, 0.25), (6.3984375, 0.25), (9.59375, 0.25),
                                                (12.796875, 0.25)]
    bump()
    write(0.27, 0.0)  # fused: a keeps the digits b's old exponent would have cost it
    assert [a[i] for i in range(4)] == [0.27001953125, 0.5400390625, 0.8095703125, 1.080078125]
    write(1000, 1e-6)
    assert (a[0], b[0]) == (1000.0, 0.0)  # b flushed to zero
    a[1] = 10.0  # from Python: b re-encoded with a's exponent
    b[1] = 0.25
    assert (a[1], b[1]) == (10.0, 0.25)


def test_quantized_vector_types_are_refused_in_one_line():
    """A vector *type* of a quantized type (for values, annotations, ndarrays) is refused; a
    vector *field* of one (qd.Vector.field(n, dtype=qtype)) works (below)."""
    with pytest.raises(NotImplementedError, match="a vector of a quantized type"):
        qd.types.vector(2, qd.types.quant.fixed(bits=16, max_value=2))
    x, y = (qd.field(dtype=qd.types.quant.float(exp=5, frac=10)) for _ in range(2))
    with pytest.raises(qd.QuadrantsCompilationError, match="At least 2 fields need to be placed"):
        qd.BitpackedFields(max_num_bits=32).place(x, shared_exponent=True)
    with pytest.raises(ValueError, match="more than max_num_bits=16"):
        qd.BitpackedFields(max_num_bits=16).place(x, y)


def test_a_vector_field_of_a_quantized_type_encodes_every_component():
    """Quadrants' test_quant_time_integration layout; values printed by real Quadrants 1.3.3."""
    x = qd.Vector.field(2, dtype=qd.types.quant.fixed(bits=16, max_value=2))
    bp = qd.BitpackedFields(max_num_bits=32)
    bp.place(x)
    qd.root.place(bp)

    @qd.kernel
    def advance(dt: qd.f32):
        x[None] = x[None] + qd.Vector([-x[None][1], x[None][0]]) * dt

    x[None] = [1, 0.3]
    got = []
    for _ in range(3):
        advance(0.1)
        got.append((float(x[None][0]), float(x[None][1])))
    assert got == [(0.97003173828125, 0.39996337890625), (0.9300537109375, 0.4969482421875),
                   (0.88037109375, 0.5899658203125)]


def test_matrix_components_placed_one_by_one_with_get_scalar_field():
    """Quadrants' test_quant_fixed_matrix_rotation layout: two components per bitpack."""
    x = qd.Matrix.field(2, 2, dtype=qd.types.quant.fixed(bits=16, max_value=1.2))
    for row in range(2):
        bp = qd.BitpackedFields(max_num_bits=32)
        bp.place(x.get_scalar_field(row, 0), x.get_scalar_field(row, 1))
        qd.root.place(bp)
    x[None] = [[1.0, 0.0], [0.0, 1.0]]

    @qd.kernel
    def rotate():
        c, s = qd.cos(0.5), qd.sin(0.5)
        x[None] = x[None] @ qd.Matrix([[c, s], [-s, c]])

    rotate()
    got = x[None].to_numpy()
    assert got[0, 0] == pytest.approx(np.cos(0.5), abs=1e-4) and got[0, 1] == pytest.approx(np.sin(0.5), abs=1e-4)
    assert got[1, 0] == pytest.approx(-np.sin(0.5), abs=1e-4)
