# corpus: taichi_fem128
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/simulation/fem128.py
# license: Apache-2.0
# area: fem
# port: ti->qd; arch=qd.cpu, cpu_max_num_threads=1 (float atomics in a deterministic order); GUI loop (keys, mouse) replaced by 8 frames of 50 steps, attractor at (0.6, 0.5) with strength 1 in frames 2-4, gravity [0,-1]; paint_phi (GUI) removed; checksum lines added
import numpy as np
import quadrants as qd

qd.init(arch=qd.cpu, cpu_max_num_threads=1)

N = 12
dt = 5e-5
dx = 1 / N
rho = 4e1
NF = 2 * N**2  # number of faces
NV = (N + 1) ** 2  # number of vertices
E, nu = 4e4, 0.2  # Young's modulus and Poisson's ratio
mu, lam = E / 2 / (1 + nu), E * nu / (1 + nu) / (1 - 2 * nu)  # Lame parameters
ball_pos, ball_radius = qd.Vector([0.5, 0.0]), 0.31
damping = 14.5

pos = qd.Vector.field(2, float, NV, needs_grad=True)
vel = qd.Vector.field(2, float, NV)
f2v = qd.Vector.field(3, int, NF)  # ids of three vertices of each face
B = qd.Matrix.field(2, 2, float, NF)
F = qd.Matrix.field(2, 2, float, NF, needs_grad=True)
V = qd.field(float, NF)
phi = qd.field(float, NF)  # potential energy of each face (Neo-Hookean)
U = qd.field(float, (), needs_grad=True)  # total potential energy

gravity = qd.Vector.field(2, float, ())
attractor_pos = qd.Vector.field(2, float, ())
attractor_strength = qd.field(float, ())


@qd.kernel
def update_U():
    for i in range(NF):
        ia, ib, ic = f2v[i]
        a, b, c = pos[ia], pos[ib], pos[ic]
        V[i] = abs((a - c).cross(b - c))
        D_i = qd.Matrix.cols([a - c, b - c])
        F[i] = D_i @ B[i]
    for i in range(NF):
        F_i = F[i]
        log_J_i = qd.log(F_i.determinant())
        phi_i = mu / 2 * ((F_i.transpose() @ F_i).trace() - 2)
        phi_i -= mu * log_J_i
        phi_i += lam / 2 * log_J_i**2
        phi[i] = phi_i
        U[None] += V[i] * phi_i


@qd.kernel
def advance():
    for i in range(NV):
        acc = -pos.grad[i] / (rho * dx**2)
        g = gravity[None] * 0.8 + attractor_strength[None] * (attractor_pos[None] - pos[i]).normalized(1e-5)
        vel[i] += dt * (acc + g * 40)
        vel[i] *= qd.exp(-dt * damping)
    for i in range(NV):
        # ball boundary condition:
        disp = pos[i] - ball_pos
        disp2 = disp.norm_sqr()
        if disp2 <= ball_radius**2:
            NoV = vel[i].dot(disp)
            if NoV < 0:
                vel[i] -= NoV * disp / disp2
        cond = (pos[i] < 0) & (vel[i] < 0) | (pos[i] > 1) & (vel[i] > 0)
        # rect boundary condition:
        for j in qd.static(range(pos.n)):
            if cond[j]:
                vel[i][j] = 0
        pos[i] += dt * vel[i]


@qd.kernel
def init_pos():
    for i, j in qd.ndrange(N + 1, N + 1):
        k = i * (N + 1) + j
        pos[k] = qd.Vector([i, j]) / N * 0.25 + qd.Vector([0.45, 0.45])
        vel[k] = qd.Vector([0, 0])
    for i in range(NF):
        ia, ib, ic = f2v[i]
        a, b, c = pos[ia], pos[ib], pos[ic]
        B_i_inv = qd.Matrix.cols([a - c, b - c])
        B[i] = B_i_inv.inverse()


@qd.kernel
def init_mesh():
    for i, j in qd.ndrange(N, N):
        k = (i * N + j) * 2
        a = i * (N + 1) + j
        b = a + 1
        c = a + N + 2
        d = a + N + 1
        f2v[k + 0] = [a, b, c]
        f2v[k + 1] = [c, d, a]


def paint_phi(gui):
    pos_ = pos.to_numpy()
    phi_ = phi.to_numpy()
    f2v_ = f2v.to_numpy()
    a, b, c = pos_[f2v_[:, 0]], pos_[f2v_[:, 1]], pos_[f2v_[:, 2]]
    k = phi_ * (10 / E)
    gb = (1 - k) * 0.5
    gui.triangles(a, b, c, color=qd.rgb_to_hex([k + gb, gb, gb]))


def main():
    init_mesh()
    init_pos()
    gravity[None] = [0, -1]

    for frame in range(8):
        attractor_pos[None] = [0.6, 0.5]
        attractor_strength[None] = 1 if 2 <= frame < 5 else 0
        for i in range(50):
            with qd.ad.Tape(loss=U):
                update_U()
            advance()
    ps, vs = pos.to_numpy().astype(np.float64), vel.to_numpy().astype(np.float64)
    print("checksum pos_sum", float(ps.sum()))
    print("checksum vel_abs_sum", float(np.abs(vs).sum()))
    print("checksum U", float(U[None]))
    print("checksum phi_sum", float(phi.to_numpy().astype(np.float64).sum()))


if __name__ == "__main__":
    main()
