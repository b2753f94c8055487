# corpus: difftaichi_smoke
# source: github:taichi-dev/difftaichi@9f4ee522a0a01e6b1aae1d3551c7fd1f6ed56081 examples/smoke_taichi_cpu.py
# license: NOASSERTION
# area: fluids
# port: ti->qd; cpu_max_num_threads=1 added to qd.init (float atomics made two Quadrants runs differ); qd.init(arch=qd.cpu) keeping default_fp, plus ad_stack_experimental_enabled=True (Quadrants refuses non-static inner ranges in reverse mode without it; Taichi had the adstack on); init_smoke.png/peace.png (imageio) replaced by deterministic numpy stand-ins of the same role (a smoke disc, a target ring); argparse replaced by fixed iters=3; cv2 display/file output and os.makedirs removed (output frames not written); wall-clock timing prints removed; checksum lines added
import quadrants as qd
import argparse
import time
import numpy as np
import os

real = qd.f32
qd.init(arch=qd.cpu, default_fp=real, ad_stack_experimental_enabled=True, cpu_max_num_threads=1)

n_grid = 110
dx = 1.0 / n_grid
num_iterations_gauss_seidel = 6
p_dims = num_iterations_gauss_seidel + 1
steps = 100
learning_rate = 100

scalar = lambda: qd.field(dtype=real)
vector = lambda: qd.Vector.field(2, dtype=real)

v = vector()
div = scalar()
p = scalar()
v_updated = vector()
target = scalar()
smoke = scalar()
loss = scalar()

qd.root.dense(qd.i, steps * p_dims).dense(qd.jk, n_grid).place(p)
qd.root.dense(qd.i, steps * p_dims).dense(qd.jk, n_grid).place(p.grad)
block = qd.root.dense(qd.i, steps)


def soa(x):
    if isinstance(x, qd.ScalarField):
        block.dense(qd.jk, n_grid).place(x)
        # block.dense(qd.ij, n_grid).place(x.grad)
    else:
        for i in range(x.n):
            soa(x.get_scalar_field(i))


soa(v)
soa(v_updated)
soa(smoke)
soa(div)
qd.root.dense(qd.ij, n_grid).place(target)
qd.root.place(loss)
qd.root.lazy_grad()


# Integer modulo operator for positive values of n
@qd.func
def imod(n, divisor):
    ret = n % divisor
    if ret < 0:
        ret += divisor
    return ret


@qd.func
def dec_index(index):
    new_index = index - 1
    if new_index < 0:
        new_index = n_grid - 1
    return new_index


@qd.func
def inc_index(index):
    new_index = index + 1
    if new_index >= n_grid:
        new_index = 0
    return new_index


@qd.kernel
def compute_div(t: qd.i32):
    for y, x in qd.ndrange(n_grid, n_grid):
        div[t, y, x] = -0.5 * dx * (v_updated[t, inc_index(y), x][0] -
                                    v_updated[t, dec_index(y), x][0] +
                                    v_updated[t, y, inc_index(x)][1] -
                                    v_updated[t, y, dec_index(x)][1])


@qd.kernel
def compute_p(t: qd.i32, k: qd.template()):
    for y, x in qd.ndrange(n_grid, n_grid):
        a = k + t * num_iterations_gauss_seidel
        next_p = (div[t, y, x] + \
                  p[a, dec_index(y), x] +
                  p[a, inc_index(y), x] +
                  p[a, y, dec_index(x)] + \
                  p[a, y, inc_index(x)]) / 4.0
        p[a + 1, y, x] = next_p


@qd.kernel
def update_v(t: qd.i32):
    for y in range(n_grid):
        for x in range(n_grid):
            a = num_iterations_gauss_seidel * t - 1
            v[t, y, x][0] = v_updated[t, y, x][0] - 0.5 * (
                p[a, inc_index(y), x] - p[a, dec_index(y), x]) / dx
            v[t, y, x][1] = v_updated[t, y, x][1] - 0.5 * (
                p[a, y, inc_index(x)] - p[a, y, dec_index(x)]) / dx


