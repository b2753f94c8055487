"""Kernels' and funcs' arguments, `@qd.real_func`, and what Quadrants says when a call does not fit.

Expected values and messages are real Quadrants 1.3.3's on the CPU (each case was run under both)."""
import pytest

import qdexplorer.lang as qd


def test_call_mistakes_use_quadrants_words(cpu):
    @qd.kernel
    def k(a: qd.i32, b: qd.i32) -> qd.i32:
        return a + b

    @qd.func
    def f(a, b):
        return a + b

    @qd.kernel
    def calls_f() -> qd.i32:
        return f(1, 2, 3)

    @qd.kernel
    def calls_f_twice_a() -> qd.i32:
        return f(1, a=2)

    for call, words in ((lambda: k(1), "Missing argument 'b'"), (lambda: k(b=1), "Missing argument 'a'"),
                        (lambda: k(1, 2, c=3), "Unexpected argument 'c'"), (lambda: k(1, 2, 3), "Too many arguments"),
                        (calls_f, "Too many arguments"), (calls_f_twice_a, "Multiple values for argument 'a'")):
        with pytest.raises(qd.QuadrantsSyntaxError, match=words) as e:
            call()
        assert isinstance(e.value, TypeError)  # Python's own binding error is one, and programs catch it
        assert str(e.value).startswith(__file__)
    assert k(1, b=2) == 3
