# corpus: difftaichi_mass_spring_simple
# source: github:taichi-dev/difftaichi@9f4ee522a0a01e6b1aae1d3551c7fd1f6ed56081 examples/mass_spring_simple.py
# license: NOASSERTION
# area: autodiff
# port: ti->qd; ti.Tape->qd.ad.Tape; qd.init(arch=qd.cpu) keeping default_fp/debug; cv2/matplotlib/os imports and visualize() drawing removed (visualize is a no-op); plotting removed; final forward('final') kept without output; checksum lines added
import quadrants as qd
import math
import numpy as np

real = qd.f32
qd.init(arch=qd.cpu, default_fp=real, debug=True)

max_steps = 1024
vis_interval = 256
output_vis_interval = 8
steps = 1024

vis_resolution = 1024

n_objects = 3
mass = 1
n_springs = 3
spring_stiffness = 10
damping = 20

scalar = lambda: qd.field(dtype=real)
vec = lambda: qd.Vector.field(2, dtype=real)

loss = scalar()
x = vec()
v = vec()
force = vec()

spring_anchor_a = qd.field(qd.i32)
spring_anchor_b = qd.field(qd.i32)
spring_length = scalar()


def allocate_fields():
    qd.root.dense(qd.i, max_steps).dense(qd.j, n_objects).place(x, v, force)
    qd.root.dense(qd.i, n_springs).place(spring_anchor_a, spring_anchor_b,
                                         spring_length)
    qd.root.place(loss)
    qd.root.lazy_grad()


dt = 0.001
learning_rate = 5


@qd.kernel
def apply_spring_force(t: qd.i32):
    # Kernels can have parameters. there t is a parameter with type int32.
    for i in range(n_springs):  # A parallel for, preferably on GPUs
        a, b = spring_anchor_a[i], spring_anchor_b[i]
        x_a, x_b = x[t - 1, a], x[t - 1, b]
        dist = x_a - x_b
        length = dist.norm() + 1e-4
        F = (length - spring_length[i]) * spring_stiffness * dist / length
        # apply spring impulses to mass points. Use atomic_add for parallel safety.
        qd.atomic_add(force[t, a], -F)
        qd.atomic_add(force[t, b], F)


friction = 0.01


@qd.kernel
def time_integrate(t: qd.i32):
    for i in range(n_objects):
        s = math.exp(-dt * damping)
        new_v = s * v[t - 1, i] + dt * force[t, i] / mass
        new_x = x[t - 1, i] + dt * new_v
        if new_x[0] > 0.4 and new_v[0] > 0:
            # friction projection
            if new_v[1] > 0:
                new_v[1] -= qd.min(new_v[1], friction * new_v[0])
            if new_v[1] < 0:
                new_v[1] += qd.min(-new_v[1], friction * new_v[0])
            new_v[0] = 0
        v[t, i] = new_v
        x[t, i] = new_x


@qd.kernel
def compute_loss(t: qd.i32):
    x01 = x[t, 0] - x[t, 1]
    x02 = x[t, 0] - x[t, 2]
    area = qd.abs(
        0.5 * (x01[0] * x02[1] - x01[1] * x02[0]))  # area from cross product
    target_area = 0.1
    loss[None] = (area - target_area)**2


def visualize(output, t):
    pass


def forward(output=None):
    interval = vis_interval
    if output:
        interval = output_vis_interval

    for t in range(1, steps):
        apply_spring_force(t)
        time_integrate(t)

        if (t + 1) % interval == 0:
            visualize(output, t)

    compute_loss(steps - 1)


@qd.kernel
def clear_states():
    for t in range(0, max_steps):
        for i in range(0, n_objects):
            x.grad[t, i] = qd.Vector([0.0, 0.0])
            v.grad[t, i] = qd.Vector([0.0, 0.0])
            force[t, i] = qd.Vector([0.0, 0.0])
            force.grad[t, i] = qd.Vector([0.0, 0.0])


@qd.kernel
def clear_springs():
    for i in range(n_springs):
        spring_length.grad[i] = 0.0


def clear_tensors():
    clear_states()
    clear_springs()


def main():
    allocate_fields()
    x[0, 0] = [0.3, 0.5]
    x[0, 1] = [0.3, 0.4]
    x[0, 2] = [0.4, 0.4]

    spring_anchor_a[0], spring_anchor_b[0], spring_length[0] = 0, 1, 0.1
    spring_anchor_a[1], spring_anchor_b[1], spring_length[1] = 1, 2, 0.1
    spring_anchor_a[2], spring_anchor_b[2], spring_length[
        2] = 2, 0, 0.1 * 2**0.5

    clear_tensors()
    forward('initial')

    losses = []
    for iter in range(25):
        clear_tensors()

        with qd.ad.Tape(loss):
            forward()

        print('Iter=', iter, 'Loss=', loss[None])
        losses.append(loss[None])

        for i in range(n_springs):
            spring_length[i] -= learning_rate * spring_length.grad[i]

    for i in range(n_springs):
        print(i, spring_length[i])

    clear_tensors()
    forward('final')
    print('checksum final_loss', repr(float(loss[None])))
    print('checksum losses_sum', repr(float(sum(losses))))
    for i in range(n_springs):
        print('checksum spring_length_%d' % i, repr(float(spring_length[i])))
    print('checksum x_abs_sum', repr(float(np.abs(x.to_numpy()).sum())))


if __name__ == '__main__':
    main()
