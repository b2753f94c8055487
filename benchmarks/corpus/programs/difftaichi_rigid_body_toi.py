# corpus: difftaichi_rigid_body_toi
# source: github:taichi-dev/difftaichi@9f4ee522a0a01e6b1aae1d3551c7fd1f6ed56081 examples/misc/rigid_body_toi.py
# license: NOASSERTION
# area: rigid
# port: ti->qd; qd.init(arch=qd.cpu) keeping default_fp; ti.GUI replaced by a no-op stub; matplotlib (and matplotlib.pyplot.cm) stubbed; checksum lines added
import sys
import quadrants as qd


class _GUIStub:  # stand-in for qd.GUI: drawing is ignored

    running = True

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _rgb_to_hex(c):  # stand-in for ti.rgb_to_hex (GUI colours only)
    return 0


import math
import numpy as np
import os
class _PltStub:  # stand-in for matplotlib.pyplot: plotting is ignored

    def __getattr__(self, name):
        return lambda *args, **kwargs: _PltStub()


plt = _PltStub()
import time

real = qd.f32
qd.init(arch=qd.cpu, default_fp=real)

max_steps = 4096
vis_interval = 4
output_vis_interval = 16
steps = 204
assert steps * 2 <= max_steps

vis_resolution = 1024

scalar = lambda: qd.field(dtype=real)
vec = lambda: qd.Vector.field(2, dtype=real)

loss = scalar()

x = vec()
v = vec()

goal = [0.9, 0.15]

n_objects = 1
ground_height = 0.1


def allocate_fields():
    qd.root.dense(qd.l, max_steps).dense(qd.i, n_objects).place(x, v)
    qd.root.place(loss)
    qd.root.lazy_grad()


dt = 0.002
learning_rate = 1.0

use_toi = False


@qd.kernel
def advance_toi(t: qd.i32):
    for i in range(n_objects):
        old_v = v[t - 1, i]
        new_v = old_v
        old_x = x[t - 1, i]
        new_x = old_x + dt * new_v
        toi = 0.0
        if new_x[1] < ground_height and new_v[1] < 0:
            new_v[1] = -new_v[1]
            toi = -(old_x[1] - ground_height) / old_v[1]
        v[t, i] = new_v
        x[t, i] = x[t - 1, i] + toi * old_v + (dt - toi) * new_v


@qd.kernel
def advance_no_toi(t: qd.i32):
    for i in range(n_objects):
        new_v = v[t - 1, i]
        if x[t - 1, i][1] < ground_height and new_v[1] < 0:
            new_v[1] = -new_v[1]
        v[t, i] = new_v
        x[t, i] = x[t - 1, i] + dt * new_v


@qd.kernel
def compute_loss(t: qd.i32):
    # loss[None] = (x[t, 0] - qd.Vector(goal)).norm()
    loss[None] = x[t, 0][1]


gui = _GUIStub()  # was qd.GUI(...)
def forward(output=None, visualize=True):
    interval = vis_interval
    total_steps = steps
    if output:
        interval = output_vis_interval
        # os.makedirs('rigid_body/{}/'.format(output), exist_ok=True)
        total_steps *= 2

    for t in range(1, total_steps):
        if use_toi:
            advance_toi(t)
        else:
            advance_no_toi(t)

        if (t + 1) % interval == 0 and visualize:
            gui.clear()
            gui.circle((x[t, 0][0], x[t, 0][1]), 0x0, 10)
            offset = 0.003
            gui.line((0.05, ground_height - offset),
                     (0.95, ground_height - offset), color=0xAAAAAA, radius=2)

            if output:
                gui.show('rigid_body/{}/{:04d}.png'.format(output, t))
            else:
                gui.show()

    loss[None] = 0
    compute_loss(steps - 1)


def main():
    allocate_fields()
    zoom = len(sys.argv) > 1
    for toi in [False, True]:
        losses = []
        grads = []
        y_offsets = []
        global use_toi
        use_toi = toi
        if zoom:
            ran = np.arange(0.26, 0.3, 0.0001)
        else:
            ran = np.arange(0, 0.3, 0.02)
        for dy in ran:
            y_offsets.append(0.5 + dy)
            x[0, 0] = [0.7, 0.5 + dy]
            v[0, 0] = [-1, -2]

            with qd.ad.Tape(loss):
                forward(visualize=False)

            print('dy=', dy, 'Loss=', loss[None])
            grads.append(x.grad[0, 0][1])
            losses.append(loss[None])

        print('checksum losses_sum_toi%d' % toi, repr(float(sum(losses))))
        print('checksum grads_sum_toi%d' % toi, repr(float(sum(grads))))
        print('checksum grads_abs_sum_toi%d' % toi, repr(float(sum(abs(g) for g in grads))))
        suffix = ' (Naive)'
        if use_toi:
            suffix = ' (+TOI)'
        if zoom:
            t = '-'
        else:
            t = ':' if use_toi else '.'
        plt.plot(y_offsets, losses, t, label='Loss' + suffix)
        if not zoom:
            plt.plot(y_offsets, grads, label='Gradient' + suffix)

    fig = plt.gcf()
    fig.set_size_inches(4, 3)
    plt.title('The Effect of Time of Impact on Gradients')
    if not zoom:
        # plt.ylim(-6, 2)
        plt.legend(bbox_to_anchor=(0.02, 0.1), loc='lower left', ncol=1)
        # plt.legend(bbox_to_anchor=(1.1, 1.2), ncol=1)
        # plt.legend()
    else:
        plt.legend()
    plt.xlabel('Initial y')
    # plt.tight_layout()
    plt.show()
    plt.show()


if __name__ == '__main__':
    main()
