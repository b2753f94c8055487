# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/sub_functions.md lines 49-52 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   docs/source/user_guide/sub_functions.md lines 66-78 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   docs/source/user_guide/sub_functions.md lines 84-95 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: Restricting a func to the top level (requires_top_level=True)
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
# >>> added for the comparison (not upstream)
import quadrants as qd

qd.init(arch=qd.gpu)

arr = qd.field(qd.i32, shape=10)
# <<< added

@qd.func(requires_top_level=True)
def op(arr: qd.Template, n: qd.i32) -> None:
    for i in range(n):  # one of several top-level phase loops
        arr[i] = arr[i] + 1

@qd.kernel
def good(arr: qd.Template, n: qd.i32) -> None:
    op(arr, n)                  # OK: top level

@qd.kernel
def also_good(arr: qd.Template, n: qd.i32) -> None:
    for _ in qd.static(range(2)):
        op(arr, n)              # OK: qd.static is compile-time

@qd.kernel
def bad(arr: qd.Template, n: qd.i32, flag: qd.i32) -> None:
    if flag > 0:
        op(arr, n)              # QuadrantsSyntaxError raised at compile time

@qd.func
def helper(arr: qd.Template, n: qd.i32) -> None:
    op(arr, n)                  # `op` is requires_top_level=True

@qd.kernel
def good_helper(arr: qd.Template, n: qd.i32) -> None:
    helper(arr, n)              # OK: helper is at the kernel top level

@qd.kernel
def bad_helper(arr: qd.Template, n: qd.i32, flag: qd.i32) -> None:
    if flag > 0:
        helper(arr, n)          # QuadrantsSyntaxError: op is transitively nested in a runtime if

# >>> added for the comparison (not upstream)
good(arr, 4)
also_good(arr, 6)
good_helper(arr, 8)
print("arr", arr.to_numpy().tolist())
for kern in (bad, bad_helper):
    try:
        kern(arr, 10, 1)
        print(kern.__name__, "compiled")
    except qd.QuadrantsSyntaxError:
        print(kern.__name__, "QuadrantsSyntaxError")
# <<< added
