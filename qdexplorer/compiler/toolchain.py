"""The compiler's identity, as a cache key ingredient: what produced an entry, not a version number.

Triton's `triton_key()` hashes its own source; so does this. A local edit of the code generator
or of the compile stages, or a reinstall of the same version with other code, changes the
identity, so no disk entry written by other compiler code is ever served.
"""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import llvmlite

_PACKAGES = ("codegen", "compiler", "ir", "lang", "machine")  # ir: what codegen reads; lang: what lowers to it; machine: LLVM set-up, arch


@functools.lru_cache(maxsize=1)
def source_hash() -> str:
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for pkg in _PACKAGES:
        for f in sorted((root / pkg).rglob("*.py")):
            h.update(str(f.relative_to(root)).encode())
            h.update(b"\0")
            h.update(f.read_bytes())
    return h.hexdigest()[:20]


def toolchain_identity() -> str:
    return f"llvmlite={llvmlite.__version__};qdexplorer-src={source_hash()}"
