# corpus: taichi_ad_gravity
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/simulation/ad_gravity.py
# license: Apache-2.0
# area: autodiff
# port: ti->qd; arch=qd.cpu, cpu_max_num_threads=1 (float atomics in a deterministic order); qd.random() in init() replaced by the numpy-seeded init_rand field; GUI loop replaced by 10 frames of 50 substeps; checksum lines added
import numpy as np
import quadrants as qd

qd.init(arch=qd.cpu, cpu_max_num_threads=1)

N = 8
dt = 1e-5

x = qd.Vector.field(2, dtype=qd.f32, shape=N, needs_grad=True)  # particle positions
v = qd.Vector.field(2, dtype=qd.f32, shape=N)  # particle velocities
U = qd.field(dtype=qd.f32, shape=(), needs_grad=True)  # potential energy


@qd.kernel
def compute_U():
    for i, j in qd.ndrange(N, N):
        r = x[i] - x[j]
        # r.norm(1e-3) is equivalent to qd.sqrt(r.norm()**2 + 1e-3)
        # This is to prevent 1/0 error which can cause wrong derivative
        U[None] += -1 / r.norm(1e-3)  # U += -1 / |r|


@qd.kernel
def advance():
    for i in x:
        v[i] += dt * -x.grad[i]  # dv/dt = -dU/dx
    for i in x:
        x[i] += dt * v[i]  # dx/dt = v


def substep():
    with qd.ad.Tape(loss=U):
        # Kernel invocations in this scope will later contribute to partial derivatives of
        # U with respect to input variables such as x.
        compute_U()  # The tape will automatically compute dU/dx and save the results in x.grad
    advance()


init_rand = qd.field(float, (N, 2))
init_rand.from_numpy(np.random.default_rng(0).random((N, 2), dtype=np.float32))


@qd.kernel
def init():
    for i in x:
        x[i] = [init_rand[i, 0], init_rand[i, 1]]


def main():
    init()
    for frame in range(10):
        for i in range(50):
            substep()
    xs, vs = x.to_numpy().astype(np.float64), v.to_numpy().astype(np.float64)
    print("checksum x_sum", float(xs.sum()))
    print("checksum v_abs_sum", float(np.abs(vs).sum()))
    print("checksum U", float(U[None]))
    print("checksum x_grad_abs_sum", float(np.abs(x.grad.to_numpy().astype(np.float64)).sum()))


if __name__ == "__main__":
    main()
