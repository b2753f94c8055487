"""What a sweep varies: one combination of settings (`Variant`) and the engine that can become it
(`SweepEngine`). Its own module so that the sweep and its lanes (`sweep_lanes`) both build on it
without importing each other."""
from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from .engine_api import BenchEngine


class SweepEngine(BenchEngine, Protocol):
    """An engine that can become any variant a sweep names, and be stopped from another thread."""

    def variant(self, *, hide_overrides: bool | str = False, mode: str | None = None, block_dim: int | None = None,
                fast_math: bool | None = None) -> AbstractContextManager[None]: ...

    def stop(self) -> None: ...


def show(value: Any) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class Variant:
    """One combination of settings, in the order the sweep names them."""
    settings: tuple[tuple[str, Any], ...]

    @property
    def label(self) -> str:
        return ",".join(f"{k}={show(v)}" for k, v in self.settings)

    def kwargs(self) -> dict[str, Any]:
        """The `Engine.variant` keywords that make it."""
        return dict(self.settings)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.settings)