@qd.kernel
def advect(field: qd.template(), field_out: qd.template(),
           t_offset: qd.template(), t: qd.i32):
    """Move field smoke according to x and y velocities (vx and vy)
     using an implicit Euler integrator."""
    for y in range(n_grid):
        for x in range(n_grid):
            center_x = y - v[t + t_offset, y, x][0]
            center_y = x - v[t + t_offset, y, x][1]

            # Compute indices of source cell
            left_ix = qd.cast(qd.floor(center_x), qd.i32)
            top_ix = qd.cast(qd.floor(center_y), qd.i32)

            rw = center_x - left_ix  # Relative weight of right-hand cell
            bw = center_y - top_ix  # Relative weight of bottom cell

            # Wrap around edges
            # TODO: implement mod (%) operator
            left_ix = imod(left_ix, n_grid)
            right_ix = inc_index(left_ix)
            top_ix = imod(top_ix, n_grid)
            bot_ix = inc_index(top_ix)

            # Linearly-weighted sum of the 4 surrounding cells
            field_out[t, y, x] = (1 - rw) * (
                (1 - bw) * field[t - 1, left_ix, top_ix] +
                bw * field[t - 1, left_ix, bot_ix]) + rw * (
                    (1 - bw) * field[t - 1, right_ix, top_ix] +
                    bw * field[t - 1, right_ix, bot_ix])


@qd.kernel
def compute_loss():
    for i, j in qd.ndrange(n_grid, n_grid):
        v = (target[i, j] - smoke[steps - 1, i, j])**2 * (1 / n_grid**2)
        qd.atomic_add(loss[None], v)


@qd.kernel
def apply_grad():
    # gradient descent
    for i, j in qd.ndrange(n_grid, n_grid):
        v[0, i, j] -= learning_rate * v.grad[0, i, j]


@qd.ad.no_grad
@qd.kernel
def copy_smoke(t: qd.i32, arr: qd.types.ndarray()):
    for i, j in qd.ndrange(n_grid, n_grid):
        arr[i, j] = smoke[t, i, j]


def forward(output=None):
    T = time.time()
    for t in range(1, steps):
        advect(v, v_updated, -1, t)

        compute_div(t)
        for k in range(num_iterations_gauss_seidel):
            compute_p(t, k)

        update_v(t)
        advect(smoke, smoke, 0, t)

    compute_loss()


def main():
    options = argparse.Namespace(iters=3)

    print("Loading initial and target states...")
    # stand-ins for init_smoke.png and peace.png (deterministic)
    yy, xx = np.mgrid[0:n_grid, 0:n_grid] / n_grid
    initial_smoke_img = ((xx - 0.5)**2 + (yy - 0.3)**2 < 0.04).astype(np.float64)
    rr = np.sqrt((xx - 0.5)**2 + (yy - 0.55)**2)
    target_img = ((rr > 0.15) & (rr < 0.25)).astype(np.float64)

    for i in range(n_grid):
        for j in range(n_grid):
            target[i, j] = target_img[i, j]
            smoke[0, i, j] = initial_smoke_img[i, j]

    for opt in range(options.iters):
        t = time.time()
        with qd.ad.Tape(loss):
            output = "test" if opt % 10 == 9 else None
            forward(output)

        print('Iter', opt, ' Loss =', loss[None])
        apply_grad()

    forward("output")
    print('checksum final_loss', repr(float(loss[None])))
    sm = smoke.to_numpy()
    print('checksum smoke0_sum', repr(float(sm[0].sum())))
    print('checksum smoke_last_sum', repr(float(sm[steps - 1].sum())))
    print('checksum smoke_last_sample', repr(float(sm[steps - 1, 55, 55])))


if __name__ == '__main__':
    main()
