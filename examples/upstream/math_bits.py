# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/math.md lines 51-56 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   docs/source/user_guide/math.md lines 62-64 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   docs/source/user_guide/math.md lines 70-73 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: Examples: Bitset population count; Highest set bit; Iterating set bits
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
# >>> added for the comparison (not upstream)
import quadrants as qd

qd.init(arch=qd.gpu)
import numpy as np
# <<< added

@qd.kernel
def count_bits(masks: qd.types.NDArray[qd.u32, 1], total: qd.types.NDArray[qd.i32, 1]) -> None:
    n = 0
    for i in range(masks.shape[0]):
        n += qd.math.popcnt(masks[i])
    qd.atomic_add(total[0], n)

@qd.func
def msb(x: qd.i32) -> qd.i32:
    return 31 - qd.math.clz(x)

@qd.func
def lowest_set_bit_index(mask: qd.u32) -> qd.i32:
    # Returns -1 when mask == 0; otherwise the 0-indexed position of the lowest set bit.
    return qd.math.ffs(mask) - 1

# >>> added for the comparison (not upstream)
@qd.kernel
def bits(x: qd.types.NDArray[qd.i32, 1], m: qd.types.NDArray[qd.u32, 1], out: qd.types.NDArray[qd.i32, 2]) -> None:
    for i in range(x.shape[0]):
        out[i, 0] = msb(x[i])
        out[i, 1] = lowest_set_bit_index(m[i])


masks = qd.ndarray(qd.u32, shape=(6,))
masks.from_numpy(np.array([0, 1, 0xF0, 0x80000000, 0xFFFFFFFF, 12345], dtype=np.uint32))
total = qd.ndarray(qd.i32, shape=(1,))
count_bits(masks, total)
print("popcnt", total.to_numpy().tolist())
x = qd.ndarray(qd.i32, shape=(6,))
x.from_numpy(np.array([1, 2, 3, 1024, 1 << 30, 77], dtype=np.int32))
out = qd.ndarray(qd.i32, shape=(6, 2))
bits(x, masks, out)
print("msb lowest", out.to_numpy().tolist())
# <<< added
