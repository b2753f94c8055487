# mypy: ignore-errors
# (a @qd.func: its body is the kernel language)
"""`qd.frexp(x)`: (mantissa, exponent) with x = m * 2**e and 0.5 <= |m| < 1 (both 0 for x = 0), as
C's frexp, written in the language itself so that it inlines into any kernel (Quadrants 1.3.3's CPU
backend aborts on `qd.frexp`: "unary_op frexp: Not supported")."""
from .. import intrinsics as qd
from ..func import func
from ...ir.dtypes import i32


@func
def frexp(x):
    m = x * 1.0
    e = 0
    if x != 0:
        e = qd.cast(qd.floor(qd.log(qd.abs(x)) / qd.log(2.0)), i32) + 1
        m = x / qd.pow(2.0, e)
        if qd.abs(m) >= 1.0:  # log rounding at exact powers of two
            m = m * 0.5
            e += 1
        elif qd.abs(m) < 0.5:
            m = m * 2.0
            e -= 1
    return m, e
