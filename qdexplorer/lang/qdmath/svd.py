# mypy: disable-error-code="index"
# (kernel-language code: its vectors and matrices are indexed by the compiler, not by NumPy)
#
# GENERATED CODE: `_sifakis3` (from here to `_svd3d`) was produced once, by a translation
# script that is not kept, from `sifakis_svd_export` in Quadrants' quadrants/math/svd.h at
# 009f0a2d2. There is nothing to regenerate it from: edit it by hand, statement for statement
# against svd.h, and keep tests/lang/test_snode_svd.py (values equal to Quadrants') passing.
# The rest of the file was written by hand.
"""`qd.svd` and `qd.polar_decompose` (2x2 and 3x3), written in the kernel language with Quadrants'
algorithms and conventions (python/quadrants/_funcs.py, quadrants/math/svd.h at 009f0a2d2).

3x3: the Sifakis et al. Jacobi SVD ("Computing the Singular Value Decomposition of 3x3 matrices
with minimal branching and elementary floating point operations"), translated statement by
statement from Quadrants' `sifakis_svd_export` by a script: the bit-mask idioms of the C++
(`x & mask`, `(a ^ b) & mask` swaps) are `qd.select`s on the same comparisons, so every value is
the one Quadrants computes, up to the sign of a zero. Its constants carry the C++'s float
suffixes (rounded to f32 even for f64), and it runs 5 sweeps for f32, 8 for f64, as Quadrants.
The singular values are then sorted in descending order with U's and V's columns, and column 0 of
both negated after an odd number of swaps: det(U) = det(V) = +1, the sign of det(A) is in sigma.

2x2: Quadrants' closed forms (polar decomposition via the rotation part, then one Jacobi
rotation of the symmetric factor).
"""
from __future__ import annotations
from ..calls.runtime_api import float_type

from ..func import func
from ..intrinsics import abs, cast, max, rsqrt, select, sqrt, static  # noqa: A004
from ...ir.dtypes import f32
from ..vector_types import Matrix, Vector


