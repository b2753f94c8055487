"""Libdevice, linked per function: only the `__nv_*` functions a task calls, and what they call.

Linking the whole of libdevice (575 functions) into every math task made LLVM clone, optimise
and throw away hundreds of functions per task. Instead, each compile-pool process parses
libdevice's bitcode once, and for each set of requested functions makes a trimmed copy once
(parse, internalise every other function, global dead-code elimination: ~50 ms, less than
cloning a parsed copy). The trimmed copy is kept as bitcode (a few KB) and parsed afresh for
each task that links it, since linking consumes it.
"""
from __future__ import annotations

_raw: dict = {}      # path -> libdevice bitcode bytes
_trimmed: dict = {}  # (path, names) -> bitcode of the trimmed copy


def _parsed(llvm, path):
    raw = _raw.get(path)
    if raw is None:
        with open(path, "rb") as fh:
            raw = _raw[path] = fh.read()
    mod = llvm.parse_bitcode(raw)
    mod.triple = "nvptx64-nvidia-cuda"
    return mod


def libdevice_subset(llvm, path: str, names, tm, context=None):
    """A fresh module holding `names` from libdevice at `path` and their callees, nothing else, parsed
    into `context` (the request's: a module links only with modules of its own context)."""
    key = (path, frozenset(names))
    bc = _trimmed.get(key)
    if bc is None:
        lib = _parsed(llvm, path)
        missing = set(names) - {f.name for f in lib.functions}
        if missing:
            raise RuntimeError(f"libdevice at {path} has no {', '.join(sorted(missing))}")
        for f in lib.functions:
            if not f.is_declaration and f.name not in key[1]:
                f.linkage = "internal"
        for g in lib.global_variables:
            if not g.is_declaration:
                g.linkage = "internal"
        pm = llvm.create_new_module_pass_manager()
        pm.add_global_dead_code_eliminate_pass()
        pm.run(lib, llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options()))
        bc = _trimmed[key] = lib.as_bitcode()
    return llvm.parse_bitcode(bc, context)
