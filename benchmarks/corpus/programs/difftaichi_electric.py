# corpus: difftaichi_electric
# source: github:taichi-dev/difftaichi@9f4ee522a0a01e6b1aae1d3551c7fd1f6ed56081 examples/electric.py
# license: NOASSERTION
# area: autodiff
# port: ti->qd; qd.init(arch=qd.cpu) keeping default_fp; random.seed(0) added (the original is unseeded); ti.GUI replaced by a no-op stub; os.makedirs for frames removed; matplotlib stubbed; optimize iterations 200000->4 (time); checksum lines added
import quadrants as qd


class _GUIStub:  # stand-in for qd.GUI: drawing is ignored

    running = True

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _rgb_to_hex(c):  # stand-in for ti.rgb_to_hex (GUI colours only)
    return 0


import random
import sys
import math
import numpy as np
import os
class _PltStub:  # stand-in for matplotlib.pyplot: plotting is ignored

    def __getattr__(self, name):
        return lambda *args, **kwargs: _PltStub()


plt = _PltStub()

real = qd.f32
qd.init(arch=qd.cpu, default_fp=real)
random.seed(0)  # added for determinism

max_steps = 2048
vis_interval = 8
output_vis_interval = 8
steps = 512
seg_size = 256

vis_resolution = 1024

scalar = lambda: qd.field(dtype=real)
vec = lambda: qd.Vector.field(2, dtype=real)

loss = scalar()

hidden = scalar()
damping = 0.2

x = vec()
v = vec()

n_gravitation = 8
goal = vec()
goal_v = vec()
gravitation = scalar()

n_hidden = 64

weight1 = scalar()
bias1 = scalar()
weight2 = scalar()
bias2 = scalar()

pad = 0.1
gravitation_position = [[pad, pad], [pad, 1 - pad], [1 - pad, 1 - pad],
                        [1 - pad, pad], [0.5, 1 - pad], [0.5, pad], [pad, 0.5],
                        [1 - pad, 0.5]]


def allocate_fields():
    qd.root.dense(qd.l, max_steps).place(x, v)
    qd.root.dense(qd.l, max_steps).dense(qd.i, n_hidden).place(hidden)
    qd.root.dense(qd.l, max_steps).dense(qd.i,
                                         n_gravitation).place(gravitation)
    qd.root.dense(qd.ij, (8, n_hidden)).place(weight1)
    qd.root.dense(qd.i, n_hidden).place(bias1)
    qd.root.dense(qd.ij, (n_hidden, n_gravitation)).place(weight2)
    qd.root.dense(qd.i, n_gravitation).place(bias2)
    qd.root.place(loss)
    qd.root.dense(qd.i, max_steps).place(goal, goal_v)
    qd.root.lazy_grad()


dt = 0.03
alpha = 0.00000
learning_rate = 2e-2

K = 1e-3


@qd.kernel
def nn1(t: qd.i32):
    for i in range(n_hidden):
        act = 0.0
        act += (x[t][0] - 0.5) * weight1[0, i]
        act += (x[t][1] - 0.5) * weight1[1, i]
        act += v[t][0] * weight1[2, i]
        act += v[t][1] * weight1[3, i]
        act += (goal[t][0] - 0.5) * weight1[4, i]
        act += (goal[t][1] - 0.5) * weight1[5, i]
        act += (goal_v[t][0] - 0.5) * weight1[6, i]
        act += (goal_v[t][1] - 0.5) * weight1[7, i]
        act += bias1[i]
        hidden[i, t] = qd.tanh(act)


@qd.kernel
def nn2(t: qd.i32):
    for i in range(n_gravitation):
        act = 0.0
        for j in qd.static(range(n_hidden)):
            act += hidden[j, t] * weight2[j, i]
        act += bias2[i]
        gravitation[i, t] = qd.tanh(act)


