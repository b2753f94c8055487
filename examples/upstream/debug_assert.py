# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/debug.md lines 48-53 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: Assertions in kernels
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
# >>> added for the comparison (not upstream)
import quadrants as qd
# <<< added

qd.init(arch=qd.gpu, debug=True)

@qd.kernel
def check(a: qd.Template) -> None:
    for i in range(10):
        assert a[i] >= 0, f"negative value at index {i}"

# >>> added for the comparison (not upstream)
a = qd.field(qd.i32, shape=10)
check(a)
print("ok")
a[7] = -3
try:
    check(a)
    print("no assertion")
except AssertionError as e:
    print("AssertionError", "negative value at index 7" in str(e))
# <<< added
