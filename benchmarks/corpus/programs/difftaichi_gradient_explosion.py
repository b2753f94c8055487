# corpus: difftaichi_gradient_explosion
# source: github:taichi-dev/difftaichi@9f4ee522a0a01e6b1aae1d3551c7fd1f6ed56081 examples/misc/gradient_explosion.py
# license: NOASSERTION
# area: autodiff
# port: ti->qd; qd.init(arch=qd.cpu) keeping default_fp; matplotlib stubbed; num_steps sweep starts at 50 instead of 0 (num_steps=0 calls compute_loss(-1), an out-of-bounds read that segfaults under Quadrants 1.3.3 CPU); checksum lines added
import quadrants as qd
class _PltStub:  # stand-in for matplotlib.pyplot: plotting is ignored

    def __getattr__(self, name):
        return lambda *args, **kwargs: _PltStub()


plt = _PltStub()
import math
import sys

real = qd.f32
qd.init(arch=qd.cpu, default_fp=real)

x = qd.field(dtype=qd.f32)
v = qd.field(dtype=qd.f32)
a = qd.field(dtype=qd.f32)
loss = qd.field(dtype=qd.f32)
damping = qd.field(dtype=qd.f32)

max_timesteps = 1024 * 1024

dt = 0.001


def allocate_fields():
    qd.root.dense(qd.i, max_timesteps).place(x, v)
    qd.root.place(a, damping, loss)
    qd.root.lazy_grad()


@qd.kernel
def advance(t: qd.i32):
    v[t] = damping[None] * v[t - 1] + a[None]
    x[t] = x[t - 1] + dt * v[t]


@qd.kernel
def compute_loss(t: qd.i32):
    loss[None] = x[t]


def gradient(alpha, num_steps):
    damping[None] = math.exp(-dt * alpha)
    a[None] = 1
    with qd.ad.Tape(loss):
        for i in range(1, num_steps):
            advance(i)
        compute_loss(num_steps - 1)
    return loss[None]


large = False
if len(sys.argv) > 1:
    large = True

allocate_fields()

# c = ['r', 'g', 'b', 'y', 'k']
for i, alpha in enumerate([0, 1, 3, 10]):
    xs, ys = [], []
    grads = []
    for num_steps in range(50, 10000 if large else 1000, 50):
        g = gradient(alpha, num_steps)
        xs.append(num_steps)
        ys.append(g)
    print('checksum grad_sum_alpha%d' % alpha, repr(float(sum(ys))))
    print('checksum grad_last_alpha%d' % alpha, repr(float(ys[-1])))
    plt.plot(xs, ys, label="damping={}".format(alpha))

# plt.loglog()
fig = plt.gcf()
fig.set_size_inches(5, 3)
plt.title("Gradient Explosion without Damping")
plt.ylabel("Gradient")
plt.xlabel("Time steps")
plt.legend()
if large:
    plt.ylim(0, 3000)
plt.tight_layout()

plt.show()
