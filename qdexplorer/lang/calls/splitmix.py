"""SplitMix64's constants and finaliser, shared by the host (each call's random key) and the
kernels' random numbers (frontend/random.py emits the same arithmetic as IR)."""
from __future__ import annotations

GOLDEN = 0x9E3779B97F4A7C15  # 2^64 / golden ratio: SplitMix64's increment
MIX = ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB))  # (shift, multiplier) rounds, then z ^ (z >> 31)
LAST_SHIFT = 31
MASK64 = (1 << 64) - 1


def mix64(z: int) -> int:
    """The finaliser: a bijection of 64-bit words whose outputs pass BigCrush on a counter."""
    for shift, mul in MIX:
        z = ((z ^ (z >> shift)) * mul) & MASK64
    return z ^ (z >> LAST_SHIFT)
