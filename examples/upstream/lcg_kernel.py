# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/getting_started.md lines 121-145 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: A first Quadrants kernel (the full program)
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
import quadrants as qd
import time


@qd.kernel
def lcg_ti(B: int, lcg_its: int, a: qd.types.NDArray[qd.i32, 1]) -> None:
    for i in range(B):
        x = a[i]
        for j in range(lcg_its):
            x = (1664525 * x + 1013904223) % 2147483647
        a[i] = x

qd.init(arch=qd.gpu)

B = 16000
a = qd.ndarray(qd.int32, (B,))

qd.sync()
start = time.time()

lcg_ti(B, 1000, a)

qd.sync()
end = time.time()
print("elapsed", end - start)

# >>> added for the comparison (not upstream)
import numpy as np
print("checksum", int(a.to_numpy().astype(np.int64).sum()), a.to_numpy()[:4].tolist())
# <<< added
