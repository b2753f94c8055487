"""CompositeModule: N per-task CUDA modules behind one object that resolves entry points by name.

Lookups are memoised by name; replacing one unit (a recompiled task, or an edited PTX) unloads
that unit's module alone and drops only its names from the memo.
"""
from __future__ import annotations

from cuda.bindings import driver as cu

from .driver import check


class CompositeModule:
    def __init__(self):
        self.modules: dict[str, object] = {}      # unit -> CUmodule
        self.entries: dict[str, set[str]] = {}    # unit -> entry names it provides
        self.owner: dict[str, str] = {}           # entry name -> unit
        self._memo: dict[str, object] = {}        # entry name -> CUfunction
        self.lookups = 0                          # driver lookups (memo misses)
        self.hits = 0                             # memo hits

    def replace(self, unit: str, module, entries) -> object | None:
        """Install `module` for `unit`; returns the module it replaced (already unloaded)."""
        old = self.modules.get(unit)
        for name in self.entries.get(unit, ()):
            self._memo.pop(name, None)
            self.owner.pop(name, None)
        self.modules[unit] = module
        self.entries[unit] = set(entries)
        for name in entries:
            self.owner[name] = unit
            self._memo.pop(name, None)
        if old is not None and old is not module:
            check("cuModuleUnload", cu.cuModuleUnload(old))
        return old

    def remove(self, unit: str):
        mod = self.modules.pop(unit, None)
        for name in self.entries.pop(unit, ()):
            self._memo.pop(name, None)
            self.owner.pop(name, None)
        if mod is not None:
            check("cuModuleUnload", cu.cuModuleUnload(mod))

    def function(self, name: str):
        f = self._memo.get(name)
        if f is not None:
            self.hits += 1
            return f
        unit = self.owner.get(name)
        order = [unit] if unit is not None else list(self.modules)
        for u in order:
            err, f = cu.cuModuleGetFunction(self.modules[u], name.encode())
            self.lookups += 1
            if err == cu.CUresult.CUDA_SUCCESS:
                self._memo[name] = f
                return f
        raise KeyError(f"no loaded module provides entry point {name!r}")

    def __contains__(self, name: str) -> bool:
        return name in self.owner

    def close(self):
        for unit in list(self.modules):
            try:
                self.remove(unit)
            except Exception:  # noqa: BLE001 - the context may already be gone
                pass