@func
def _sifakis3(A, dt, iters):
    """U, V (row-major entries) and the unsorted singular values of A."""
    zero = cast(0.0, dt)
    Sfour_gamma_squared = zero
    Ssine_pi_over_eight = zero
    Scosine_pi_over_eight = zero
    Sone_half = zero
    Sone = zero
    Stiny_number = zero
    Ssmall_number = zero
    Sa11 = zero
    Sa21 = zero
    Sa31 = zero
    Sa12 = zero
    Sa22 = zero
    Sa32 = zero
    Sa13 = zero
    Sa23 = zero
    Sa33 = zero
    Sv11 = zero
    Sv21 = zero
    Sv31 = zero
    Sv12 = zero
    Sv22 = zero
    Sv32 = zero
    Sv13 = zero
    Sv23 = zero
    Sv33 = zero
    Su11 = zero
    Su21 = zero
    Su31 = zero
    Su12 = zero
    Su22 = zero
    Su32 = zero
    Su13 = zero
    Su23 = zero
    Su33 = zero
    Sc = zero
    Ss = zero
    Sch = zero
    Ssh = zero
    Stmp1 = zero
    Stmp2 = zero
    Stmp3 = zero
    Stmp4 = zero
    Stmp5 = zero
    Sqvs = zero
    Sqvvx = zero
    Sqvvy = zero
    Sqvvz = zero
    Ss11 = zero
    Ss21 = zero
    Ss31 = zero
    Ss22 = zero
    Ss32 = zero
    Ss33 = zero
    mSsh = 0
    mStmp1 = 0
    mStmp4 = 0
    mStmp5 = 0
    Sfour_gamma_squared = cast(5.828427314758301, dt)
    Ssine_pi_over_eight = cast(0.3826834261417389, dt)
    Scosine_pi_over_eight = cast(0.9238795042037964, dt)
    Sone_half = cast(0.5, dt)
    Sone = cast(1.0, dt)
    Stiny_number = cast(9.999999682655225e-21, dt)
    Ssmall_number = cast(9.999999960041972e-13, dt)
    Sa11 = A[0, 0]
    Sa21 = A[1, 0]
    Sa31 = A[2, 0]
    Sa12 = A[0, 1]
    Sa22 = A[1, 1]
    Sa32 = A[2, 1]
    Sa13 = A[0, 2]
    Sa23 = A[1, 2]
    Sa33 = A[2, 2]
    Sqvs = cast(1.0, dt)
    Sqvvx = cast(0.0, dt)
    Sqvvy = cast(0.0, dt)
    Sqvvz = cast(0.0, dt)
    Ss11 = Sa11 * Sa11
    Stmp1 = Sa21 * Sa21
    Ss11 = Stmp1 + Ss11
    Stmp1 = Sa31 * Sa31
    Ss11 = Stmp1 + Ss11
    Ss21 = Sa12 * Sa11
    Stmp1 = Sa22 * Sa21
    Ss21 = Stmp1 + Ss21
    Stmp1 = Sa32 * Sa31
    Ss21 = Stmp1 + Ss21
    Ss31 = Sa13 * Sa11
    Stmp1 = Sa23 * Sa21
    Ss31 = Stmp1 + Ss31
    Stmp1 = Sa33 * Sa31
    Ss31 = Stmp1 + Ss31
    Ss22 = Sa12 * Sa12
    Stmp1 = Sa22 * Sa22
    Ss22 = Stmp1 + Ss22
    Stmp1 = Sa32 * Sa32
    Ss22 = Stmp1 + Ss22
    Ss32 = Sa13 * Sa12
    Stmp1 = Sa23 * Sa22
    Ss32 = Stmp1 + Ss32
    Stmp1 = Sa33 * Sa32
    Ss32 = Stmp1 + Ss32
    Ss33 = Sa13 * Sa13
    Stmp1 = Sa23 * Sa23
    Ss33 = Stmp1 + Ss33
    Stmp1 = Sa33 * Sa33
    Ss33 = Stmp1 + Ss33
    for sweep in range(iters):
        Ssh = Ss21 * Sone_half
        Stmp5 = Ss11 - Ss22
        Stmp2 = Ssh * Ssh
        mStmp1 = select(Stmp2 >= Stiny_number, 1, 0)
        Ssh = select(mStmp1 != 0, Ssh, zero)
        Sch = select(mStmp1 != 0, Stmp5, zero)
        Stmp2 = select(mStmp1 != 0, zero, Sone)
        Sch = Sch + Stmp2
        Stmp1 = Ssh * Ssh
        Stmp2 = Sch * Sch
        Stmp3 = Stmp1 + Stmp2
        Stmp4 = rsqrt(Stmp3)
        Ssh = Stmp4 * Ssh
        Sch = Stmp4 * Sch
        Stmp1 = Sfour_gamma_squared * Stmp1
        mStmp1 = select(Stmp2 <= Stmp1, 1, 0)
        Stmp2 = select(mStmp1 != 0, Ssine_pi_over_eight, zero)
        Ssh = select(mStmp1 != 0, zero, Ssh)
        Ssh = Ssh + Stmp2
        Stmp2 = select(mStmp1 != 0, Scosine_pi_over_eight, zero)
        Sch = select(mStmp1 != 0, zero, Sch)
        Sch = Sch + Stmp2
        Stmp1 = Ssh * Ssh
        Stmp2 = Sch * Sch
        Sc = Stmp2 - Stmp1
        Ss = Sch * Ssh
        Ss = Ss + Ss
        Stmp3 = Stmp1 + Stmp2
        Ss33 = Ss33 * Stmp3
        Ss31 = Ss31 * Stmp3
        Ss32 = Ss32 * Stmp3
        Ss33 = Ss33 * Stmp3
        Stmp1 = Ss * Ss31
        Stmp2 = Ss * Ss32
        Ss31 = Sc * Ss31
        Ss32 = Sc * Ss32
        Ss31 = Stmp2 + Ss31
        Ss32 = Ss32 - Stmp1
        Stmp2 = Ss * Ss
        Stmp1 = Ss22 * Stmp2
        Stmp3 = Ss11 * Stmp2
        Stmp4 = Sc * Sc
        Ss11 = Ss11 * Stmp4
        Ss22 = Ss22 * Stmp4
        Ss11 = Ss11 + Stmp1
        Ss22 = Ss22 + Stmp3
        Stmp4 = Stmp4 - Stmp2
        Stmp2 = Ss21 + Ss21
        Ss21 = Ss21 * Stmp4
        Stmp4 = Sc * Ss
        Stmp2 = Stmp2 * Stmp4
        Stmp5 = Stmp5 * Stmp4
        Ss11 = Ss11 + Stmp2
        Ss21 = Ss21 - Stmp5
        Ss22 = Ss22 - Stmp2
        Stmp1 = Ssh * Sqvvx
        Stmp2 = Ssh * Sqvvy
        Stmp3 = Ssh * Sqvvz
        Ssh = Ssh * Sqvs
        Sqvs = Sch * Sqvs
        Sqvvx = Sch * Sqvvx
        Sqvvy = Sch * Sqvvy
        Sqvvz = Sch * Sqvvz
        Sqvvz = Sqvvz + Ssh
        Sqvs = Sqvs - Stmp3
        Sqvvx = Sqvvx + Stmp2
        Sqvvy = Sqvvy - Stmp1
        Ssh = Ss32 * Sone_half
        Stmp5 = Ss22 - Ss33
        Stmp2 = Ssh * Ssh
        mStmp1 = select(Stmp2 >= Stiny_number, 1, 0)
        Ssh = select(mStmp1 != 0, Ssh, zero)
        Sch = select(mStmp1 != 0, Stmp5, zero)
        Stmp2 = select(mStmp1 != 0, zero, Sone)
        Sch = Sch + Stmp2
        Stmp1 = Ssh * Ssh
        Stmp2 = Sch * Sch
        Stmp3 = Stmp1 + Stmp2
        Stmp4 = rsqrt(Stmp3)
        Ssh = Stmp4 * Ssh
        Sch = Stmp4 * Sch
        Stmp1 = Sfour_gamma_squared * Stmp1
        mStmp1 = select(Stmp2 <= Stmp1, 1, 0)
        Stmp2 = select(mStmp1 != 0, Ssine_pi_over_eight, zero)
        Ssh = select(mStmp1 != 0, zero, Ssh)
        Ssh = Ssh + Stmp2
        Stmp2 = select(mStmp1 != 0, Scosine_pi_over_eight, zero)
        Sch = select(mStmp1 != 0, zero, Sch)
        Sch = Sch + Stmp2
        Stmp1 = Ssh * Ssh
        Stmp2 = Sch * Sch
        Sc = Stmp2 - Stmp1
        Ss = Sch * Ssh
        Ss = Ss + Ss
        Stmp3 = Stmp1 + Stmp2
        Ss11 = Ss11 * Stmp3
        Ss21 = Ss21 * Stmp3
        Ss31 = Ss31 * Stmp3
        Ss11 = Ss11 * Stmp3
        Stmp1 = Ss * Ss21
        Stmp2 = Ss * Ss31
        Ss21 = Sc * Ss21
        Ss31 = Sc * Ss31
        Ss21 = Stmp2 + Ss21
        Ss31 = Ss31 - Stmp1
        Stmp2 = Ss * Ss
        Stmp1 = Ss33 * Stmp2
        Stmp3 = Ss22 * Stmp2
        Stmp4 = Sc * Sc
        Ss22 = Ss22 * Stmp4
        Ss33 = Ss33 * Stmp4
        Ss22 = Ss22 + Stmp1
        Ss33 = Ss33 + Stmp3
        Stmp4 = Stmp4 - Stmp2
        Stmp2 = Ss32 + Ss32
        Ss32 = Ss32 * Stmp4
        Stmp4 = Sc * Ss
        Stmp2 = Stmp2 * Stmp4
        Stmp5 = Stmp5 * Stmp4
        Ss22 = Ss22 + Stmp2
        Ss32 = Ss32 - Stmp5
        Ss33 = Ss33 - Stmp2
        Stmp1 = Ssh * Sqvvx
        Stmp2 = Ssh * Sqvvy
        Stmp3 = Ssh * Sqvvz
        Ssh = Ssh * Sqvs
        Sqvs = Sch * Sqvs
        Sqvvx = Sch * Sqvvx
        Sqvvy = Sch * Sqvvy
        Sqvvz = Sch * Sqvvz
        Sqvvx = Sqvvx + Ssh
        Sqvs = Sqvs - Stmp1
        Sqvvy = Sqvvy + Stmp3
        Sqvvz = Sqvvz - Stmp2
        Ssh = Ss31 * Sone_half
        Stmp5 = Ss33 - Ss11
        Stmp2 = Ssh * Ssh
        mStmp1 = select(Stmp2 >= Stiny_number, 1, 0)
        Ssh = select(mStmp1 != 0, Ssh, zero)
        Sch = select(mStmp1 != 0, Stmp5, zero)
        Stmp2 = select(mStmp1 != 0, zero, Sone)
        Sch = Sch + Stmp2
        Stmp1 = Ssh * Ssh
        Stmp2 = Sch * Sch
        Stmp3 = Stmp1 + Stmp2
        Stmp4 = rsqrt(Stmp3)
        Ssh = Stmp4 * Ssh
        Sch = Stmp4 * Sch
        Stmp1 = Sfour_gamma_squared * Stmp1
        mStmp1 = select(Stmp2 <= Stmp1, 1, 0)
        Stmp2 = select(mStmp1 != 0, Ssine_pi_over_eight, zero)
        Ssh = select(mStmp1 != 0, zero, Ssh)
        Ssh = Ssh + Stmp2
        Stmp2 = select(mStmp1 != 0, Scosine_pi_over_eight, zero)
        Sch = select(mStmp1 != 0, zero, Sch)
        Sch = Sch + Stmp2
        Stmp1 = Ssh * Ssh
        Stmp2 = Sch * Sch
        Sc = Stmp2 - Stmp1
        Ss = Sch * Ssh
        Ss = Ss + Ss
        Stmp3 = Stmp1 + Stmp2
        Ss22 = Ss22 * Stmp3
        Ss32 = Ss32 * Stmp3
        Ss21 = Ss21 * Stmp3
        Ss22 = Ss22 * Stmp3
        Stmp1 = Ss * Ss32
        Stmp2 = Ss * Ss21
        Ss32 = Sc * Ss32
        Ss21 = Sc * Ss21
        Ss32 = Stmp2 + Ss32
        Ss21 = Ss21 - Stmp1
        Stmp2 = Ss * Ss
        Stmp1 = Ss11 * Stmp2
        Stmp3 = Ss33 * Stmp2
        Stmp4 = Sc * Sc
        Ss33 = Ss33 * Stmp4
        Ss11 = Ss11 * Stmp4
        Ss33 = Ss33 + Stmp1
        Ss11 = Ss11 + Stmp3
        Stmp4 = Stmp4 - Stmp2
        Stmp2 = Ss31 + Ss31
        Ss31 = Ss31 * Stmp4
        Stmp4 = Sc * Ss
        Stmp2 = Stmp2 * Stmp4
        Stmp5 = Stmp5 * Stmp4
        Ss33 = Ss33 + Stmp2
        Ss31 = Ss31 - Stmp5
        Ss11 = Ss11 - Stmp2
        Stmp1 = Ssh * Sqvvx
        Stmp2 = Ssh * Sqvvy
        Stmp3 = Ssh * Sqvvz
        Ssh = Ssh * Sqvs
        Sqvs = Sch * Sqvs
        Sqvvx = Sch * Sqvvx
        Sqvvy = Sch * Sqvvy
        Sqvvz = Sch * Sqvvz
        Sqvvy = Sqvvy + Ssh
        Sqvs = Sqvs - Stmp2
        Sqvvz = Sqvvz + Stmp1
        Sqvvx = Sqvvx - Stmp3
    Stmp2 = Sqvs * Sqvs
    Stmp1 = Sqvvx * Sqvvx
    Stmp2 = Stmp1 + Stmp2
    Stmp1 = Sqvvy * Sqvvy
    Stmp2 = Stmp1 + Stmp2
    Stmp1 = Sqvvz * Sqvvz
    Stmp2 = Stmp1 + Stmp2
    Stmp1 = rsqrt(Stmp2)
    Stmp4 = Stmp1 * Sone_half
    Stmp3 = Stmp1 * Stmp4
    Stmp3 = Stmp1 * Stmp3
    Stmp3 = Stmp2 * Stmp3
    Stmp1 = Stmp1 + Stmp4
    Stmp1 = Stmp1 - Stmp3
    Sqvs = Sqvs * Stmp1
    Sqvvx = Sqvvx * Stmp1
    Sqvvy = Sqvvy * Stmp1
    Sqvvz = Sqvvz * Stmp1
    Stmp1 = Sqvvx * Sqvvx
    Stmp2 = Sqvvy * Sqvvy
    Stmp3 = Sqvvz * Sqvvz
    Sv11 = Sqvs * Sqvs
    Sv22 = Sv11 - Stmp1
    Sv33 = Sv22 - Stmp2
    Sv33 = Sv33 + Stmp3
    Sv22 = Sv22 + Stmp2
    Sv22 = Sv22 - Stmp3
    Sv11 = Sv11 + Stmp1
    Sv11 = Sv11 - Stmp2
    Sv11 = Sv11 - Stmp3
    Stmp1 = Sqvvx + Sqvvx
    Stmp2 = Sqvvy + Sqvvy
    Stmp3 = Sqvvz + Sqvvz
    Sv32 = Sqvs * Stmp1
    Sv13 = Sqvs * Stmp2
    Sv21 = Sqvs * Stmp3
    Stmp1 = Sqvvy * Stmp1
    Stmp2 = Sqvvz * Stmp2
    Stmp3 = Sqvvx * Stmp3
    Sv12 = Stmp1 - Sv21
    Sv23 = Stmp2 - Sv32
    Sv31 = Stmp3 - Sv13
    Sv21 = Stmp1 + Sv21
    Sv32 = Stmp2 + Sv32
    Sv13 = Stmp3 + Sv13
    Stmp2 = Sa12
    Stmp3 = Sa13
    Sa12 = Sv12 * Sa11
    Sa13 = Sv13 * Sa11
    Sa11 = Sv11 * Sa11
    Stmp1 = Sv21 * Stmp2
    Sa11 = Sa11 + Stmp1
    Stmp1 = Sv31 * Stmp3
    Sa11 = Sa11 + Stmp1
    Stmp1 = Sv22 * Stmp2
    Sa12 = Sa12 + Stmp1
    Stmp1 = Sv32 * Stmp3
    Sa12 = Sa12 + Stmp1
    Stmp1 = Sv23 * Stmp2
    Sa13 = Sa13 + Stmp1
    Stmp1 = Sv33 * Stmp3
    Sa13 = Sa13 + Stmp1
    Stmp2 = Sa22
    Stmp3 = Sa23
    Sa22 = Sv12 * Sa21
    Sa23 = Sv13 * Sa21
    Sa21 = Sv11 * Sa21
    Stmp1 = Sv21 * Stmp2
    Sa21 = Sa21 + Stmp1
    Stmp1 = Sv31 * Stmp3
    Sa21 = Sa21 + Stmp1
    Stmp1 = Sv22 * Stmp2
    Sa22 = Sa22 + Stmp1
    Stmp1 = Sv32 * Stmp3
    Sa22 = Sa22 + Stmp1
    Stmp1 = Sv23 * Stmp2
    Sa23 = Sa23 + Stmp1
    Stmp1 = Sv33 * Stmp3
    Sa23 = Sa23 + Stmp1
    Stmp2 = Sa32
    Stmp3 = Sa33
    Sa32 = Sv12 * Sa31
    Sa33 = Sv13 * Sa31
    Sa31 = Sv11 * Sa31
    Stmp1 = Sv21 * Stmp2
    Sa31 = Sa31 + Stmp1
    Stmp1 = Sv31 * Stmp3
    Sa31 = Sa31 + Stmp1
    Stmp1 = Sv22 * Stmp2
    Sa32 = Sa32 + Stmp1
    Stmp1 = Sv32 * Stmp3
    Sa32 = Sa32 + Stmp1
    Stmp1 = Sv23 * Stmp2
    Sa33 = Sa33 + Stmp1
    Stmp1 = Sv33 * Stmp3
    Sa33 = Sa33 + Stmp1
    Stmp1 = Sa11 * Sa11
    Stmp4 = Sa21 * Sa21
    Stmp1 = Stmp1 + Stmp4
    Stmp4 = Sa31 * Sa31
    Stmp1 = Stmp1 + Stmp4
    Stmp2 = Sa12 * Sa12
    Stmp4 = Sa22 * Sa22
    Stmp2 = Stmp2 + Stmp4
    Stmp4 = Sa32 * Sa32
    Stmp2 = Stmp2 + Stmp4
    Stmp3 = Sa13 * Sa13
    Stmp4 = Sa23 * Sa23
    Stmp3 = Stmp3 + Stmp4
    Stmp4 = Sa33 * Sa33
    Stmp3 = Stmp3 + Stmp4
    mStmp4 = select(Stmp1 < Stmp2, 1, 0)
    Stmp5 = Sa11
    Sa11 = select(mStmp4 != 0, Sa12, Sa11)
    Sa12 = select(mStmp4 != 0, Stmp5, Sa12)
    Stmp5 = Sa21
    Sa21 = select(mStmp4 != 0, Sa22, Sa21)
    Sa22 = select(mStmp4 != 0, Stmp5, Sa22)
    Stmp5 = Sa31
    Sa31 = select(mStmp4 != 0, Sa32, Sa31)
    Sa32 = select(mStmp4 != 0, Stmp5, Sa32)
    Stmp5 = Sv11
    Sv11 = select(mStmp4 != 0, Sv12, Sv11)
    Sv12 = select(mStmp4 != 0, Stmp5, Sv12)
    Stmp5 = Sv21
    Sv21 = select(mStmp4 != 0, Sv22, Sv21)
    Sv22 = select(mStmp4 != 0, Stmp5, Sv22)
    Stmp5 = Sv31
    Sv31 = select(mStmp4 != 0, Sv32, Sv31)
    Sv32 = select(mStmp4 != 0, Stmp5, Sv32)
    Stmp5 = Stmp1
    Stmp1 = select(mStmp4 != 0, Stmp2, Stmp1)
    Stmp2 = select(mStmp4 != 0, Stmp5, Stmp2)
    Stmp5 = cast(-2.0, dt)
    Stmp5 = select(mStmp4 != 0, Stmp5, zero)
    Stmp4 = cast(1.0, dt)
    Stmp4 = Stmp4 + Stmp5
    Sa12 = Sa12 * Stmp4
    Sa22 = Sa22 * Stmp4
    Sa32 = Sa32 * Stmp4
    Sv12 = Sv12 * Stmp4
    Sv22 = Sv22 * Stmp4
    Sv32 = Sv32 * Stmp4
    mStmp4 = select(Stmp1 < Stmp3, 1, 0)
    Stmp5 = Sa11
    Sa11 = select(mStmp4 != 0, Sa13, Sa11)
    Sa13 = select(mStmp4 != 0, Stmp5, Sa13)
    Stmp5 = Sa21
    Sa21 = select(mStmp4 != 0, Sa23, Sa21)
    Sa23 = select(mStmp4 != 0, Stmp5, Sa23)
    Stmp5 = Sa31
    Sa31 = select(mStmp4 != 0, Sa33, Sa31)
    Sa33 = select(mStmp4 != 0, Stmp5, Sa33)
    Stmp5 = Sv11
    Sv11 = select(mStmp4 != 0, Sv13, Sv11)
    Sv13 = select(mStmp4 != 0, Stmp5, Sv13)
    Stmp5 = Sv21
    Sv21 = select(mStmp4 != 0, Sv23, Sv21)
    Sv23 = select(mStmp4 != 0, Stmp5, Sv23)
    Stmp5 = Sv31
    Sv31 = select(mStmp4 != 0, Sv33, Sv31)
    Sv33 = select(mStmp4 != 0, Stmp5, Sv33)
    Stmp5 = Stmp1
    Stmp1 = select(mStmp4 != 0, Stmp3, Stmp1)
    Stmp3 = select(mStmp4 != 0, Stmp5, Stmp3)
    Stmp5 = cast(-2.0, dt)
    Stmp5 = select(mStmp4 != 0, Stmp5, zero)
    Stmp4 = cast(1.0, dt)
    Stmp4 = Stmp4 + Stmp5
    Sa11 = Sa11 * Stmp4
    Sa21 = Sa21 * Stmp4
    Sa31 = Sa31 * Stmp4
    Sv11 = Sv11 * Stmp4
    Sv21 = Sv21 * Stmp4
    Sv31 = Sv31 * Stmp4
    mStmp4 = select(Stmp2 < Stmp3, 1, 0)
    Stmp5 = Sa12
    Sa12 = select(mStmp4 != 0, Sa13, Sa12)
    Sa13 = select(mStmp4 != 0, Stmp5, Sa13)
    Stmp5 = Sa22
    Sa22 = select(mStmp4 != 0, Sa23, Sa22)
    Sa23 = select(mStmp4 != 0, Stmp5, Sa23)
    Stmp5 = Sa32
    Sa32 = select(mStmp4 != 0, Sa33, Sa32)
    Sa33 = select(mStmp4 != 0, Stmp5, Sa33)
    Stmp5 = Sv12
    Sv12 = select(mStmp4 != 0, Sv13, Sv12)
    Sv13 = select(mStmp4 != 0, Stmp5, Sv13)
    Stmp5 = Sv22
    Sv22 = select(mStmp4 != 0, Sv23, Sv22)
    Sv23 = select(mStmp4 != 0, Stmp5, Sv23)
    Stmp5 = Sv32
    Sv32 = select(mStmp4 != 0, Sv33, Sv32)
    Sv33 = select(mStmp4 != 0, Stmp5, Sv33)
    Stmp5 = Stmp2
    Stmp2 = select(mStmp4 != 0, Stmp3, Stmp2)
    Stmp3 = select(mStmp4 != 0, Stmp5, Stmp3)
    Stmp5 = cast(-2.0, dt)
    Stmp5 = select(mStmp4 != 0, Stmp5, zero)
    Stmp4 = cast(1.0, dt)
    Stmp4 = Stmp4 + Stmp5
    Sa13 = Sa13 * Stmp4
    Sa23 = Sa23 * Stmp4
    Sa33 = Sa33 * Stmp4
    Sv13 = Sv13 * Stmp4
    Sv23 = Sv23 * Stmp4
    Sv33 = Sv33 * Stmp4
    Su11 = cast(1.0, dt)
    Su21 = cast(0.0, dt)
    Su31 = cast(0.0, dt)
    Su12 = cast(0.0, dt)
    Su22 = cast(1.0, dt)
    Su32 = cast(0.0, dt)
    Su13 = cast(0.0, dt)
    Su23 = cast(0.0, dt)
    Su33 = cast(1.0, dt)
    Ssh = Sa21 * Sa21
    mSsh = select(Ssh >= Ssmall_number, 1, 0)
    Ssh = select(mSsh != 0, Sa21, zero)
    Stmp5 = cast(0.0, dt)
    Sch = Stmp5 - Sa11
    Sch = max(Sch, Sa11)
    Sch = max(Sch, Ssmall_number)
    mStmp5 = select(Sa11 >= Stmp5, 1, 0)
    Stmp1 = Sch * Sch
    Stmp2 = Ssh * Ssh
    Stmp2 = Stmp1 + Stmp2
    Stmp1 = rsqrt(Stmp2)
    Stmp4 = Stmp1 * Sone_half
    Stmp3 = Stmp1 * Stmp4
    Stmp3 = Stmp1 * Stmp3
    Stmp3 = Stmp2 * Stmp3
    Stmp1 = Stmp1 + Stmp4
    Stmp1 = Stmp1 - Stmp3
    Stmp1 = Stmp1 * Stmp2
    Sch = Sch + Stmp1
    Stmp1 = select(mStmp5 != 0, zero, Ssh)
    Stmp2 = select(mStmp5 != 0, zero, Sch)
    Sch = select(mStmp5 != 0, Sch, zero)
    Ssh = select(mStmp5 != 0, Ssh, zero)
    Sch = Sch + Stmp1
    Ssh = Ssh + Stmp2
    Stmp1 = Sch * Sch
    Stmp2 = Ssh * Ssh
    Stmp2 = Stmp1 + Stmp2
    Stmp1 = rsqrt(Stmp2)
    Stmp4 = Stmp1 * Sone_half
    Stmp3 = Stmp1 * Stmp4
    Stmp3 = Stmp1 * Stmp3
    Stmp3 = Stmp2 * Stmp3
    Stmp1 = Stmp1 + Stmp4
    Stmp1 = Stmp1 - Stmp3
    Sch = Sch * Stmp1
    Ssh = Ssh * Stmp1
    Sc = Sch * Sch
    Ss = Ssh * Ssh
    Sc = Sc - Ss
    Ss = Ssh * Sch
    Ss = Ss + Ss
    Stmp1 = Ss * Sa11
    Stmp2 = Ss * Sa21
    Sa11 = Sc * Sa11
    Sa21 = Sc * Sa21
    Sa11 = Sa11 + Stmp2
    Sa21 = Sa21 - Stmp1
    Stmp1 = Ss * Sa12
    Stmp2 = Ss * Sa22
    Sa12 = Sc * Sa12
    Sa22 = Sc * Sa22
    Sa12 = Sa12 + Stmp2
    Sa22 = Sa22 - Stmp1
    Stmp1 = Ss * Sa13
    Stmp2 = Ss * Sa23
    Sa13 = Sc * Sa13
    Sa23 = Sc * Sa23
    Sa13 = Sa13 + Stmp2
    Sa23 = Sa23 - Stmp1
    Stmp1 = Ss * Su11
    Stmp2 = Ss * Su12
    Su11 = Sc * Su11
    Su12 = Sc * Su12
    Su11 = Su11 + Stmp2
    Su12 = Su12 - Stmp1
    Stmp1 = Ss * Su21
    Stmp2 = Ss * Su22
    Su21 = Sc * Su21
    Su22 = Sc * Su22
    Su21 = Su21 + Stmp2
    Su22 = Su22 - Stmp1
    Stmp1 = Ss * Su31
    Stmp2 = Ss * Su32
    Su31 = Sc * Su31
    Su32 = Sc * Su32
    Su31 = Su31 + Stmp2
    Su32 = Su32 - Stmp1
    Ssh = Sa31 * Sa31
    mSsh = select(Ssh >= Ssmall_number, 1, 0)
    Ssh = select(mSsh != 0, Sa31, zero)
    Stmp5 = cast(0.0, dt)
    Sch = Stmp5 - Sa11
    Sch = max(Sch, Sa11)
    Sch = max(Sch, Ssmall_number)
    mStmp5 = select(Sa11 >= Stmp5, 1, 0)
    Stmp1 = Sch * Sch
    Stmp2 = Ssh * Ssh
    Stmp2 = Stmp1 + Stmp2
    Stmp1 = rsqrt(Stmp2)
    Stmp4 = Stmp1 * Sone_half
    Stmp3 = Stmp1 * Stmp4
    Stmp3 = Stmp1 * Stmp3
    Stmp3 = Stmp2 * Stmp3
    Stmp1 = Stmp1 + Stmp4
    Stmp1 = Stmp1 - Stmp3
    Stmp1 = Stmp1 * Stmp2
    Sch = Sch + Stmp1
    Stmp1 = select(mStmp5 != 0, zero, Ssh)
    Stmp2 = select(mStmp5 != 0, zero, Sch)
    Sch = select(mStmp5 != 0, Sch, zero)
    Ssh = select(mStmp5 != 0, Ssh, zero)
    Sch = Sch + Stmp1
    Ssh = Ssh + Stmp2
    Stmp1 = Sch * Sch
    Stmp2 = Ssh * Ssh
    Stmp2 = Stmp1 + Stmp2
    Stmp1 = rsqrt(Stmp2)
    Stmp4 = Stmp1 * Sone_half
    Stmp3 = Stmp1 * Stmp4
    Stmp3 = Stmp1 * Stmp3
    Stmp3 = Stmp2 * Stmp3
    Stmp1 = Stmp1 + Stmp4
    Stmp1 = Stmp1 - Stmp3
    Sch = Sch * Stmp1
    Ssh = Ssh * Stmp1
    Sc = Sch * Sch
    Ss = Ssh * Ssh
    Sc = Sc - Ss
    Ss = Ssh * Sch
    Ss = Ss + Ss
    Stmp1 = Ss * Sa11
    Stmp2 = Ss * Sa31
    Sa11 = Sc * Sa11
    Sa31 = Sc * Sa31
    Sa11 = Sa11 + Stmp2
    Sa31 = Sa31 - Stmp1
    Stmp1 = Ss * Sa12
    Stmp2 = Ss * Sa32
    Sa12 = Sc * Sa12
    Sa32 = Sc * Sa32
    Sa12 = Sa12 + Stmp2
    Sa32 = Sa32 - Stmp1
    Stmp1 = Ss * Sa13
    Stmp2 = Ss * Sa33
    Sa13 = Sc * Sa13
    Sa33 = Sc * Sa33
    Sa13 = Sa13 + Stmp2
    Sa33 = Sa33 - Stmp1
    Stmp1 = Ss * Su11
    Stmp2 = Ss * Su13
    Su11 = Sc * Su11
    Su13 = Sc * Su13
    Su11 = Su11 + Stmp2
    Su13 = Su13 - Stmp1
    Stmp1 = Ss * Su21
    Stmp2 = Ss * Su23
    Su21 = Sc * Su21
    Su23 = Sc * Su23
    Su21 = Su21 + Stmp2
    Su23 = Su23 - Stmp1
    Stmp1 = Ss * Su31
    Stmp2 = Ss * Su33
    Su31 = Sc * Su31
    Su33 = Sc * Su33
    Su31 = Su31 + Stmp2
    Su33 = Su33 - Stmp1
    Ssh = Sa32 * Sa32
    mSsh = select(Ssh >= Ssmall_number, 1, 0)
    Ssh = select(mSsh != 0, Sa32, zero)
    Stmp5 = cast(0.0, dt)
    Sch = Stmp5 - Sa22
    Sch = max(Sch, Sa22)
    Sch = max(Sch, Ssmall_number)
    mStmp5 = select(Sa22 >= Stmp5, 1, 0)
    Stmp1 = Sch * Sch
    Stmp2 = Ssh * Ssh
    Stmp2 = Stmp1 + Stmp2
    Stmp1 = rsqrt(Stmp2)
    Stmp4 = Stmp1 * Sone_half
    Stmp3 = Stmp1 * Stmp4
    Stmp3 = Stmp1 * Stmp3
    Stmp3 = Stmp2 * Stmp3
    Stmp1 = Stmp1 + Stmp4
    Stmp1 = Stmp1 - Stmp3
    Stmp1 = Stmp1 * Stmp2
    Sch = Sch + Stmp1
    Stmp1 = select(mStmp5 != 0, zero, Ssh)
    Stmp2 = select(mStmp5 != 0, zero, Sch)
    Sch = select(mStmp5 != 0, Sch, zero)
    Ssh = select(mStmp5 != 0, Ssh, zero)
    Sch = Sch + Stmp1
    Ssh = Ssh + Stmp2
    Stmp1 = Sch * Sch
    Stmp2 = Ssh * Ssh
    Stmp2 = Stmp1 + Stmp2
    Stmp1 = rsqrt(Stmp2)
    Stmp4 = Stmp1 * Sone_half
    Stmp3 = Stmp1 * Stmp4
    Stmp3 = Stmp1 * Stmp3
    Stmp3 = Stmp2 * Stmp3
    Stmp1 = Stmp1 + Stmp4
    Stmp1 = Stmp1 - Stmp3
    Sch = Sch * Stmp1
    Ssh = Ssh * Stmp1
    Sc = Sch * Sch
    Ss = Ssh * Ssh
    Sc = Sc - Ss
    Ss = Ssh * Sch
    Ss = Ss + Ss
    Stmp1 = Ss * Sa21
    Stmp2 = Ss * Sa31
    Sa21 = Sc * Sa21
    Sa31 = Sc * Sa31
    Sa21 = Sa21 + Stmp2
    Sa31 = Sa31 - Stmp1
    Stmp1 = Ss * Sa22
    Stmp2 = Ss * Sa32
    Sa22 = Sc * Sa22
    Sa32 = Sc * Sa32
    Sa22 = Sa22 + Stmp2
    Sa32 = Sa32 - Stmp1
    Stmp1 = Ss * Sa23
    Stmp2 = Ss * Sa33
    Sa23 = Sc * Sa23
    Sa33 = Sc * Sa33
    Sa23 = Sa23 + Stmp2
    Sa33 = Sa33 - Stmp1
    Stmp1 = Ss * Su12
    Stmp2 = Ss * Su13
    Su12 = Sc * Su12
    Su13 = Sc * Su13
    Su12 = Su12 + Stmp2
    Su13 = Su13 - Stmp1
    Stmp1 = Ss * Su22
    Stmp2 = Ss * Su23
    Su22 = Sc * Su22
    Su23 = Sc * Su23
    Su22 = Su22 + Stmp2
    Su23 = Su23 - Stmp1
    Stmp1 = Ss * Su32
    Stmp2 = Ss * Su33
    Su32 = Sc * Su32
    Su33 = Sc * Su33
    Su32 = Su32 + Stmp2
    Su33 = Su33 - Stmp1

    return (Su11, Su12, Su13, Su21, Su22, Su23, Su31, Su32, Su33,
            Sv11, Sv12, Sv13, Sv21, Sv22, Sv23, Sv31, Sv32, Sv33, Sa11, Sa22, Sa33)


