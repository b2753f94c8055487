# corpus: taichi_autodiff_minimization
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/autodiff/minimization.py
# license: Apache-2.0
# area: autodiff
# port: ti->qd; arch=qd.cpu, cpu_max_num_threads=1 (float atomics in a deterministic order); random.seed(0); checksum lines added
import random

import quadrants as qd

random.seed(0)
qd.init(arch=qd.cpu, cpu_max_num_threads=1)

n = 8
x = qd.field(dtype=qd.f32, shape=n, needs_grad=True)
y = qd.field(dtype=qd.f32, shape=n)
L = qd.field(dtype=qd.f32, shape=(), needs_grad=True)


@qd.kernel
def reduce():
    for i in range(n):
        L[None] += 0.5 * (x[i] - y[i]) ** 2


@qd.kernel
def gradient_descent():
    for i in x:
        x[i] -= x.grad[i] * 0.1


def main():
    # Initialize vectors
    for i in range(n):
        x[i] = random.random()
        y[i] = random.random()

    # Optimize with 100 gradient descent iterations
    for k in range(100):
        with qd.ad.Tape(loss=L):
            reduce()
        print("Loss =", L[None])
        gradient_descent()

    for i in range(n):
        # Now you should approximately have x[i] == y[i]
        print(x[i], y[i])
    print("checksum L", float(L[None]))
    print("checksum x_sum", float(sum(x[i] for i in range(n))))
    print("checksum x0", float(x[0]))
    print("checksum x_grad_sum", float(sum(x.grad[i] for i in range(n))))


if __name__ == "__main__":
    main()
