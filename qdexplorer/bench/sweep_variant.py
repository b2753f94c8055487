"""What a sweep varies: one combination of settings (`Variant`) and the engine that can become it
(`SweepEngine`). Its own module so that the sweep and its lanes (`sweep_lanes`) both build on it
without importing each other."""
from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from ..ir.errors import QdError
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


def group_runs(runs: list, name: str, history_path) -> tuple[list[Variant], Variant, list[tuple[Variant, str, Any]]]:
    """A saved sweep's runs grouped into its variants, the one rule `sweep --show`, the window's heat
    map and `--resume` read: (variants with the default first, the default, (variant, device, run) of
    each run). A run's variant is in its context's `extra["variant"]`, its device after the '@' of its
    name; the default is the variant of a run marked `sweep_default`."""
    variants: list[Variant] = []
    default: Variant | None = None
    members = []
    for r in runs:
        v = Variant(tuple(r.context.extra.get("variant", {}).items()))
        if v not in variants:
            variants.append(v)
        if r.context.extra.get("sweep_default"):
            default = v
        members.append((v, (r.name or "").rpartition("@")[2], r))
    if default is None:
        raise QdError(f"sweep {name!r}: no run of its default was saved in {history_path}; run it again under a "
                      f"new --save name")
    variants.remove(default)
    variants.insert(0, default)
    return variants, default, members
