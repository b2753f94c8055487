"""`qd.cfg` (and Quadrants' `impl.current_cfg()`): the settings of the current `qd.init`, read-only.

Programs read `qd.cfg.arch` to re-initialise on the same backend (`qd.init(arch=getattr(qd,
qd.cfg.arch.name), ...)`), or `qd.cfg.debug`; any other option reads what `qd.init` was given."""
from __future__ import annotations

from ..calls import runtime_api


class CompileConfig:
    """A live view: every read answers from the current `qd.init`, so a module-level `qd.cfg`
    never goes stale across `qd.init` / `qd.reset`."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        opts = runtime_api.init_options()
        if name in opts:
            return opts[name]
        raise AttributeError(f"qd.cfg.{name}: not an option the current qd.init was given (it has: "
                             f"arch, debug, default_fp, default_ip{''.join(', ' + k for k in sorted(opts))})")

    @property
    def arch(self):
        return runtime_api.current_arch()

    @property
    def debug(self) -> bool:
        return runtime_api.debug()

    @property
    def default_fp(self):
        return runtime_api.default_types()[1]

    @property
    def default_ip(self):
        return runtime_api.default_types()[0]


cfg = CompileConfig()
