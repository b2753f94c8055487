# corpus: quadrants_misc_reduction_tmps
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 misc/benchmark_reduction_tmps.py
# license: Apache-2.0
# area: misc
# port: qd.block_dim(n) -> qd.loop_config(block_dim=n) (the API rename; block_dim is gone in 1.3.3); arch gpu -> cpu, print_ir/llvm-ir/kernel_profiler kwargs dropped (output noise); N 128M -> 1M; a filled with 1.0 as before; timing print replaced by checksum lines; approx assert kept
import time

from pytest import approx

import quadrants as qd

# TODO: make this a real benchmark and set up regression
# TODO: merge this file into benchmark_reduction.py
qd.init(
    arch=qd.cpu,
)

N = 1024 * 1024

a = qd.field(qd.f32, shape=N)


@qd.kernel
def fill():
    qd.loop_config(block_dim=128)
    for i in a:
        a[i] = 1.0


@qd.kernel
def reduce() -> qd.f32:
    s = 0.0
    qd.loop_config(block_dim=1024)
    for i in a:
        s += a[i]
    return s


fill()

num_runs = 10
# Invoke it here to get the kernel compiled
reduce()

start = time.time()
got = 0.0
for i in range(num_runs):
    got += reduce()
duration = time.time() - start

ground_truth = float(N * num_runs)
assert got == approx(ground_truth, 1e-4)
print("checksum got", repr(float(got)))
