# corpus: quadrants_misc_poly_timed
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 misc/test_poly_timed.py
# license: Apache-2.0
# area: autodiff
# port: kernels and lambdas verbatim; qd.test(default_fp=...) (test harness, absent in 1.3.3) -> stand-in decorator calling qd.init(arch=qd.cpu, default_fp=...); autograd (not installed) and quadrants._testing (absent) dropped: asserts against autograd's derivative replaced by checksum lines of y and x.grad per case; qd.core.print_profile_info and timing print dropped
import quadrants as qd

results = []


def _qd_test(default_fp):
    def deco(f):
        def wrapped():
            qd.init(arch=qd.cpu, default_fp=default_fp)
            f()

        return wrapped

    return deco


# Note: test happens at v = 0.2
def grad_test(tifunc, npfunc=None, default_fp=qd.f32):
    if npfunc is None:
        npfunc = tifunc

    @_qd_test(default_fp=default_fp)
    def impl():
        x = qd.field(default_fp)
        y = qd.field(default_fp)

        qd.root.dense(qd.i, 1).place(x, x.grad, y, y.grad)

        @qd.kernel
        def func():
            for i in x:
                y[i] = tifunc(x[i])

        v = 0.234

        y.grad[0] = 1
        x[0] = v
        func()
        func.grad()

        results.append((y[0], x.grad[0]))

    impl()


def test_poly():
    grad_test(lambda x: x)
    grad_test(lambda x: -x)
    grad_test(lambda x: x * x)
    grad_test(lambda x: x**2)
    grad_test(lambda x: x * x * x)
    grad_test(lambda x: x * x * x * x)
    grad_test(lambda x: 0.4 * x * x - 3)
    grad_test(lambda x: (x - 3) * (x - 1))
    grad_test(lambda x: (x - 3) * (x - 1) + x * x)


test_poly()
for k, (yv, gv) in enumerate(results):
    print(f"checksum y{k}", repr(float(yv)))
    print(f"checksum grad{k}", repr(float(gv)))
