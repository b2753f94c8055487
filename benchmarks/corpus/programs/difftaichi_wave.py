# corpus: difftaichi_wave
# source: github:taichi-dev/difftaichi@9f4ee522a0a01e6b1aae1d3551c7fd1f6ed56081 examples/wave.py
# license: NOASSERTION
# area: autodiff
# port: ti->qd; qd.init(arch=qd.cpu) keeping default_fp (arch cuda->cpu), plus ad_stack_experimental_enabled=True (Quadrants refuses non-static inner ranges in reverse mode without it; Taichi had the adstack on); taichi.png (cv2.imread) replaced by a deterministic numpy stand-in target at n_grid x n_grid (mean-subtracted as the original); cv2 display/file output stubbed (resize returns input), os.makedirs removed; matplotlib stubbed; argparse replaced by fixed iters=2; checksum lines added
import quadrants as qd
import argparse
import math
import numpy as np
class _Cv2Stub:  # stand-in for cv2 display/file output: imshow/waitKey/imwrite ignored, resize returns its input

    def resize(self, img, *args, **kwargs):
        return img

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


cv2 = _Cv2Stub()
import os
class _PltStub:  # stand-in for matplotlib.pyplot: plotting is ignored

    def __getattr__(self, name):
        return lambda *args, **kwargs: _PltStub()


plt = _PltStub()

real = qd.f32
qd.init(default_fp=real, arch=qd.cpu, ad_stack_experimental_enabled=True)

n_grid = 256
dx = 1 / n_grid
inv_dx = 1 / dx
dt = 3e-4
max_steps = 512
vis_interval = 32
output_vis_interval = 2
steps = 256
assert steps * 2 <= max_steps
amplify = 1

scalar = lambda: qd.field(dtype=real)
vec = lambda: qd.Vector(2, dtype=real)

p = scalar()
target = scalar()
initial = scalar()
loss = scalar()


def allocate_fields():
    qd.root.dense(qd.i, max_steps).dense(qd.jk, n_grid).place(p)
    qd.root.dense(qd.i, max_steps).dense(qd.jk, n_grid).place(p.grad)
    qd.root.dense(qd.ij, n_grid).place(target)
    qd.root.dense(qd.ij, n_grid).place(target.grad)
    qd.root.dense(qd.ij, n_grid).place(initial)
    qd.root.dense(qd.ij, n_grid).place(initial.grad)
    qd.root.place(loss)
    qd.root.place(loss.grad)


c = 340
# damping
alpha = 0.00000
inv_dx2 = inv_dx * inv_dx
dt = (math.sqrt(alpha * alpha + dx * dx / 3) - alpha) / c
learning_rate = 1


@qd.func
def get_p(t, i, j):
    return p[t, i, j] if 0 <= i < n_grid and 0 <= j < n_grid else 0


@qd.func
def laplacian(t, i, j):
    return inv_dx2 * (-4 * get_p(t, i, j) + get_p(t, i, j - 1) + get_p(t, i, j + 1) +
                      get_p(t, i + 1, j) + get_p(t, i - 1, j))


@qd.kernel
def initialize():
    for i in range(n_grid):
        for j in range(n_grid):
            p[0, i, j] = initial[i, j]


@qd.kernel
def fdtd(t: qd.i32):
    for i in range(n_grid):  # Parallelized over GPU threads
        for j in range(n_grid):
            laplacian_p = laplacian(t - 2, i, j)
            laplacian_q = laplacian(t - 1, i, j)
            p[t, i, j] = 2 * p[t - 1, i, j] + (
                c * c * dt * dt + c * alpha * dt) * laplacian_q - p[
                    t - 2, i, j] - c * alpha * dt * laplacian_p


@qd.kernel
def compute_loss(t: qd.i32):
    for i in range(n_grid):
        for j in range(n_grid):
            loss[None] += dx * dx * (target[i, j] - p[t, i, j])**2


@qd.kernel
def apply_grad():
    # gradient descent
    for i, j in initial.grad:
        initial[i, j] -= learning_rate * initial.grad[i, j]

@qd.ad.no_grad
@qd.kernel
def get_image(img: qd.types.ndarray(), t: qd.i32):
    for i, j in qd.ndrange(n_grid, n_grid):
        img[i, j] = p[t, i, j] * amplify + 0.5


def forward(output=None):
    steps_mul = 1
    interval = vis_interval
    if output:
        steps_mul = 2
        interval = output_vis_interval
    initialize()
    for t in range(2, steps * steps_mul):
        fdtd(t)
        if (t + 1) % interval == 0:
            img = np.zeros(shape=(n_grid, n_grid), dtype=np.float32)
            get_image(img, t)
            img = cv2.resize(img, fx=4, fy=4, dsize=None)
            cv2.imshow('img', img)
            cv2.waitKey(1)
            if output:
                img = np.clip(img, 0, 255)
                cv2.imwrite(output + "/{:04d}.png".format(t), img * 255)
    compute_loss(steps - 1)


@qd.kernel
def fill_target(img: qd.types.ndarray()):
    for i, j in qd.ndrange(n_grid, n_grid):
        target[i, j] = float(img[i, j])


def main():
    options = argparse.Namespace(iters=2)

    # initialization
    yy, xx = np.mgrid[0:n_grid, 0:n_grid] / n_grid  # stand-in for taichi.png
    target_img = (((xx - 0.5)**2 + (yy - 0.5)**2 < 0.09) & (xx < 0.6)).astype(np.float64)
    target_img -= target_img.mean()
    target_img = cv2.resize(target_img, (n_grid, n_grid))
    cv2.imshow('target', target_img * amplify + 0.5)
    allocate_fields()
    # print(target_img.min(), target_img.max())
    fill_target(target_img)

    if False:
        # this is not too exciting...
        initial[n_grid // 2, n_grid // 2] = -2
        forward('center')
        initial[n_grid // 2, n_grid // 2] = 0

    for opt in range(options.iters):
        with qd.ad.Tape(loss):
            output = None
            if opt % 20 == 19:
                output = 'wave/iter{:03d}/'.format(opt)
            forward(output)

        print('Iter', opt, ' Loss =', loss[None])

        apply_grad()

    forward('optimized')
    print('checksum final_loss', repr(float(loss[None])))
    print('checksum initial_abs_sum', repr(float(np.abs(initial.to_numpy()).sum())))
    pp = p.to_numpy()
    print('checksum p_last_abs_sum', repr(float(np.abs(pp[2 * steps - 1]).sum())))
    print('checksum p_sample', repr(float(pp[steps - 1, 128, 100])))


if __name__ == '__main__':
    main()
