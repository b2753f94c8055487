import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils


@test_utils.test()
def test_zero_outer_loop():
    x = qd.field(qd.i32, shape=())

    @qd.kernel
    def test():
        for i in range(0):
            x[None] = 1

    test()

    assert x[None] == 0


@test_utils.test()
def test_zero_inner_loop():
    x = qd.field(qd.i32, shape=())

    @qd.kernel
    def test():
        for i in range(1):
            for j in range(0):
                x[None] = 1

    test()

    assert x[None] == 0


@test_utils.test()
def test_assignment_in_nested_loops():
    # https://github.com/taichi-dev/taichi/issues/1109
    m = qd.field(qd.f32, 3)
    x = qd.field(qd.f32, ())

    @qd.kernel
    def func():
        a = x[None]
        for i in m:
            b = a
            for j in range(1):
                b = b
            x[None] = b

    x[None] = 1
    func()
    assert x[None] == 1


@test_utils.test(print_full_traceback=False)
def test_break_in_outermost_for_not_in_outermost_scope():
    @qd.kernel
    def foo() -> qd.i32:
        a = 0
        if True:
            for i in range(1000):
                if i == 100:
                    break
                a += 1
        return a

    assert foo() == 100


@test_utils.test()
def test_cache_loop_invariant_global_var_in_nested_loops():
    p = qd.field(float, 1)

    @qd.kernel
    def k():
        for n in range(1):
            for t in range(2):
                for m in range(1):
                    p[n] = p[n] + 1.0
                p[n] = p[n] + 1.0

    k()
    assert p[0] == 4.0