@func
def _svd3d(A, dt):
    u00, u01, u02, u10, u11, u12, u20, u21, u22, v00, v01, v02, v10, v11, v12, v20, v21, v22, s0, s1, s2 = \
        _sifakis3(A, dt, static(5 if dt == f32 else 8))
    U = Matrix([[u00, u01, u02], [u10, u11, u12], [u20, u21, u22]], dt=dt)
    V = Matrix([[v00, v01, v02], [v10, v11, v12], [v20, v21, v22]], dt=dt)
    sig = Vector([s0, s1, s2], dt=dt)
    # selection sort, descending, swapping U's and V's columns along (Quadrants' get_result)
    parity = 0
    for i in static(range(3)):
        for j in static(range(3)):
            if static(j > i):
                if sig[j] > sig[i]:  # the first strict maximum wins, as Quadrants' scan
                    is_max = 1
                    for k in static(range(3)):
                        if static(k > j):
                            if sig[k] > sig[j]:
                                is_max = 0
                    if is_max == 1:
                        tmp = sig[i]
                        sig[i] = sig[j]
                        sig[j] = tmp
                        for r in static(range(3)):
                            tu = U[r, i]
                            U[r, i] = U[r, j]
                            U[r, j] = tu
                            tv = V[r, i]
                            V[r, i] = V[r, j]
                            V[r, j] = tv
                        parity = 1 - parity
    if parity == 1:
        for r in static(range(3)):
            U[r, 0] = -U[r, 0]
            V[r, 0] = -V[r, 0]
    zero = cast(0.0, dt)
    S = Matrix([[sig[0], zero, zero], [zero, sig[1], zero], [zero, zero, sig[2]]], dt=dt)
    return U, S, V


