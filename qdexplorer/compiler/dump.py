"""Quadrants-compatible dump and load folders.

`--dump DIR` (or `QD_DUMP_IR=1` with `QD_DEBUG_DUMP_PATH`) writes `<task>_before_ptx.ll` and
`<task>.ptx` per task; `--load-ptx DIR` (or `QUADRANTS_LOAD_PTX=1`) loads `<task>.ptx` from DIR
for the tasks that have one, and `QD_LOAD_IR=1` loads `<task>_before_ptx.ll` in place of the
generated LLVM IR. Files never contain the NUL terminator the driver wants. Task names become
file names, so they are checked, and a symlink in the folder is refused rather than written
through (`safe_files`).
"""
from __future__ import annotations

import os
from pathlib import Path

from ..ir.errors import QdError
from .safe_files import check_folder, check_task_name, write_atomic

QUADRANTS_DEFAULT_DUMP = "/tmp/ir"  # Quadrants' default; not ours (see default_dump_dir)


def default_dump_dir() -> str:
    """Where `QD_DUMP_IR` / `QD_LOAD_IR` go without `QD_DEBUG_DUMP_PATH`: a folder of this user's
    (`<user cache>/qdexplorer/ir`), not Quadrants' `/tmp/ir`, which any local user can create first
    and fill with LLVM IR for us to load."""
    try:
        import platformdirs
        base = Path(platformdirs.user_cache_dir("qdexplorer"))
    except ImportError:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "qdexplorer"
    return str(base / "ir")


def env_dump_dir() -> str | None:
    if os.environ.get("QD_DUMP_IR", "") in ("1", "true", "True"):
        return os.environ.get("QD_DEBUG_DUMP_PATH") or default_dump_dir()
    return None


def env_load_dir() -> str | None:
    if env_load_kinds():
        return os.environ.get("QD_DEBUG_DUMP_PATH") or default_dump_dir()
    return None


def env_load_kinds() -> tuple[str, ...]:
    """Which stages the load folder feeds: PTX with QUADRANTS_LOAD_PTX=1, LLVM IR with QD_LOAD_IR=1."""
    on = ("1", "true", "True")
    return tuple(k for k, var in (("ptx", "QUADRANTS_LOAD_PTX"), ("ll", "QD_LOAD_IR")) if os.environ.get(var, "") in on)


def dump_artifact(folder: str | Path, name: str, suffix: str, data: bytes) -> Path:
    """Write one stage's output as `<name><suffix>` (called by the pipeline at every stage)."""
    folder = check_folder(Path(folder), create=True)
    try:
        return write_atomic(folder, f"{check_task_name(name)}{suffix}", data.replace(b"\x00", b""))
    except OSError as e:
        raise QdError(f"cannot write the dump into {folder}: {e.strerror or e}") from None
