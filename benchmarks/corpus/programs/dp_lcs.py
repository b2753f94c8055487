# corpus: dp_lcs
# source: github:Knot-Here/compiled-python@7abdd6343622c925d667054a40fffde5987a3134 src/compilers/taichi/lcs.py
# license: NOASSERTION
# area: dp
# port: ti->qd; qd.init(arch=qd.cpu) kept; MAX_SIZE 30000 -> 3000 (the dp ndarray is (MAX_SIZE+1)^2 i32: 3.6 GB -> 36 MB); a driver added (the repo's benchmark harness is not taken): numpy-seeded int32 sequences of lengths 2000/1800 and 300/3000 over 4 symbols; checksum lines added
import numpy as np
import quadrants as qd

qd.init(arch=qd.cpu)
MAX_SIZE = 3000
dp = qd.ndarray(dtype=qd.i32, shape=(MAX_SIZE + 1, MAX_SIZE + 1))

def lcs(a: np.ndarray, b: np.ndarray) -> int:
    if a.shape[0] > MAX_SIZE or b.shape[0] > MAX_SIZE:
        raise ValueError("Input arrays are too large.")
    return _compute(a, b, dp)

@qd.kernel
def _compute(
    a: qd.types.ndarray(),
    b: qd.types.ndarray(),
    dp: qd.types.ndarray(),
) -> int:
    qd.loop_config(serialize=True)
    for i in range(1, a.shape[0] + 1):
        for j in range(1, b.shape[0] + 1):
            if a[i - 1] == b[j - 1]:
                dp[i, j] = dp[i - 1, j - 1] + 1
            else:
                dp[i, j] = qd.max(dp[i - 1, j], dp[i, j - 1])
    return dp[a.shape[0], b.shape[0]]



if __name__ == '__main__':
    rng = np.random.RandomState(0)
    a = rng.randint(0, 4, 2000).astype(np.int32)
    b = rng.randint(0, 4, 1800).astype(np.int32)
    print('checksum lcs_2000_1800', lcs(a, b))
    c = rng.randint(0, 4, 300).astype(np.int32)
    d = rng.randint(0, 4, 3000).astype(np.int32)
    print('checksum lcs_300_3000', lcs(c, d))
    print('checksum dp_sum', int(dp.to_numpy().astype(np.int64).sum()))
