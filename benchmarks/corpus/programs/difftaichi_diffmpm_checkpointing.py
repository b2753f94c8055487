# corpus: difftaichi_diffmpm_checkpointing
# source: github:taichi-dev/difftaichi@9f4ee522a0a01e6b1aae1d3551c7fd1f6ed56081 examples/diffmpm_checkpointing.py
# license: NOASSERTION
# area: autodiff
# port: ti->qd; cpu_max_num_threads=1 added to qd.init (float atomics made two Quadrants runs differ); qd.init(arch=qd.cpu) keeping default_fp (arch cuda->cpu); argparse replaced by fixed iters=2; steps 1024->128 (time); the cv2 visualisation block (python image drawing + imshow) removed; matplotlib stubbed; checksum lines added
import quadrants as qd
import argparse
import numpy as np
class _PltStub:  # stand-in for matplotlib.pyplot: plotting is ignored

    def __getattr__(self, name):
        return lambda *args, **kwargs: _PltStub()


plt = _PltStub()

real = qd.f32
qd.init(default_fp=real, arch=qd.cpu, cpu_max_num_threads=1)

dim = 2
n_particles = 6400
N = 80
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
steps = 128
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
                            shape=(n_grid, n_grid),
                            needs_grad=True)
grid_v_out = qd.Vector.field(dim,
                             dtype=real,
                             shape=(n_grid, n_grid),
                             needs_grad=True)
grid_m_in = qd.field(dtype=real, shape=(n_grid, n_grid), needs_grad=True)
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
def clear_grid():
    for i, j in grid_m_in:
        grid_v_in[i, j] = [0, 0]
        grid_m_in[i, j] = 0
        grid_v_in.grad[i, j] = [0, 0]
        grid_m_in.grad[i, j] = 0
        grid_v_out.grad[i, j] = [0, 0]


@qd.kernel
def p2g(f: qd.i32):
    for p in range(0, n_particles):
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
                grid_v_in[base + offset] += weight * (p_mass * v[f, p] +
                                                      affine @ dpos)
                grid_m_in[base + offset] += weight * p_mass


bound = 3


@qd.kernel
def grid_op():
    for p in range(n_grid * n_grid):
        i = p // n_grid
        j = p - n_grid * i
        inv_m = 1 / (grid_m_in[i, j] + 1e-10)
        v_out = inv_m * grid_v_in[i, j]
        v_out[1] -= dt * gravity
        if i < bound and v_out[0] < 0:
            v_out[0] = 0
        if i > n_grid - bound and v_out[0] > 0:
            v_out[0] = 0
        if j < bound and v_out[1] < 0:
            v_out[1] = 0
        if j > n_grid - bound and v_out[1] > 0:
            v_out[1] = 0
        grid_v_out[i, j] = v_out


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
                g_v = grid_v_out[base[0] + i, base[1] + j]
                weight = w[i][0] * w[j][1]
                new_v += weight * g_v
                new_C += 4 * weight * g_v.outer_product(dpos) * inv_dx

        v[f + 1, p] = new_v
        x[f + 1, p] = x[f, p] + dt * v[f + 1, p]
        C[f + 1, p] = new_C


@qd.kernel
def compute_x_avg():
    for i in range(n_particles):
        qd.atomic_add(x_avg[None], (1 / n_particles) * x[steps - 1, i])


@qd.kernel
def compute_loss():
    dist = (x_avg[None] - qd.Vector(target))**2
    loss[None] = 0.5 * (dist[0] + dist[1])


@qd.ad.grad_replaced
def substep(s):
    clear_grid()
    p2g(s)
    grid_op()
    g2p(s)


@qd.ad.grad_for(substep)
def substep_grad(s):
    clear_grid()
    p2g(s)
    grid_op()

    g2p.grad(s)
    grid_op.grad()
    p2g.grad(s)


@qd.kernel
def init():
    init_v[None] = [0, 0]

    for i in range(n_particles):
        F[0, i] = [[1, 0], [0, 1]]

    for i, j in qd.ndrange(N, N):
        x[0, i * N + j] = [dx * (i * 0.5 + 10), dx * (j * 0.5 + 25)]

init()
set_v()

losses = []
img_count = 0

options = argparse.Namespace(iters=2)

for i in range(options.iters):
    with qd.ad.Tape(loss=loss):
        set_v()
        for s in range(steps - 1):
            substep(s)

        loss[None] = 0
        x_avg[None] = [0, 0]
        compute_x_avg()
        compute_loss()
    l = loss[None]
    losses.append(l)
    grad = init_v.grad[None]
    print('loss=', l, '   grad=', (grad[0], grad[1]))
    learning_rate = 10
    init_v[None][0] -= learning_rate * grad[0]
    init_v[None][1] -= learning_rate * grad[1]


print('checksum final_loss', repr(float(loss[None])))
print('checksum losses_sum', repr(float(sum(losses))))
print('checksum init_v_0', repr(float(init_v[None][0])))
print('checksum init_v_1', repr(float(init_v[None][1])))
print('checksum x_last_abs_sum', repr(float(np.abs(x.to_numpy()[steps - 1]).sum())))

plt.title("Optimization of Initial Velocity")
plt.ylabel("Loss")
plt.xlabel("Gradient Descent Iterations")
plt.plot(losses)
plt.show()
