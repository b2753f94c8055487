# corpus: difftaichi_diffmpm_simple
# source: github:taichi-dev/difftaichi@9f4ee522a0a01e6b1aae1d3551c7fd1f6ed56081 examples/diffmpm_simple.py
# license: NOASSERTION
# area: mpm
# port: ti->qd; cpu_max_num_threads=1 added to qd.init (float atomics made two Quadrants runs differ); qd.init(arch=qd.cpu) keeping default_fp (arch cuda->cpu, device_memory_GB dropped: GPU-only); optimisation iterations 30->2; steps 1024->256 (time); ti.GUI replaced by a no-op stub; matplotlib stubbed; checksum lines added
import quadrants as qd


class _GUIStub:  # stand-in for qd.GUI: drawing is ignored

    running = True

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _rgb_to_hex(c):  # stand-in for ti.rgb_to_hex (GUI colours only)
    return 0


class _PltStub:  # stand-in for matplotlib.pyplot: plotting is ignored

    def __getattr__(self, name):
        return lambda *args, **kwargs: _PltStub()


plt = _PltStub()

real = qd.f32
qd.init(arch=qd.cpu, default_fp=real, cpu_max_num_threads=1)

dim = 2
N = 60  # reduce to 30 if run out of GPU memory
n_particles = N * N
n_grid = 120
dx = 1 / n_grid
inv_dx = 1 / dx
dt = 3e-4
p_mass = 1
p_vol = 1
E = 100
mu = E
la = E
max_steps = 1024
steps = 256
gravity = 9.8
target = [0.3, 0.6]

scalar = lambda: qd.field(dtype=real)
vec = lambda: qd.Vector.field(dim, dtype=real)
mat = lambda: qd.Matrix.field(dim, dim, dtype=real)

x = qd.Vector.field(dim,
                    dtype=real,
                    shape=(max_steps, n_particles),
                    needs_grad=True)
x_avg = qd.Vector.field(dim, dtype=real, shape=(), needs_grad=True)
v = qd.Vector.field(dim,
                    dtype=real,
                    shape=(max_steps, n_particles),
                    needs_grad=True)
grid_v_in = qd.Vector.field(dim,
                            dtype=real,
                            shape=(max_steps, n_grid, n_grid),
                            needs_grad=True)
grid_v_out = qd.Vector.field(dim,
                             dtype=real,
                             shape=(max_steps, n_grid, n_grid),
                             needs_grad=True)
grid_m_in = qd.field(dtype=real,
                     shape=(max_steps, n_grid, n_grid),
                     needs_grad=True)
C = qd.Matrix.field(dim,
                    dim,
                    dtype=real,
                    shape=(max_steps, n_particles),
                    needs_grad=True)
F = qd.Matrix.field(dim,
                    dim,
                    dtype=real,
                    shape=(max_steps, n_particles),
                    needs_grad=True)
init_v = qd.Vector.field(dim, dtype=real, shape=(), needs_grad=True)
loss = qd.field(dtype=real, shape=(), needs_grad=True)


@qd.kernel
def set_v():
    for i in range(n_particles):
        v[0, i] = init_v[None]


@qd.kernel
def p2g(f: qd.i32):
    for p in range(n_particles):
        base = qd.cast(x[f, p] * inv_dx - 0.5, qd.i32)
        fx = x[f, p] * inv_dx - qd.cast(base, qd.i32)
        w = [0.5 * (1.5 - fx)**2, 0.75 - (fx - 1)**2, 0.5 * (fx - 0.5)**2]
        new_F = (qd.Matrix.diag(dim=2, val=1) + dt * C[f, p]) @ F[f, p]
        F[f + 1, p] = new_F
        J = (new_F).determinant()
        r, s = qd.polar_decompose(new_F)
        cauchy = 2 * mu * (new_F - r) @ new_F.transpose() + \
                 qd.Matrix.diag(2, la * (J - 1) * J)
        stress = -(dt * p_vol * 4 * inv_dx * inv_dx) * cauchy
        affine = stress + p_mass * C[f, p]
        for i in qd.static(range(3)):
            for j in qd.static(range(3)):
                offset = qd.Vector([i, j])
                dpos = (qd.cast(qd.Vector([i, j]), real) - fx) * dx
                weight = w[i][0] * w[j][1]
                grid_v_in[f, base + offset] += weight * (p_mass * v[f, p] +
                                                         affine @ dpos)
                grid_m_in[f, base + offset] += weight * p_mass


