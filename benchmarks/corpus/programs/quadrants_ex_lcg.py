# corpus: quadrants_ex_lcg
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 python/quadrants/examples/lcg_taichi.py
# license: Apache-2.0
# area: misc
# port: arch gpu -> cpu; B 16000 -> 4000; a seeded from numpy (was zero); timing print replaced by checksum lines
import numpy as np

import quadrants as qd


@qd.kernel
def lcg_ti(B: int, lcg_its: int, a: qd.types.NDArray[qd.i32, 1]) -> None:
    for i in range(B):
        x = a[i]
        for j in range(lcg_its):
            x = (1664525 * x + 1013904223) % 2147483647
        a[i] = x


def main() -> None:
    qd.init(arch=qd.cpu)

    B = 4000
    a = qd.ndarray(qd.int32, (B,))
    a.from_numpy(np.random.default_rng(0).integers(-2**31, 2**31 - 1, size=B, dtype=np.int32))

    qd.sync()
    lcg_ti(B, 1000, a)
    qd.sync()
    arr = a.to_numpy().astype(np.int64)
    print("checksum sum", int(arr.sum()))
    print("checksum wsum", int((arr * np.arange(B)).sum() % (2**61 - 1)))


main()
