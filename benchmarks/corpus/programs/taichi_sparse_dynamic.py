# corpus: taichi_sparse_dynamic
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/features/sparse/taichi_dynamic.py
# license: Apache-2.0
# area: sparse
# port: ti->qd; arch=qd.cpu; checksum lines added
import quadrants as qd

qd.init(arch=qd.cpu)

x = qd.field(qd.i32)
l = qd.field(qd.i32)
n = 16

qd.root.dense(qd.i, n).dynamic(qd.j, n).place(x)
qd.root.dense(qd.i, n).place(l)


@qd.kernel
def make_lists():
    for i in range(n):
        for j in range(i):
            qd.append(x.parent(), i, j * j)
        l[i] = qd.length(x.parent(), i)


def main():
    make_lists()

    for i in range(n):
        assert l[i] == i
        for j in range(n):
            assert x[i, j] == (j * j if j < i else 0)
    print("checksum l_sum", int(l.to_numpy().astype("int64").sum()))
    print("checksum x_sum", int(x.to_numpy().astype("int64").sum()))
    print("checksum x_15_14", int(x[15, 14]))


if __name__ == "__main__":
    main()
