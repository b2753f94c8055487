"""Fast math on CUDA, as Quadrants has it: the GPU's approximate f32 instructions.

With `fast_math` on (Quadrants' default), f32 math on NVPTX uses the special-function unit:

- `sin`/`cos`: range reduction to [-pi, pi] (x - rint(x / 2pi) * 2pi, with 2pi split in two
  floats and fused multiply-adds so the reduction is exact well beyond |x| = 1e5), then
  `sin.approx` / `cos.approx` (absolute error about 2^-21 there);
- `exp`: `ex2.approx(x * log2 e)` with the rounding error of the product added back (one fma
  pair), so large |x| keeps a few-ulp result instead of losing bits to the product;
- `log`: `lg2.approx(x) * ln 2` (libdevice's `__nv_fast_logf`, which Quadrants calls);
- `rsqrt`: `rsqrt.approx`; `sqrt` and f32 division carry `afn` (`sqrt.approx`, `div.approx`);
- denormals flush to zero (`ftz`): the entry function is `denormal-fp-math-f32=preserve-sign` and
  libdevice's reflect flag is set, as in Quadrants' CUDA JIT.

The other functions (tan, tanh, asin, acos, atan, atan2, pow) stay libdevice, as in Quadrants.
Off: every function is libdevice, divisions are IEEE `div.rn`. The host ignores the setting.
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir as L
from .emitter_base import EmitterBase

F32 = L.FloatType()
APPROX = {"sin", "cos", "exp", "log", "rsqrt", "sqrt"}  # f32 functions fast math replaces
FTZ_ATTRIBUTE = '"denormal-fp-math-f32"="preserve-sign"'
_TWO_PI_HI = float(np.float32(2 * math.pi))
_TWO_PI_LO = float(np.float32(2 * math.pi - _TWO_PI_HI))
_INV_TWO_PI = float(np.float32(1 / (2 * math.pi)))
_LOG2E = float(np.float32(math.log2(math.e)))
_LOG2E_LO = float(np.float32(math.log2(math.e) - _LOG2E))
_LN2 = float(np.float32(math.log(2)))
_NOTE = ("fast math: f32 sin/cos via range reduction + sin.approx/cos.approx, exp/log via "
         "ex2.approx/lg2.approx, rsqrt.approx, sqrt/div .approx, ftz (fast_math=False for libdevice)")


def enable_ftz(fn: L.Function) -> None:
    """Flush f32 denormals in `fn` (llvmlite knows no string attributes, so add it raw)."""
    set.add(fn.attributes, FTZ_ATTRIBUTE)


class FastMathEmitter(EmitterBase):
    """Mixin of the task emitter; active when `self.fast` (nvptx and fast_math)."""

    def fast_note(self):
        if not self._logged_fast:
            self.log.append(_NOTE)
            self._logged_fast = True

    def fdiv(self, x, y, dt):
        if self.fast and dt.bits == 32:
            self.fast_note()
            return self.b.fdiv(x, y, flags=("afn",))
        if not self.nv and self.o.fast_math:   # the host's fast math: the flags of every other float op
            return self.b.fdiv(x, y, flags=self.contract)
        return self.b.fdiv(x, y)

    def fast_call(self, fn, args):
        """The approximate f32 form of qd.<fn>(*args)."""
        self.fast_note()
        b = self.b

        def nvvm(name, *a):
            return b.call(self.intrinsic(name, F32, [F32] * len(a)), list(a))

        def fma(x, y, z):
            return nvvm("llvm.fma.f32", x, y, z)

        x = args[0]
        if fn in ("sin", "cos"):
            k = nvvm("llvm.rint.f32", b.fmul(x, F32(_INV_TWO_PI)))
            nk = b.fneg(k)
            r = fma(nk, F32(_TWO_PI_LO), fma(nk, F32(_TWO_PI_HI), x))
            return nvvm(f"llvm.nvvm.{fn}.approx.ftz.f", r)
        if fn == "exp":
            hi = b.fmul(x, F32(_LOG2E))
            lo = fma(x, F32(_LOG2E_LO), fma(x, F32(_LOG2E), b.fneg(hi)))  # x*log2(e) - hi, exactly
            # 2^(hi+lo) = 2^hi * (1 + lo*ln2); multiplying keeps inf and 0 as they are
            return b.fmul(nvvm("llvm.nvvm.ex2.approx.ftz.f", hi), b.fadd(F32(1.0), b.fmul(lo, F32(_LN2))))
        if fn == "log":
            return b.fmul(nvvm("llvm.nvvm.lg2.approx.ftz.f", x), F32(_LN2))
        if fn == "rsqrt":
            return nvvm("llvm.nvvm.rsqrt.approx.ftz.f", x)
        if fn == "sqrt":
            return b.call(self.intrinsic("llvm.sqrt.f32", F32, [F32]), [x], fastmath=("afn",))
        raise AssertionError(fn)
