# corpus: taichi_implicit_mass_spring
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/simulation/implicit_mass_spring.py
# license: Apache-2.0
# area: cloth
# port: ti->qd; arch=qd.cpu (both branches), cpu_max_num_threads=1 (float atomics in a deterministic order); GUI/GGUI loop replaced by 200 updates; checksum lines added
# https://www.cs.cmu.edu/~baraff/papers/sig98.pdf
import argparse

import numpy as np

import quadrants as qd


@qd.data_oriented
class Cloth:
    def __init__(self, N):
        self.N = N
        self.NF = 2 * N**2  # number of faces
        self.NV = (N + 1) ** 2  # number of vertices
        self.NE = 2 * N * (N + 1) + 2 * N * N  # numbser of edges
        self.pos = qd.Vector.field(2, qd.f32, self.NV)
        self.initPos = qd.Vector.field(2, qd.f32, self.NV)
        self.vel = qd.Vector.field(2, qd.f32, self.NV)
        self.force = qd.Vector.field(2, qd.f32, self.NV)
        self.mass = qd.field(qd.f32, self.NV)
        self.vel_1D = qd.ndarray(qd.f32, 2 * self.NV)
        self.force_1D = qd.ndarray(qd.f32, 2 * self.NV)
        self.b = qd.ndarray(qd.f32, 2 * self.NV)

        self.spring = qd.Vector.field(2, qd.i32, self.NE)
        self.indices = qd.field(qd.i32, 2 * self.NE)
        self.Jx = qd.Matrix.field(2, 2, qd.f32, self.NE)  # Jacobian with respect to position
        self.Jv = qd.Matrix.field(2, 2, qd.f32, self.NE)  # Jacobian with respect to velocity
        self.rest_len = qd.field(qd.f32, self.NE)
        self.ks = 1000.0  # spring stiffness
        self.kd = 0.5  # damping constant
        self.kf = 1.0e5  # fix point stiffness

        self.gravity = qd.Vector([0.0, -2.0])
        self.init_pos()
        self.init_edges()
        self.MassBuilder = qd.linalg.SparseMatrixBuilder(2 * self.NV, 2 * self.NV, max_num_triplets=10000)
        self.DBuilder = qd.linalg.SparseMatrixBuilder(2 * self.NV, 2 * self.NV, max_num_triplets=10000)
        self.KBuilder = qd.linalg.SparseMatrixBuilder(2 * self.NV, 2 * self.NV, max_num_triplets=10000)
        self.init_mass_sp(self.MassBuilder)
        self.M = self.MassBuilder.build()
        self.fix_vertex = [self.N, self.NV - 1]
        self.Jf = qd.Matrix.field(2, 2, qd.f32, len(self.fix_vertex))  # fix constraint hessian

    @qd.kernel
    def init_pos(self):
        for i, j in qd.ndrange(self.N + 1, self.N + 1):
            k = i * (self.N + 1) + j
            self.pos[k] = qd.Vector([i, j]) / self.N * 0.5 + qd.Vector([0.25, 0.25])
            self.initPos[k] = self.pos[k]
            self.vel[k] = qd.Vector([0, 0])
            self.mass[k] = 1.0

    @qd.kernel
    def init_edges(self):
        pos, spring, N, rest_len = qd.static(self.pos, self.spring, self.N, self.rest_len)
        for i, j in qd.ndrange(N + 1, N):
            idx, idx1 = i * N + j, i * (N + 1) + j
            spring[idx] = qd.Vector([idx1, idx1 + 1])
            rest_len[idx] = (pos[idx1] - pos[idx1 + 1]).norm()
        start = N * (N + 1)
        for i, j in qd.ndrange(N, N + 1):
            idx, idx1, idx2 = (
                start + i + j * N,
                i * (N + 1) + j,
                i * (N + 1) + j + N + 1,
            )
            spring[idx] = qd.Vector([idx1, idx2])
            rest_len[idx] = (pos[idx1] - pos[idx2]).norm()
        start = 2 * N * (N + 1)
        for i, j in qd.ndrange(N, N):
            idx, idx1, idx2 = (
                start + i * N + j,
                i * (N + 1) + j,
                (i + 1) * (N + 1) + j + 1,
            )
            spring[idx] = qd.Vector([idx1, idx2])
            rest_len[idx] = (pos[idx1] - pos[idx2]).norm()
        start = 2 * N * (N + 1) + N * N
        for i, j in qd.ndrange(N, N):
            idx, idx1, idx2 = (
                start + i * N + j,
                i * (N + 1) + j + 1,
                (i + 1) * (N + 1) + j,
            )
            spring[idx] = qd.Vector([idx1, idx2])
            rest_len[idx] = (pos[idx1] - pos[idx2]).norm()

    @qd.kernel
    def init_mass_sp(self, M: qd.types.sparse_matrix_builder()):
        for i in range(self.NV):
            mass = self.mass[i]
            M[2 * i + 0, 2 * i + 0] += mass
            M[2 * i + 1, 2 * i + 1] += mass

    @qd.func
    def clear_force(self):
        for i in self.force:
            self.force[i] = qd.Vector([0.0, 0.0])

    @qd.kernel
    def compute_force(self):
        self.clear_force()
        for i in self.force:
            self.force[i] += self.gravity * self.mass[i]

        for i in self.spring:
            idx1, idx2 = self.spring[i][0], self.spring[i][1]
            pos1, pos2 = self.pos[idx1], self.pos[idx2]
            dis = pos2 - pos1
            force = self.ks * (dis.norm() - self.rest_len[i]) * dis.normalized()
            self.force[idx1] += force
            self.force[idx2] -= force
        # fix constraint gradient
        self.force[self.N] += self.kf * (self.initPos[self.N] - self.pos[self.N])
        self.force[self.NV - 1] += self.kf * (self.initPos[self.NV - 1] - self.pos[self.NV - 1])

    @qd.kernel
    def compute_Jacobians(self):
        for i in self.spring:
            idx1, idx2 = self.spring[i][0], self.spring[i][1]
            pos1, pos2 = self.pos[idx1], self.pos[idx2]
            dx = pos1 - pos2
            I = qd.Matrix([[1.0, 0.0], [0.0, 1.0]])
            dxtdx = qd.Matrix([[dx[0] * dx[0], dx[0] * dx[1]], [dx[1] * dx[0], dx[1] * dx[1]]])
            l = dx.norm()
            if l != 0.0:
                l = 1.0 / l
            self.Jx[i] = (I - self.rest_len[i] * l * (I - dxtdx * l**2)) * self.ks
            self.Jv[i] = self.kd * I

        # fix point constraint hessian
        self.Jf[0] = qd.Matrix([[-self.kf, 0], [0, -self.kf]])
        self.Jf[1] = qd.Matrix([[-self.kf, 0], [0, -self.kf]])

    @qd.kernel
    def assemble_K(self, K: qd.types.sparse_matrix_builder()):
        for i in self.spring:
            idx1, idx2 = self.spring[i][0], self.spring[i][1]
            for m, n in qd.static(qd.ndrange(2, 2)):
                K[2 * idx1 + m, 2 * idx1 + n] -= self.Jx[i][m, n]
                K[2 * idx1 + m, 2 * idx2 + n] += self.Jx[i][m, n]
                K[2 * idx2 + m, 2 * idx1 + n] += self.Jx[i][m, n]
                K[2 * idx2 + m, 2 * idx2 + n] -= self.Jx[i][m, n]
        for m, n in qd.static(qd.ndrange(2, 2)):
            K[2 * self.N + m, 2 * self.N + n] += self.Jf[0][m, n]
            K[2 * (self.NV - 1) + m, 2 * (self.NV - 1) + n] += self.Jf[1][m, n]

    @qd.kernel
    def assemble_D(self, D: qd.types.sparse_matrix_builder()):
        for i in self.spring:
            idx1, idx2 = self.spring[i][0], self.spring[i][1]
            for m, n in qd.static(qd.ndrange(2, 2)):
                D[2 * idx1 + m, 2 * idx1 + n] -= self.Jv[i][m, n]
                D[2 * idx1 + m, 2 * idx2 + n] += self.Jv[i][m, n]
                D[2 * idx2 + m, 2 * idx1 + n] += self.Jv[i][m, n]
                D[2 * idx2 + m, 2 * idx2 + n] -= self.Jv[i][m, n]

    @qd.kernel
    def updatePosVel(self, h: qd.f32, dv: qd.types.ndarray()):
        for i in self.pos:
            self.vel[i] += qd.Vector([dv[2 * i], dv[2 * i + 1]])
            self.pos[i] += h * self.vel[i]

    @qd.kernel
    def copy_to(self, des: qd.types.ndarray(), source: qd.template()):
        for i in range(self.NV):
            des[2 * i] = source[i][0]
            des[2 * i + 1] = source[i][1]

    @qd.kernel
    def compute_b(
        self,
        b: qd.types.ndarray(),
        f: qd.types.ndarray(),
        Kv: qd.types.ndarray(),
        h: qd.f32,
    ):
        for i in range(2 * self.NV):
            b[i] = (f[i] + Kv[i] * h) * h

    def update(self, h):
        self.compute_force()

        self.compute_Jacobians()
        # Assemble global system

        self.assemble_D(self.DBuilder)
        D = self.DBuilder.build()

        self.assemble_K(self.KBuilder)
        K = self.KBuilder.build()

        A = self.M - h * D - h**2 * K

        self.copy_to(self.vel_1D, self.vel)
        self.copy_to(self.force_1D, self.force)

        # b = (force + h * K @ vel) * h
        Kv = K @ self.vel_1D
        self.compute_b(self.b, self.force_1D, Kv, h)

        # Sparse solver
        solver = qd.linalg.SparseSolver(solver_type="LDLT")
        solver.analyze_pattern(A)
        solver.factorize(A)
        # Solve the linear system
        dv = solver.solve(self.b)
        self.updatePosVel(h, dv)

    def display(self, gui, radius=5, color=0xFFFFFF):
        lines = self.spring.to_numpy()
        pos = self.pos.to_numpy()
        edgeBegin = np.zeros(shape=(lines.shape[0], 2))
        edgeEnd = np.zeros(shape=(lines.shape[0], 2))
        for i in range(lines.shape[0]):
            idx1, idx2 = lines[i][0], lines[i][1]
            edgeBegin[i] = pos[idx1]
            edgeEnd[i] = pos[idx2]
        gui.lines(edgeBegin, edgeEnd, radius=2, color=0x0000FF)
        gui.circles(self.pos.to_numpy(), radius, color)

    @qd.kernel
    def spring2indices(self):
        for i in self.spring:
            self.indices[2 * i + 0] = self.spring[i][0]
            self.indices[2 * i + 1] = self.spring[i][1]

    def displayGGUI(self, canvas, radius=0.01, color=(1.0, 1.0, 1.0)):
        self.spring2indices()
        canvas.lines(self.pos, width=0.005, indices=self.indices, color=(0.0, 0.0, 1.0))
        canvas.circles(self.pos, radius, color)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-g", "--use-ggui", action="store_true", help="Display with GGUI")
    parser.add_argument(
        "-a",
        "--arch",
        required=False,
        default="cpu",
        dest="arch",
        type=str,
        help="The arch (backend) to run this example on",
    )
    args, unknowns = parser.parse_known_args()
    arch = args.arch
    if arch in ["x64", "cpu", "arm64"]:
        qd.init(arch=qd.cpu, cpu_max_num_threads=1)
    elif arch in ["cuda", "gpu"]:
        qd.init(arch=qd.cpu, cpu_max_num_threads=1)
    else:
        raise ValueError("Only CPU and CUDA backends are supported for now.")

    h = 0.01
    pause = False
    cloth = Cloth(N=5)
    for frame in range(200):
        cloth.update(h)
    ps, vs = cloth.pos.to_numpy().astype(np.float64), cloth.vel.to_numpy().astype(np.float64)
    print("checksum pos_sum", float(ps.sum()))
    print("checksum vel_abs_sum", float(np.abs(vs).sum()))
    print("checksum pos_last", float(ps[-1].sum()))


if __name__ == "__main__":
    main()
