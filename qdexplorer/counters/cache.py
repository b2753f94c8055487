"""Profiles kept on disk, so an unchanged task is never profiled twice.

Keyed by the PTX of every module the launch loads (the profiled task's above all), the launch
configuration (workload, trip counts, block size, seed), the ncu version and the preset. An entry
is the parsed record (JSON) beside ncu's own report, written to a temporary name then renamed,
so a reader never sees half of one. `enabled=False` switches it off.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..checked import Bool, Float, Int, Invalid, List, Map, Obj, Opt, Str, Tuple, check
from ..compiler.safe_files import UnsafePathError, check_folder, copy_file, read_checked, write_file
from .record import RECORD_VERSION, TaskCounters

MAX_ENTRY_BYTES = 64 << 20   # a full profile with per-line counters is a few MB

_LINE = Obj(inst_executed=Float(), samples=Float(), stalls=Map(Float()))
RECORD = Obj(
    ("figures", "stalls", "mix", "roofline", "sass", "ptx_lines", "source_lines", "line_mapping", "passes", "rules",
     "ncu_version", "device", "workload", "variant", "ptx_sha", "replay_bytes", "cached"),
    task=Str(), preset=Str(), figures=Map(Opt(Float())), stalls=Map(Float()), mix=Map(Float()),
    roofline=Opt(Obj(("peak_flops", "peak_bytes", "model"), flops=Float(), bytes=Float(), seconds=Float(),
                     peak_flops=Float(), peak_bytes=Float(), model=Bool())),
    sass=List(Obj(("ptx_line", "source"), offset=Int(0), text=Str(), counters=_LINE, ptx_line=Int(0),
                  source=Tuple(Str(), Int()))),
    ptx_lines=Map(_LINE), source_lines=Map(Map(_LINE)), line_mapping=Str(), passes=Int(0, 10**6),
    rules=List(Str()), ncu_version=Str(), device=Str(), workload=Str(), variant=Str(), ptx_sha=Str(),
    replay_bytes=Float(), cached=Bool(), version=Int())


def profile_key(**parts: Any) -> str:
    blob = json.dumps({"record": RECORD_VERSION, **parts}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class CountersCache:
    def __init__(self, folder: str | Path | None, enabled: bool = True):
        self.folder = Path(folder) if folder is not None else None
        self.enabled = enabled and folder is not None
        self.problems: list[str] = []   # one line per bad entry met (a miss each)

    def _dir(self, key: str) -> Path:
        assert self.folder is not None
        return self.folder / key[:2]

    def get(self, key: str) -> TaskCounters | None:
        """The cached profile, or None (a miss: profile again, which rewrites the entry). An entry is
        input: read bounded (a regular file of at most MAX_ENTRY_BYTES, no link: a link to /dev/zero
        hung), checked against RECORD's shape; a bad one is a miss with one line in `problems`."""
        if not self.enabled:
            return None
        path = self._dir(key) / f"{key}.json"
        try:
            raw, _ = read_checked(path, MAX_ENTRY_BYTES)
        except FileNotFoundError:
            return None
        except (OSError, UnsafePathError) as e:
            self._problem(path, str(e) if isinstance(e, UnsafePathError) else (e.strerror or str(e)))
            return None
        try:
            d = json.loads(raw)
            if isinstance(d, dict) and d.get("version") != RECORD_VERSION:
                return None   # an older qdexplorer's entry: a plain miss
            rec = TaskCounters.from_json(check(d, RECORD))
        except (ValueError, TypeError, KeyError, Invalid) as e:
            self._problem(path, f"not a profile ({e})")
            return None
        rec.cached = True
        return rec

    def _problem(self, path: Path, why: str) -> None:
        line = f"counters cache entry {path} skipped: {why}; profiling again (delete it if it stays)"
        if line not in self.problems:
            self.problems.append(line)

    def report_path(self, key: str) -> Path | None:
        if not self.enabled:
            return None
        p = self._dir(key) / f"{key}.ncu-rep"
        return p if p.is_file() else None

    def put(self, key: str, rec: TaskCounters, report: Path | None = None) -> None:
        if not self.enabled:
            return
        d = self._dir(key)
        try:
            check_folder(d, create=True, below=d.parent.parent)   # no link from the cache folder down
            if report is not None and report.is_file():
                copy_file(report, d / f"{key}.ncu-rep")
            write_file(d / f"{key}.json", json.dumps(rec.to_json()))
        except (OSError, UnsafePathError):
            pass   # a cache that cannot be written only costs a second profile
