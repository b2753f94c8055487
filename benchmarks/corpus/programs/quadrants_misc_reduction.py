# corpus: quadrants_misc_reduction
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 misc/benchmark_reduction.py
# license: Apache-2.0
# area: misc
# port: qd.block_dim(n) -> qd.loop_config(block_dim=n) (the API rename; block_dim is gone in 1.3.3); arch gpu -> cpu; N 1G -> 4M; the assert kept; print_kernel_profile_info replaced by checksum lines
import quadrants as qd

# TODO: make this a real benchmark and set up regression

qd.init(arch=qd.cpu)

N = 1024 * 1024 * 4

a = qd.field(qd.i32, shape=N)
tot = qd.field(qd.i32, shape=())


@qd.kernel
def fill():
    qd.loop_config(block_dim=128)
    for i in a:
        a[i] = i


@qd.kernel
def reduce():
    qd.loop_config(block_dim=1024)
    for i in a:
        tot[None] += a[i]


fill()
fill()

for i in range(10):
    reduce()

ground_truth = 10 * N * (N - 1) / 2 % 2**32
assert tot[None] % 2**32 == ground_truth
print("checksum tot", int(tot[None]))
