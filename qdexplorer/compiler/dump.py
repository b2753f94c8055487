"""Quadrants-compatible dump and load folders.

`--dump DIR` (or `QD_DUMP_IR=1` with `QD_DEBUG_DUMP_PATH`) writes `<task>_before_ptx.ll` and
`<task>.ptx` per task; `--load-ptx DIR` (or `QUADRANTS_LOAD_PTX=1`) loads `<task>.ptx` from DIR
for the tasks that have one. Files never contain the NUL terminator the driver wants.
Task names become file names, so they are checked, and a symlink in the folder is refused rather
than written through (`safe_files`).
"""
from __future__ import annotations

import os
from pathlib import Path

from ..lang.errors import QdError
from .safe_files import check_folder, check_task_name, write_atomic

QUADRANTS_DEFAULT_DUMP = "/tmp/ir"


def env_dump_dir() -> str | None:
    if os.environ.get("QD_DUMP_IR", "") in ("1", "true", "True"):
        return os.environ.get("QD_DEBUG_DUMP_PATH", QUADRANTS_DEFAULT_DUMP)
    return None


def env_load_dir() -> str | None:
    if os.environ.get("QUADRANTS_LOAD_PTX", "") in ("1", "true", "True"):
        return os.environ.get("QD_DEBUG_DUMP_PATH", QUADRANTS_DEFAULT_DUMP)
    return None


def dump(compiled, folder: str | Path) -> list[Path]:
    folder = check_folder(Path(folder), create=True)
    written = []
    try:
        for ct in compiled:
            if ct.module is None:
                continue
            name = check_task_name(ct.task)
            written.append(write_atomic(folder, f"{name}_before_ptx.ll", ct.module.text.encode()))
            if ct.target == "nvptx" and ct.generated:
                written.append(write_atomic(folder, f"{name}.ptx", ct.generated.replace(b"\x00", b"")))
    except OSError as e:
        raise QdError(f"cannot write the dump into {folder}: {e.strerror or e}"
                      f"{' (' + e.filename + ')' if getattr(e, 'filename', None) else ''}") from None
    return written
