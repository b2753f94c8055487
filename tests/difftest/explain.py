"""Named explanations for mismatches that are not qdexplorer bugs.

Each is a case where Quadrants 1.3.3 itself refuses or aborts on a program that qdexplorer runs
(qdexplorer is more permissive there, and gives the documented answer), or where results may
differ by design. The generator avoids the known ones; these names classify any that slip
through, so that a long run reports them apart from unexplained mismatches. Anything not matched
here is unexplained and counts as a failure."""
from __future__ import annotations

from .compare import Mismatch

EXPLAINED = {
    "quadrants_refuses_wide_literal": "Quadrants refuses an integer literal outside i32 (Python folded "
                                      "constants); qdexplorer types it i64",
    "quadrants_aborts_unsupported_op": "Quadrants' LLVM codegen aborts the process ('Not supported', an "
                                       "assertion) on an operation of a small type that qdexplorer compiles; "
                                       "also a float converted to qd.u1 (a store or qd.cast), which it "
                                       "lowers to an integer icmp of the float (LLVM's ICmpInst assertion)",
    "quadrants_optimizer_signed_zero": "only the signs of zeros (or of infinities, x / -0.0) differ, and "
                                       "Quadrants gives ours with its IR optimizer off (advanced_optimization"
                                       "=False and/or opt_level=0) or with the float constants read at run time: its "
                                       "optimizer merges a kernel's constants -0.0 and +0.0 and simplifies "
                                       "0 + x to x (x = -0.0), against IEEE 754",
    "quadrants_constant_folding": "values differ, and Quadrants gives ours once every float constant is read at "
                                  "run time (x * a loaded 1, -0.0 as -(0 * 1)): its handling of constants (the "
                                  "merged -0.0 and +0.0 above, e.g. deciding a branch through x / -0.0) made "
                                  "the difference",
    "quadrants_optimizer_stale_value": "values differ, and Quadrants gives ours with its optimizations off "
                                       "(advanced_optimization=False and/or opt_level=0): with fast_math=False no "
                                       "optimization may change a result, yet Quadrants 1.3.3's do; the case found: "
                                       "a vector component read before a store to the whole vector is reused, "
                                       "stale, by a later read of that component (`v[i] = v[i][0] * v[i]; v[i] = "
                                       "qd.Vector([v[i][1], v[i][0]])` swaps in the old v[i][0]; `v[i] += v[i].yyx; "
                                       "v[i] = v[i][1] * v[i]` scales by the old v[i][1])",
    "quadrants_stale_vector_read": "values differ, and Quadrants gives ours once every read of a container "
                                   "element (vf0[i], a0[i, j], sf0[i].m1) goes through a local made just before "
                                   "the statement (runner.fresh_vector_reads; the same program bit for bit): "
                                   "Quadrants 1.3.3 reads an ndarray or field vector element stale after a store "
                                   "to the whole element in the same loop body (`c[i] = c[i] + c[i].zxx; c[i] = "
                                   "c[i] + c[i].xxz` adds the old c[i].xxz), while `t = c[i]` reads it fresh",
    "quadrants_matmul_nan": "every difference is a NaN in Quadrants where ours is a number or an infinity, or a "
                            "+0.0 in Quadrants where ours is -0.0, in a program with @: Quadrants 1.3.3's "
                            "matrix product gives NaN in every entry once an operand has an infinite entry "
                            "(IEEE and ours: only the entries that sum that infinity are infinite), and +0.0 "
                            "for a 3x3 row whose products are all -0.0 (IEEE: -0.0); a heuristic naming, "
                            "see runner.matmul_nan_only",
    "atomic_order": "a float atomic sum whose rounding depends on the order the threads add in",
    "fast_math": "fast_math=True lets either compiler reassociate and use approximate functions",
}


def explain(ms: list[Mismatch]) -> str | None:
    """The name of the explanation that covers every mismatch of one program, or None."""
    if not ms:
        return None
    m = ms[0]
    if all(x.kind == "quadrants_optimizer_zero_sign" for x in ms):
        return "quadrants_optimizer_signed_zero"
    if all(x.kind == "quadrants_constants" for x in ms):
        return "quadrants_constant_folding"
    if all(x.kind == "quadrants_matmul_nan" for x in ms):
        return "quadrants_matmul_nan"
    if all(x.kind == "quadrants_stale_read" for x in ms):
        return "quadrants_stale_vector_read"
    if all(x.kind == "quadrants_optimizer_value" for x in ms):
        return "quadrants_optimizer_stale_value"
    if m.kind == "ref_error" and "exceeded the range of default_ip" in m.detail:
        return "quadrants_refuses_wide_literal"
    if m.kind == "ref_error" and m.detail.startswith("crash") and (
            "Not supported" in m.detail or "Assertion failure" in m.detail or "ICmpInst::AssertOK" in m.detail):
        return "quadrants_aborts_unsupported_op"
    return None
