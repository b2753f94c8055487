"""Results for three upstream tests that only check that a kernel compiles and runs
(`test_nested_for_with_atomic`, `test_cast_within_while`, `test_compare_ret_type` in
tests/quadrants_compat, kept as upstream wrote them): here the same kernels assert their values."""


def test_nested_for_with_atomic_adds_every_iteration(arch):
    qd = arch
    x = qd.field(dtype=qd.f32, shape=())

    @qd.kernel
    def nested_loops():
        for i in range(2):
            x[None] += 1
            for j in range(1):
                x[None] += 2

    nested_loops()
    assert x[None] == 6


def test_cast_within_while_keeps_the_local_an_int(arch):
    qd = arch
    ret = qd.field(qd.i32, shape=())

    @qd.kernel
    def func():
        t = 10
        while t > 5:
            t = 1.0
            break
        ret[None] = t

    func()
    assert ret[None] == 1


def test_comparisons_drive_if_and_while(arch):
    qd = arch
    out = qd.field(qd.i32, shape=(2,))

    @qd.kernel
    def foo():
        for i in range(100):
            if i == 0:
                out[0] += 1
        i = 100
        while i != 0:
            i -= 1
        out[1] = i

    foo()
    assert out[0] == 1 and out[1] == 0
