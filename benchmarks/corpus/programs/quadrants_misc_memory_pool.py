# corpus: quadrants_misc_memory_pool
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 misc/test_memory_pool.py
# license: Apache-2.0
# area: sparse
# port: arch cuda -> cpu (debug=True kept); mask dense 512^3 -> 16^3, pointer 128 -> 4 (so mask covers the pointer grid as before), l 128 -> 8; checksum lines added
import quadrants as qd

qd.init(arch=qd.cpu, debug=True)

res = 16

mask = qd.field(qd.i32)
val = qd.field(qd.f32)

qd.root.dense(qd.ijk, 16).place(mask)
block = qd.root.pointer(qd.ijk, 4).dense(qd.ijk, 4)
block.dense(qd.l, 8).place(val)


@qd.kernel
def load_inputs():
    for i, j, k in mask:
        for l in range(8):
            val[i, j, k, l] = 1


load_inputs()

v = val.to_numpy()
print("checksum val_sum", repr(float(v.sum())))
print("checksum val_shape", " ".join(str(s) for s in v.shape))
