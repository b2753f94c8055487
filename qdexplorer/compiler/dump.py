"""Quadrants-compatible dump and load folders.

`--dump DIR` (or `QD_DUMP_IR=1` with `QD_DEBUG_DUMP_PATH`) writes `<task>_before_ptx.ll` and
`<task>.ptx` per task; `--load-ptx DIR` (or `QUADRANTS_LOAD_PTX=1`) loads `<task>.ptx` from DIR
for the tasks that have one. Files never contain the NUL terminator the driver wants.
"""
from __future__ import annotations

import os
from pathlib import Path

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
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for ct in compiled:
        if ct.module is None:
            continue
        ll = folder / f"{ct.task}_before_ptx.ll"
        ll.write_text(ct.module.text)
        written.append(ll)
        if ct.target == "nvptx" and ct.generated:
            p = folder / f"{ct.task}.ptx"
            p.write_bytes(ct.generated.replace(b"\x00", b""))
            written.append(p)
    return written
