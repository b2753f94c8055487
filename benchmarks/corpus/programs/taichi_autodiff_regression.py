# corpus: taichi_autodiff_regression
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/autodiff/regression.py
# license: Apache-2.0
# area: autodiff
# port: ti->qd; arch=qd.cpu, cpu_max_num_threads=1 (float atomics in a deterministic order); random.seed(0); matplotlib import and draw() removed (plotting); checksum lines added
import random

import numpy as np

import quadrants as qd

random.seed(0)
qd.init(arch=qd.cpu, cpu_max_num_threads=1)

number_coeffs = 4
learning_rate = 1e-4

N = 32
x, y = qd.field(qd.f32, shape=N, needs_grad=True), qd.field(qd.f32, shape=N, needs_grad=True)
coeffs = qd.field(qd.f32, shape=number_coeffs, needs_grad=True)
loss = qd.field(qd.f32, shape=(), needs_grad=True)


@qd.kernel
def regress():
    for i in x:
        v = x[i]
        est = 0.0
        for j in qd.static(range(number_coeffs)):
            est += coeffs[j] * (v**j)
        loss[None] += 0.5 * (y[i] - est) ** 2


@qd.kernel
def update():
    for i in qd.static(range(number_coeffs)):
        coeffs[i] -= learning_rate * coeffs.grad[i]


xs = []
ys = []


def initialize():
    for i in range(N):
        v = random.random() * 5 - 2.5
        xs.append(v)
        x[i] = v
        y[i] = (v - 1) * (v - 2) * (v + 2) + random.random() - 0.5

    regress()

    print("y")
    for i in range(N):
        y.grad[i] = 1
        ys.append(y[i])
    print()


def regress_raw():
    use_tape = True

    for i in range(1000):
        if use_tape:
            with qd.ad.Tape(loss=loss):
                regress()
        else:
            qd.ad.clear_all_gradients()
            loss[None] = 0
            loss.grad[None] = 1
            regress()
            regress.grad()
        print("Loss =", loss[None])
        update()
        for j in range(number_coeffs):
            print(coeffs[j], end=", ")
        print()


def draw():
    curve_xs = np.arange(-2.5, 2.5, 0.01)
    curve_ys = curve_xs * 0
    for i in range(number_coeffs):
        curve_ys += coeffs[i] * np.power(curve_xs, i)

    plt.title("Nonlinear Regression with Gradient Descent (3rd order polynomial)")
    ax = plt.gca()
    ax.scatter(xs, ys, label="data", color="r")
    ax.plot(curve_xs, curve_ys, label="fitted")
    ax.legend()
    ax.grid(True)
    ax.spines["left"].set_position("zero")
    ax.spines["right"].set_color("none")
    ax.spines["bottom"].set_position("zero")
    ax.spines["top"].set_color("none")
    plt.show()


def main():
    initialize()
    regress_raw()
    print("checksum loss", float(loss[None]))
    for j in range(number_coeffs):
        print(f"checksum coeff{j}", float(coeffs[j]))
    print("checksum coeffs_grad_abs_sum", float(np.abs(coeffs.grad.to_numpy().astype(np.float64)).sum()))


if __name__ == "__main__":
    main()