bound = 3


@qd.kernel
def grid_op(f: qd.i32):
    for i, j in qd.ndrange(n_grid, n_grid):
        inv_m = 1 / (grid_m_in[f, i, j] + 1e-10)
        v_out = inv_m * grid_v_in[f, i, j]
        v_out[1] -= dt * gravity
        if i < bound and v_out[0] < 0:
            v_out[0] = 0
        if i > n_grid - bound and v_out[0] > 0:
            v_out[0] = 0
        if j < bound and v_out[1] < 0:
            v_out[1] = 0
        if j > n_grid - bound and v_out[1] > 0:
            v_out[1] = 0
        grid_v_out[f, i, j] = v_out


@qd.kernel
def g2p(f: qd.i32):
    for p in range(n_particles):
        base = qd.cast(x[f, p] * inv_dx - 0.5, qd.i32)
        fx = x[f, p] * inv_dx - qd.cast(base, real)
        w = [0.5 * (1.5 - fx)**2, 0.75 - (fx - 1.0)**2, 0.5 * (fx - 0.5)**2]
        new_v = qd.Vector([0.0, 0.0])
        new_C = qd.Matrix([[0.0, 0.0], [0.0, 0.0]])

        for i in qd.static(range(3)):
            for j in qd.static(range(3)):
                dpos = qd.cast(qd.Vector([i, j]), real) - fx
                g_v = grid_v_out[f, base[0] + i, base[1] + j]
                weight = w[i][0] * w[j][1]
                new_v += weight * g_v
                new_C += 4 * weight * g_v.outer_product(dpos) * inv_dx

        v[f + 1, p] = new_v
        x[f + 1, p] = x[f, p] + dt * v[f + 1, p]
        C[f + 1, p] = new_C


@qd.kernel
def compute_x_avg():
    for i in range(n_particles):
        x_avg[None] += (1 / n_particles) * x[steps - 1, i]


@qd.kernel
def compute_loss():
    dist = (x_avg[None] - qd.Vector(target))**2
    loss[None] = 0.5 * (dist[0] + dist[1])


def substep(s):
    p2g(s)
    grid_op(s)
    g2p(s)


# initialization
init_v[None] = [0, 0]

for i in range(n_particles):
    F[0, i] = [[1, 0], [0, 1]]

for i in range(N):
    for j in range(N):
        x[0, i * N + j] = [dx * (i * 0.7 + 10), dx * (j * 0.7 + 25)]

set_v()

losses = []
img_count = 0

gui = _GUIStub()  # was qd.GUI(...)
for i in range(2):
    grid_v_in.fill(0)
    grid_m_in.fill(0)

    x_avg[None] = [0, 0]
    with qd.ad.Tape(loss=loss):
        set_v()
        for s in range(steps - 1):
            substep(s)

        compute_x_avg()
        compute_loss()

    l = loss[None]
    losses.append(l)
    grad = init_v.grad[None]
    print('loss=', l, '   grad=', (grad[0], grad[1]))
    learning_rate = 10
    init_v[None][0] -= learning_rate * grad[0]
    init_v[None][1] -= learning_rate * grad[1]

    # visualize
    x_np = x.to_numpy()
    for s in range(15, steps, 16):
        scale = 4
        gui.circles(x_np[s], color=0x112233, radius=1.5)
        gui.circle(target, radius=5, color=0xFFFFFF)
        img_count += 1
        gui.show()

plt.title("Optimization of Initial Velocity")
plt.ylabel("Loss")
plt.xlabel("Gradient Descent Iterations")
plt.plot(losses)
plt.show()

import numpy as np
print('checksum final_loss', repr(float(loss[None])))
print('checksum losses_sum', repr(float(sum(losses))))
print('checksum init_v_0', repr(float(init_v[None][0])))
print('checksum init_v_1', repr(float(init_v[None][1])))
print('checksum x_last_abs_sum', repr(float(np.abs(x.to_numpy()[steps - 1]).sum())))