@func
def _polar_decompose2d(A, dt):
    U = Matrix([[1.0, 0.0], [0.0, 1.0]], dt=dt)
    P = Matrix([[A[0, 0], A[0, 1]], [A[1, 0], A[1, 1]]], dt=dt)
    zero = cast(0.0, dt)
    if A[0, 0] == zero and A[0, 1] == zero and A[1, 0] == zero and A[1, 1] == zero:
        pass
    else:
        detA = A[0, 0] * A[1, 1] - A[1, 0] * A[0, 1]
        adetA = abs(detA)
        B = Matrix([[A[0, 0] + A[1, 1], A[0, 1] - A[1, 0]], [A[1, 0] - A[0, 1], A[1, 1] + A[0, 0]]], dt=dt)
        if detA < zero:
            B = Matrix([[A[0, 0] - A[1, 1], A[0, 1] + A[1, 0]], [A[1, 0] + A[0, 1], A[1, 1] - A[0, 0]]], dt=dt)
        adetB = abs(B[0, 0] * B[1, 1] - B[1, 0] * B[0, 1])
        k = cast(1.0, dt) / sqrt(adetB)
        U = B * k
        P = (A.transpose() @ A + adetA * Matrix([[1.0, 0.0], [0.0, 1.0]], dt=dt)) * k
    return U, P


