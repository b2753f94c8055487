"""Debug mode's integer overflow reports and the typed-literal errors, as real Quadrants 1.3.3 gives
them on the CPU (the wrapped values and which operations report were checked against it)."""
import pytest

import qdexplorer.lang as qd


@pytest.fixture(autouse=True)
def _cpu():
    yield
    qd.reset()


def _op(ty, op):
    @qd.kernel
    def k(x: ty, y: ty) -> ty:
        a = ty(x)
        b = ty(y)
        if qd.static(op == "+"):
            return a + b
        elif qd.static(op == "-"):
            return a - b
        elif qd.static(op == "*"):
            return a * b
        else:
            return a << b
    return k


# (type, op, x, y, Quadrants' result, whether it reports an overflow)
CASES = [(qd.i8, "+", 64, 64, -128, True), (qd.i8, "+", 63, 64, 127, False), (qd.u8, "+", 128, 128, 0, True),
         (qd.i8, "-", -64, 65, 127, True), (qd.u8, "-", 1, 2, 255, True), (qd.i8, "*", 16, 8, -128, True),
         (qd.i8, "*", -1, -128, -128, True), (qd.i8, "*", -16, 8, -128, False), (qd.i32, "*", 0, 5, 0, False),
         (qd.i64, "*", 2**32, 2**31, -2**63, True), (qd.u64, "+", 2**63, 2**63, 0, True),
         (qd.i8, "<<", 64, 1, -128, True), (qd.i8, "<<", -64, 1, -128, False), (qd.u8, "<<", 200, 1, 144, True)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].name}{c[1]}{c[2]},{c[3]}")
def test_debug_mode_reports_integer_overflow_and_wraps(capfd, case):
    ty, op, x, y, want, reports = case
    qd.init(arch=qd.cpu, debug=True)
    capfd.readouterr()
    assert _op(ty, op)(x, y) == want
    qd.sync()
    out = capfd.readouterr().out
    word = {"+": "Addition", "-": "Subtraction", "*": "Multiplication", "<<": "Shift left"}[op]
    assert (f"{word} overflow detected in File" in out) == reports, out
    if reports:
        assert f"return a {op} b" in out


def test_without_debug_nothing_is_checked(capfd):
    qd.init(arch=qd.cpu)
    assert _op(qd.i8, "+")(64, 64) == -128
    qd.sync()
    assert "overflow" not in capfd.readouterr().out


@qd.kernel
def f32_of_int():
    a = qd.f32(0)  # noqa: F841


@qd.kernel
def i32_of_float():
    a = qd.i32(0.0)  # noqa: F841


@qd.kernel
def u16_of_minus_one():
    a = qd.u16(-1)  # noqa: F841


@qd.kernel
def two_args():
    a = qd.i64(1, 2)  # noqa: F841


@qd.kernel
def of_a_vector():
    a = qd.f16(qd.Vector([1]))  # noqa: F841


@qd.kernel
def fine() -> qd.f64:
    return qd.u8(255) + qd.f64(0.5) + qd.i32(True)


def test_typed_literals_are_checked_as_quadrants_checks_them():
    qd.init(arch=qd.cpu)
    with pytest.raises(qd.QuadrantsTypeError, match="Integer literals must be annotated with a integer type"):
        f32_of_int()
    with pytest.raises(qd.QuadrantsTypeError, match="Floating-point literals must be annotated"):
        i32_of_float()
    with pytest.raises(qd.QuadrantsTypeError, match="Integer literal -1 exceeded the range of specified dtype"):
        u16_of_minus_one()
    with pytest.raises(qd.QuadrantsSyntaxError, match="can only decorate a single expression"):
        two_args()
    with pytest.raises(qd.QuadrantsSyntaxError, match="cannot decorate an expression with a compound type"):
        of_a_vector()
    assert fine() == 256.5
