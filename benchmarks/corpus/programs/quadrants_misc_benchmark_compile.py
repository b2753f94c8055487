# corpus: quadrants_misc_benchmark_compile
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 misc/benchmark_compile.py
# license: Apache-2.0
# area: autodiff
# port: kernels and lambdas verbatim; @qd.test() (test harness, absent in 1.3.3) -> stand-in decorator calling qd.init(arch=qd.cpu); autograd (not installed): np.sqrt/exp/log from numpy, asserts against autograd's derivative replaced by checksum lines of y and x.grad; qd.core.print_profile_info and timing print dropped
import numpy as np

import quadrants as qd

results = []


def _qd_test():
    def deco(f):
        def wrapped(*args, **kwargs):
            qd.init(arch=qd.cpu)
            f(*args, **kwargs)

        return wrapped

    return deco


@_qd_test()
def grad_test(tifunc, npfunc=None):
    if npfunc is None:
        npfunc = tifunc

    x = qd.field(qd.f32)
    y = qd.field(qd.f32)

    qd.root.dense(qd.i, 1).place(x, x.grad, y, y.grad)

    @qd.kernel
    def func():
        for i in x:
            y[i] = tifunc(x[i])

    v = 0.2

    y.grad[0] = 1
    x[0] = v
    func()
    func.grad()

    assert abs(y[0] - npfunc(v)) < 1e-5 * max(1.0, abs(npfunc(v)))
    results.append((y[0], x.grad[0]))


def test_unary():
    grad_test(lambda x: qd.sqrt(x), lambda x: np.sqrt(x))
    grad_test(lambda x: qd.exp(x), lambda x: np.exp(x))
    grad_test(lambda x: qd.log(x), lambda x: np.log(x))


test_unary()
for k, (yv, gv) in enumerate(results):
    print(f"checksum y{k}", repr(float(yv)))
    print(f"checksum grad{k}", repr(float(gv)))
