# corpus: quadrants_misc_gpu_async
# source: github:Genesis-Embodied-AI/quadrants@009f0a2d27f9d0027976d49aa5401a518deccfc2 misc/test_gpu_async.py
# license: Apache-2.0
# area: misc
# port: arch cuda -> cpu; size 1G -> 1M; timing print per launch dropped; checksum lines added
import quadrants as qd

qd.init(arch=qd.cpu)

a = qd.field(qd.f32, shape=(1024 * 1024))


@qd.kernel
def fill(x: qd.f32):
    for i in a:
        a[i] = x


for i in range(100):
    fill(i)

print("checksum a0", repr(float(a[0])))
print("checksum sum", repr(float(a.to_numpy().astype("float64").sum())))
