# corpus: taichi_laplace
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/algorithm/laplace.py
# license: Apache-2.0
# area: misc
# port: ti->qd; arch=qd.cpu; checksum lines added
import quadrants as qd

qd.init(arch=qd.cpu)

N = 16

x, y = qd.field(qd.f32), qd.field(qd.f32)

qd.root.dense(qd.ij, N).place(x, y)


@qd.kernel
def laplace():
    for i, j in x:
        if (i + j) % 3 == 0 and 1 <= i < N - 1 and 1 <= j < N - 1:
            y[i, j] = 4.0 * x[i, j] - x[i - 1, j] - x[i + 1, j] - x[i, j - 1] - x[i, j + 1]
        else:
            y[i, j] = 0.0


def main():
    for i in range(10):
        x[i, i + 1] = 1.0

    laplace()

    for i in range(10):
        print(y[i, i + 1])
    print("checksum y_sum", float(sum(y[i, j] for i in range(N) for j in range(N))))
    print("checksum y_diag", float(sum(y[i, i + 1] * (i + 1) for i in range(10))))


if __name__ == "__main__":
    main()