@func
def _svd2d(A, dt):
    R, S = _polar_decompose2d(A, dt)
    c, s = cast(0.0, dt), cast(0.0, dt)
    s1, s2 = cast(0.0, dt), cast(0.0, dt)
    if abs(S[0, 1]) < 1e-5:
        c, s = cast(1.0, dt), cast(0.0, dt)
        s1, s2 = S[0, 0], S[1, 1]
    else:
        tao = cast(0.5, dt) * (S[0, 0] - S[1, 1])
        w = sqrt(tao**2 + S[0, 1] ** 2)
        t = cast(0.0, dt)
        if tao > 0:
            t = S[0, 1] / (tao + w)
        else:
            t = S[0, 1] / (tao - w)
        c = 1 / sqrt(t**2 + 1)
        s = -t * c
        s1 = c**2 * S[0, 0] - 2 * c * s * S[0, 1] + s**2 * S[1, 1]
        s2 = s**2 * S[0, 0] + 2 * c * s * S[0, 1] + c**2 * S[1, 1]
    V = Matrix([[c, s], [-s, c]], dt=dt)
    if s1 < s2:
        tmp = s1
        s1 = s2
        s2 = tmp
        V = Matrix([[-s, c], [-c, -s]], dt=dt)
    U = R @ V
    return U, Matrix([[s1, cast(0.0, dt)], [cast(0.0, dt), s2]], dt=dt), V


@func
def _polar_decompose3d(A, dt):
    U, sig, V = _svd3d(A, dt)
    return U @ V.transpose(), V @ sig @ V.transpose()


def _square(n: int, m: int) -> int:
    if n != m or n not in (2, 3):
        raise ValueError(f"qd.svd / qd.polar_decompose take a 2x2 or 3x3 matrix, got {n}x{m}")
    return n




@func
def svd(A, dt=None):
    """A = U @ S @ V.transpose() for a 2x2 or 3x3 matrix: (U, S, V), S diagonal and descending."""
    if static(_square(A.n, A.m) == 2):
        return _svd2d(A, static(float_type(dt)))
    else:
        return _svd3d(A, static(float_type(dt)))


@func
def polar_decompose(A, dt=None):
    """A = U @ P for a 2x2 or 3x3 matrix: U orthogonal, P symmetric positive semi-definite."""
    if static(_square(A.n, A.m) == 2):
        return _polar_decompose2d(A, static(float_type(dt)))
    else:
        return _polar_decompose3d(A, static(float_type(dt)))


__all__ = ["svd", "polar_decompose"]
