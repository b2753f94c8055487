"""What an SQLite error on the run history means, in one line that names the file and the fix.

SQLite reports a full disk, a file-size limit (`ulimit -f`) and a read-only file with a handful of
generic messages ("database or disk is full", "disk I/O error", "attempt to write a readonly
database"); the user needs to know which one it was, and that the history itself is intact.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

try:
    import resource
except ImportError:  # Windows
    resource = None  # type: ignore[assignment]

LOW_DISK_BYTES = 1 << 20


def describe(path: Path, e: sqlite3.Error) -> str:
    text = str(e)
    low = text.lower()
    if "readonly" in low or "read-only" in low or (
            "unable to open" in low and not os.access(path.parent, os.W_OK | os.X_OK)):
        return (f"cannot write the run history {path}: it (or its folder) is read-only for you; fix its "
                f"permissions, or move it aside ({text})")
    if "full" in low or "i/o error" in low:
        limit = file_size_limit()
        if limit is not None:
            return (f"cannot write the run history {path}: the file-size limit (ulimit -f, {limit} bytes) stops it "
                    f"from growing; raise the limit (ulimit -f unlimited). The history is intact ({text})")
        if free_bytes(path.parent) < LOW_DISK_BYTES:
            return (f"cannot write the run history {path}: the disk is full; free some space and run again. The "
                    f"history is intact ({text})")
        return f"cannot write the run history {path}: {text} (a failing disk?)"
    if "locked" in low or "busy" in low:
        return f"the run history {path} is locked by another process (a bench still running?); try again ({text})"
    if "malformed" in low or "not a database" in low or isinstance(e, sqlite3.DatabaseError) and \
            not isinstance(e, sqlite3.OperationalError):
        return f"the run history {path} is damaged ({text}); copy out what you need and move it aside"
    return f"the run history {path}: {text}"


def file_size_limit() -> int | None:
    if resource is None:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    return None if soft == resource.RLIM_INFINITY else soft


def free_bytes(folder: Path) -> int:
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return 1 << 62
