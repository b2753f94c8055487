"""Counted nouns as a user reads them: "1 task", "2 tasks" (the CLI and the window said "1 tasks")."""
from __future__ import annotations

_IRREGULAR = {"launch": "launches", "GPU": "GPUs", "match": "matches"}


def plural(n: int, noun: str, many: str | None = None) -> str:
    """`n` and the noun, singular for exactly one."""
    return f"{n} {noun if n == 1 else (many or _IRREGULAR.get(noun) or noun + 's')}"


def rounds_a_side(ra: int, rb: int) -> str:
    """The rounds of a comparison in one wording everywhere: '10 rounds a side' or 'A 10 rounds, B 8'."""
    return f"{plural(ra, 'round')} a side" if ra == rb else f"A {plural(ra, 'round')}, B {rb}"
