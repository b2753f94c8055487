# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/autodiff.md lines 36-66 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   docs/source/user_guide/autodiff.md lines 89-91 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: Reverse-mode autodiff + Recording a backward pass with qd.ad.Tape
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
import quadrants as qd

qd.init(arch=qd.gpu)

x = qd.field(qd.f32)
y = qd.field(qd.f32)
# Step 1: allocate each primal together with its adjoint (.grad).
qd.root.dense(qd.i, 16).place(x, x.grad)
qd.root.place(y, y.grad)

@qd.kernel
def compute():
    for i in x:
        y[None] += x[i] * x[i]

# Step 2: run the forward kernel.
for i in range(16):
    x[i] = float(i)
y[None] = 0.0
compute()

# Step 3: seed the loss gradient.
y.grad[None] = 1.0
# (clear input adjoints before the reverse pass so they do not accumulate)
for i in range(16):
    x.grad[i] = 0.0
# Step 4: run the reverse kernel.
compute.grad()

# Step 5: read gradients back from the .grad fields.
# x.grad[i] == 2 * x[i]

with qd.ad.Tape(loss=y):
    compute()
# x.grad is now populated.

# >>> added for the comparison (not upstream)
print("x.grad", x.grad.to_numpy().tolist())
print("y", y[None], "y.grad", y.grad[None])
# <<< added
