# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/getting_started.md lines 176-215 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: fields: even faster
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
import argparse
import time
import quadrants as qd

qd.init(arch=qd.gpu)

parser = argparse.ArgumentParser()
parser.add_argument("--use-field", action="store_true")
args = parser.parse_args()

use_field = args.use_field
if use_field:
    V = qd.field
    ParamType = qd.Template
else:
    V = qd.ndarray
    ParamType = qd.types.NDArray[qd.i32, 1]

@qd.kernel
def copy_memory(N: int, a: ParamType, b: ParamType) -> None:
    for n in range(N):
        b[n % 100] = a[n % 100]

N = 20_000
a = V(qd.i32, (100,))
b = V(qd.i32, (100,))

# warmup
copy_memory(N, a, b)

num_its = 1000

qd.sync()
start = time.time()
for it in range(num_its):
    copy_memory(N, a, b)
qd.sync()
end = time.time()
iteration_time = (end - start) / num_its * 1_000_000
print("iteration time", iteration_time, "us")

# >>> added for the comparison (not upstream)
qd.sync()
print("checksum", int(a.to_numpy().sum()), int(b.to_numpy().sum()), use_field)
# <<< added
