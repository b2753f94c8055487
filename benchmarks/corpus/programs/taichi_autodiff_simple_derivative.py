# corpus: taichi_autodiff_simple_derivative
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/autodiff/simple_derivative.py
# license: Apache-2.0
# area: autodiff
# port: ti->qd; arch=qd.cpu; matplotlib import and draw() removed (plotting); checksum lines added

import quadrants as qd

qd.init(arch=qd.cpu)

N = 2048
x, y = qd.field(qd.f32), qd.field(qd.f32)

qd.root.dense(qd.i, N).place(x, x.grad, y, y.grad)


@qd.kernel
def poly():
    for i in x:
        v = x[i]
        ret = 0.0
        guard = 0.2
        if v < -guard or v > guard:
            ret = 4 / qd.max(v, 0.1)
        else:
            ret = 0
        y[i] = ret


xs = []
ys = []
grad_xs = []


def initialize():
    for i in range(N):
        v = ((i + 0.5) / N) * 2 - 1
        xs.append(v)
        x[i] = v

    poly()

    for i in range(N):
        y.grad[i] = 1
        ys.append(y[i])

    poly.grad()
    print("grad_x")
    for i in range(N):
        grad_xs.append(x.grad[i])


def draw():
    plt.title("Auto Diff")
    ax = plt.gca()
    ax.plot(xs, ys, label="f(x)")
    ax.plot(xs, grad_xs, label="f'(x)")
    ax.legend()
    ax.grid(True)
    ax.spines["left"].set_position("zero")
    ax.spines["right"].set_color("none")
    ax.spines["bottom"].set_position("zero")
    ax.spines["top"].set_color("none")
    plt.show()


def main():
    initialize()
    print("checksum y_sum", float(sum(ys)))
    print("checksum grad_x_sum", float(sum(grad_xs)))
    print("checksum grad_x_abs_sum", float(sum(abs(g) for g in grad_xs)))
    print("checksum grad_x_1500", float(grad_xs[1500]))


if __name__ == "__main__":
    main()
