# corpus: taichi_sparse_explicit_activation
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/features/sparse/explicit_activation.py
# license: Apache-2.0
# area: sparse
# port: ti->qd; arch=qd.cpu; checksum lines added: a small added kernel _active(snode, i, j) returning qd.is_active (the program only prints activity from kernels) read after each check_activity call, and x's active-cell count (added kernel _count_x) after sparse_api_demo()
import quadrants as qd

qd.init(arch=qd.cpu)

x = qd.field(dtype=qd.i32)
block1 = qd.root.pointer(qd.ij, (4, 4))
block2 = block1.pointer(qd.ij, (2, 2))
pixel = block2.dense(qd.ij, (2, 2))
pixel.place(x)


@qd.kernel
def sparse_api_demo():
    qd.activate(block1, [0, 1])
    qd.activate(block2, [1, 2])

    for i, j in x:
        print(f"field x[{i}, {j}] = {x[i, j]}")
    # outputs:
    # field x[2, 4] = 0
    # field x[2, 5] = 0
    # field x[3, 4] = 0
    # field x[3, 5] = 0

    for i, j in block2:
        print(f"Active block2: [{i}, {j}]")
    # output: Active block2: [1, 2]

    for i, j in block1:
        print(f"Active block1: [{i}, {j}]")
    # output: Active block1: [0, 1]

    for j in range(4):
        print(f"Activity of block2[2, {j}] = {qd.is_active(block2, [1, j])}")

    qd.deactivate(block2, [1, 2])

    for i, j in block2:
        print(f"Active block2: [{i}, {j}]")
    # output: nothing

    for i, j in block1:
        print(f"Active block1: [{i}, {j}]")
    # output: Active block1: [0, 1]

    print(qd.rescale_index(x, block1, qd.Vector([9, 17])))
    # output = [2, 4]

    # Note: qd.Vector is optional in qd.rescale_index.
    print(qd.rescale_index(x, block1, [9, 17]))
    # output = [2, 4]

    qd.activate(block2, [1, 2])


sparse_api_demo()


@qd.kernel
def _active(snode: qd.template(), i: qd.i32, j: qd.i32) -> qd.i32:
    return qd.is_active(snode, [i, j])


@qd.kernel
def _count_x() -> qd.i32:
    c = 0
    for i, j in x:
        c += 1 + i * 10 + j
    return c


print("checksum x_active_after_demo", int(_count_x()))
print("checksum block1_0_1_after_demo", int(_active(block1, 0, 1)))


@qd.kernel
def check_activity(snode: qd.template(), i: qd.i32, j: qd.i32):
    print(qd.is_active(snode, [i, j]))


check_activity(block2, 1, 2)  # output = 1
print("checksum a1", int(_active(block2, 1, 2)))
block2.deactivate_all()
check_activity(block2, 1, 2)  # output = 0
print("checksum a2", int(_active(block2, 1, 2)))
check_activity(block1, 0, 1)  # output = 1
print("checksum a3", int(_active(block1, 0, 1)))
qd.deactivate_all_snodes()
check_activity(block1, 0, 1)  # output = 0
print("checksum a4", int(_active(block1, 0, 1)))
print("checksum x_active_end", int(_count_x()))
