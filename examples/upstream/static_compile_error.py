# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/static.md lines 69-72 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: Compile-time error
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
# >>> added for the comparison (not upstream)
import quadrants as qd

qd.init(arch=qd.gpu)
# <<< added

@qd.kernel
def compute(val: float) -> None:
    if qd.static(val > 0.5):  # ERROR: val is a runtime value
        pass

# >>> added for the comparison (not upstream)
try:
    compute(0.7)
    print("compiled")
except qd.QuadrantsCompilationError:
    print("QuadrantsCompilationError")
# <<< added
