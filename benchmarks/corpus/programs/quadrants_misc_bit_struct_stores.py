# corpus: quadrants_misc_bit_struct_stores
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 misc/benchmark_bit_struct_stores.py
# license: Apache-2.0
# area: misc
# port: SNode.bit_struct(num_bits=32).place(x, y) -> BitpackedFields(max_num_bits=32) placed in the dense (the API rename; bit_struct is gone in 1.3.3); init kwargs kernel_profiler/print_ir dropped (output noise); n 256M -> 1M; 10 launches kept; print_kernel_profile_info replaced by checksum lines
import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu)

quant = True

n = 1024 * 1024

if quant:
    qi16 = qd.types.quant.int(16, True)

    x = qd.field(dtype=qi16)
    y = qd.field(dtype=qi16)

    bitpack = qd.BitpackedFields(max_num_bits=32)
    bitpack.place(x, y)
    qd.root.dense(qd.i, n).place(bitpack)
else:
    x = qd.field(dtype=qd.i16)
    y = qd.field(dtype=qd.i16)

    qd.root.dense(qd.i, n).place(x, y)


@qd.kernel
def foo():
    for i in range(n):
        x[i] = i & 1023
        y[i] = i & 15


for i in range(10):
    foo()

# quant fields have no to_numpy in 1.3.3: sample from python scope
idx = list(range(0, n, 517)) + [n - 1]
print("checksum x", sum(int(x[i]) * (k + 1) for k, i in enumerate(idx)))
print("checksum y", sum(int(y[i]) * (k + 1) for k, i in enumerate(idx)))
