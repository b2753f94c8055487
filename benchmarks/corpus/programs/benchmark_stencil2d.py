# corpus: benchmark_stencil2d
# source: github:taichi-dev/taichi_benchmark@7a8c8a5d27748e118355cdf794a959d75bc112ad suites/stencil/legacy/src/taichi/stencil2d.py
# license: Apache-2.0
# area: misc
# port: ti->qd; import sys added (the original uses sys.argv without importing it); run_stencil's arch default vulkan->qd.cpu; bench_iter 10000->100; benchmark() returns checksums of x/y instead of times; __main__ runs N = 64, 128, 256, 512 (as the original) and prints checksum lines
import quadrants as qd
import time
import sys  # added: the original uses sys.argv without importing sys


def run_stencil(N = 512, arch=qd.cpu, bench=True):
    qd.init(arch=arch)
    neighbours = [(-1, 0), (0, 1), (1, 0), (0, -1)]

    @qd.kernel
    def init(x: qd.template()):
        for I in qd.grouped(x):
            if (I[0] == 0) or (I[0] == N - 1):
                x[I] = 1.0
            else:
                x[I] = 0.0

    @qd.kernel
    def jacobi_step(x: qd.template(), y: qd.template()):
        for I in qd.grouped(x):
            if (I[0] == 0) or (I[1] == 0) or (I[0] == N - 1) or (I[1] == N - 1):
                y[I] = x[I]
            else:
                p = 0.0
                for stencil in qd.static(neighbours):
                    p += x[I + stencil]
                y[I] = p * 0.25

        for I in qd.grouped(x):
            if (I[0] == 0) or (I[1] == 0) or (I[0] == N - 1) or (I[1] == N - 1):
                x[I] = y[I]
            else:
                p = 0.0
                for stencil in qd.static(neighbours):
                    p += y[I + stencil]
                x[I] = p * 0.25

    def benchmark(bench_iter=100):
        x = qd.field(shape=(N, N), dtype=qd.float32)
        y = qd.field(shape=(N, N), dtype=qd.float32)
        init(x)
        jacobi_step(x, y)
        jacobi_step(y, x)
        st = time.time()
        for i in range(bench_iter):
            jacobi_step(x, y)
            #jacobi_step(y, x)
        qd.sync()
        et = time.time()
        avg_time_ms = (et - st) * 1000.0 / float(bench_iter)  / 2.0 #two steps per iter
        Gflops = 1e-6 * N * N * (len(neighbours) + 1) / avg_time_ms
        GBs = 1e-6 * N * N * 4 * 2.0 / avg_time_ms
        return {"N":N, "x_sum":float(x.to_numpy().sum()), "y_sum":float(y.to_numpy().sum()), "x_sample":float(x[N // 2, 3])}

    def visualize():
        x = qd.field(shape=(N, N), dtype=qd.float32)
        y = qd.field(shape=(N, N), dtype=qd.float32)
        gui = qd.GUI('Stencil test', (N, N))
        init(x)
        steps = 0
        while gui.running:
            nIter = 50
            for i in range(nIter):
                jacobi_step(x, y)
                jacobi_step(y, x)
            steps += nIter
            if steps > 20000:
                init(x)
                steps = 0
            gui.set_image(x)
            gui.show()

    if bench:
        return benchmark()
    else:
        visualize()

if __name__ == '__main__':
    if len(sys.argv) >= 2 and sys.argv[1] == "visual":
        run_stencil(512, bench=False)
    else:
        k = 64
        for i in range(4):
            res = run_stencil(k)
            for key in ("x_sum", "y_sum", "x_sample"):
                print('checksum', '%s_%d' % (key, res["N"]), repr(res[key]))
            k *= 2
