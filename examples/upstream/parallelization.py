# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/parallelization.md lines 16-19 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   docs/source/user_guide/parallelization.md lines 31-35 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   docs/source/user_guide/parallelization.md lines 43-46 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: Multi-dimensional parallelization with qd.ndrange; Syntax; qd.grouped with qd.ndrange
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
# >>> added for the comparison (not upstream)
import quadrants as qd

qd.init(arch=qd.gpu)

height, width = 5, 7
image = qd.field(qd.i32, shape=(height, width, 3))
a = qd.field(qd.i32, shape=(10, 5))
g = qd.field(qd.i32, shape=(4, 8, 16))
# <<< added

@qd.kernel
def process_image(image: qd.Template) -> None:
    for row, col, channel in qd.ndrange(height, width, 3):
        image[row, col, channel] = row + col

# >>> added for the comparison (not upstream)
process_image(image)
print("image", image.to_numpy().sum(), image[4, 6, 2])
# <<< added

@qd.kernel
def compute(a: qd.Template) -> None:
    for i, j in qd.ndrange((2, 10), 5):
        a[i, j] = i * 10 + j
    # i ranges over 2..9, j ranges over 0..4

# >>> added for the comparison (not upstream)
compute(a)
print("a", a.to_numpy().sum(axis=1).tolist())
# <<< added

@qd.kernel
def fill(a: qd.Template) -> None:
    for I in qd.grouped(qd.ndrange(4, 8, 16)):
        a[I] = I[0] + I[1] + I[2]

# >>> added for the comparison (not upstream)
fill(g)
print("g", g.to_numpy().sum(), g[3, 7, 15])
# <<< added