@qd.kernel
def advance(t: qd.i32):
    for _ in range(1):  # parallelize this loop
        gravitational_force = qd.Vector([0.0, 0.0])
        for i in qd.static(range(n_gravitation)):  # instead of this one
            r = x[t - 1] - qd.Vector(gravitation_position[i])
            len_r = qd.max(r.norm(), 1e-1)
            gravitational_force += K * gravitation[i, t] / (len_r * len_r *
                                                            len_r) * r
        v[t] = v[t - 1] * math.exp(-dt * damping) + dt * gravitational_force
        x[t] = x[t - 1] + dt * v[t]


@qd.kernel
def compute_loss(t: qd.i32):
    qd.atomic_add(loss[None], dt * (x[t] - goal[t]).norm_sqr())


gui = _GUIStub()  # was qd.GUI(...)
def forward(visualize=False, output=None):
    interval = vis_interval
    if output:
        interval = output_vis_interval

    for t in range(1, steps):
        nn1(t)
        nn2(t)
        advance(t)
        compute_loss(t)

        if (t + 1) % interval == 0 and visualize:
            gui.clear()

            for i in range(n_gravitation):
                r = (gravitation[i, t] + 1) * 30
                gui.circle(gravitation_position[i], 0xccaa44, r)

            gui.circle((x[t][0], x[t][1]), 0xF20530, 30)
            gui.circle((goal[t][0], goal[t][1]), 0x3344cc, 10)

            if output:
                gui.show('electric/{}/{:04d}.png'.format(output, t))
            else:
                gui.show()


def rand():
    return 0.2 + random.random() * 0.6


tasks = [((rand(), rand()), (rand(), rand())) for i in range(10)]


def lerp(x, a, b):
    return (1 - x) * a + x * b


def initialize():
    # x[0] = [rand(), rand()]
    segments = steps // seg_size
    points = []
    for i in range(segments + 1):
        points.append([rand(), rand()])
    for i in range(segments):
        for j in range(steps // segments):
            k = steps // segments * i + j
            goal[k] = [
                lerp(j / seg_size, points[i][0], points[i + 1][0]),
                lerp(j / seg_size, points[i][1], points[i + 1][1])
            ]
            goal_v[k] = [
                points[i + 1][0] - points[i][0],
                points[i + 1][1] - points[i][1]
            ]
    x[0] = points[0]
    # x[0] = [0.3, 0.6]
    # goal[None] = [0.5, 0.2]
    # i = random.randrange(2)
    # x[0] = tasks[i][0]
    # goal[None] = tasks[i][1]


def optimize():

    initialize()
    forward(visualize=True, output='initial')

    losses = []
    for iter in range(4):
        initialize()
        vis = iter % 200 == 0
        output = None
        if vis:
            output = 'iter{:05d}'.format(iter)
        with qd.ad.Tape(loss):
            forward(visualize=vis, output=output)
        losses.append(loss[None])
        # print(iter, "loss", loss[None])
        if vis:
            print(iter, sum(losses))
            losses.clear()

        tot = 0
        for i in range(8):
            for j in range(n_hidden):
                weight1[i,
                        j] = weight1[i, j] - weight1.grad[i, j] * learning_rate
                tot += weight1.grad[i, j]**2
        # print(tot)
        for j in range(n_hidden):
            bias1[j] = bias1[j] - bias1.grad[j] * learning_rate

        for i in range(n_hidden):
            for j in range(n_gravitation):
                weight2[i,
                        j] = weight2[i, j] - weight2.grad[i, j] * learning_rate
        for j in range(n_gravitation):
            bias2[j] = bias2[j] - bias2.grad[j] * learning_rate

    forward(visualize=True, output='final')
    print('checksum final_loss', repr(float(loss[None])))
    print('checksum weight1_abs_sum', repr(float(np.abs(weight1.to_numpy()).sum())))
    print('checksum weight2_abs_sum', repr(float(np.abs(weight2.to_numpy()).sum())))
    print('checksum x_abs_sum', repr(float(np.abs(x.to_numpy()).sum())))


if __name__ == '__main__':
    allocate_fields()
    for i in range(8):
        for j in range(n_hidden):
            weight1[i, j] = (random.random() - 0.5) * 0.3
    for i in range(n_hidden):
        for j in range(n_gravitation):
            weight2[i, j] = (random.random() - 0.5) * 0.3
    optimize()
