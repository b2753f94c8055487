# corpus: quadrants_ex_minimal
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 python/quadrants/examples/minimal.py
# license: Apache-2.0
# area: misc
# port: verbatim; print of the array replaced by checksum lines
import quadrants as qd


@qd.kernel
def lcg_ti(B: int, lcg_its: int, a: qd.types.NDArray[qd.i32, 1]) -> None:
    """
    Linear congruential generator https://en.wikipedia.org/wiki/Linear_congruential_generator
    """
    for i in range(B):
        x = a[i]
        for j in range(lcg_its):
            x = (1664525 * x + 1013904223) % 2147483647
        a[i] = x


def main() -> None:
    qd.init(arch=qd.cpu)

    B = 10
    lcg_its = 10

    a = qd.ndarray(qd.int32, (B,))

    lcg_ti(B, lcg_its, a)
    arr = a.to_numpy()
    print("checksum sum", int(arr.astype("int64").sum()))
    print("checksum values", " ".join(str(int(v)) for v in arr))


main()
