# corpus: benchmark_reduce_sum
# source: github:taichi-dev/taichi_benchmark@7a8c8a5d27748e118355cdf794a959d75bc112ad suites/reduce_sum/src/taichi/reduce_sum.py
# license: Apache-2.0
# area: misc
# port: ti->qd; qd.init(qd.cpu, kernel_profiler=True) (was cuda); a driver added: reduce_sum(1 << 20) and checksums of the field (the kernel's local sum is discarded by the original; profiler time not printed); reduce_sum() additionally returns f for the driver
import quadrants as qd 

qd.init(qd.cpu,
    kernel_profiler=True,
    )

def reduce_sum(n_items, repeats=5):
    f = qd.field(qd.f32, (n_items,))
    @qd.kernel
    def init_kernel():
        for i in f:
            f[i] = 1.0
    @qd.kernel 
    def reduce_sum_kernel():
        sum = 0.0
        for i in qd.grouped(f):
            qd.atomic_add(sum, f[i])
    kernel_time = 0.0
    n_iter = 0
    while n_iter < repeats:
        init_kernel()
        qd.profiler.clear_kernel_profiler_info()
        reduce_sum_kernel()
        qd.sync()
        kernel_time += qd.profiler.get_kernel_profiler_total_time() * 1000
        n_iter += 1
    return kernel_time/repeats, f  # f added for the driver


if __name__ == '__main__':
    t, f = reduce_sum(1 << 20)
    a = f.to_numpy()
    print('checksum f_sum', repr(float(a.sum())))
    print('checksum f_n', int(a.shape[0]))
