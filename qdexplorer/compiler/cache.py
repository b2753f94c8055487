"""PtxCache: compiled task output (PTX or host object) in memory and on disk.

The key is the sha256 of the task module's LLVM text plus everything else that changes the
output, so an unchanged task is a hit after an edit elsewhere. Disk entries are namespaced by
`sm_XX` (PTX/SASS for one arch is not portable), written to a temp file then `os.replace`d
(several app instances may share the folder), and carry a checksum: a truncated or corrupted
entry is detected, dropped and rebuilt.
"""
from __future__ import annotations

import functools
import hashlib
import os
import tempfile
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

from .stages import CompileRequest
from .toolchain import toolchain_identity

MAGIC = b"QDXC1 "
_file_ids: dict = {}


def _file_identity(path: str | None) -> str:
    """sha256 of a file (libdevice), memoised on (path, size, mtime)."""
    if not path:
        return "none"
    try:
        st = os.stat(path)
    except OSError:
        return f"missing:{path}"
    k = (path, st.st_size, st.st_mtime_ns)
    if k not in _file_ids:
        with open(path, "rb") as fh:
            _file_ids[k] = hashlib.sha256(fh.read()).hexdigest()[:16]
    return _file_ids[k]


def _ptxas_identity() -> str:
    return _ptxas_identity_in(os.environ.get("QDEXPLORER_PTXAS"), os.environ.get("PATH"))


@functools.lru_cache(maxsize=8)
def _ptxas_identity_in(_explicit, _path) -> str:
    """Which ptxas made a cubin: its path, size and mtime (a new toolkit means new cubins)."""
    from .ptxas import find_ptxas
    exe = find_ptxas()
    if exe is None:
        return "ptxas:none"
    try:
        st = os.stat(exe)
    except OSError:
        return f"ptxas:{exe}"
    return f"ptxas:{exe}:{st.st_size}:{st.st_mtime_ns}"


def cache_key(req: CompileRequest) -> str:
    h = hashlib.sha256()
    for part in ("\x00".join(req.texts), req.target, req.arch, req.ptx_isa, str(req.opt_level),
                 str(req.fast_math), ",".join(req.entries),
                 _file_identity(req.libdevice) if any("__nv_" in t for t in req.texts) else "-",
                 toolchain_identity(), _ptxas_identity() if req.emit == "cubin" else req.emit):
        h.update(part.encode())
        h.update(b"\x1f")
    return h.hexdigest()


def default_cache_dir() -> Path:
    env = os.environ.get("QDEXPLORER_CACHE_DIR")
    if env:
        return Path(env)
    try:
        import platformdirs
        return Path(platformdirs.user_cache_dir("qdexplorer")) / "ptx"
    except ImportError:  # engine-only installs (e.g. a GPU box without the GUI's dependencies)
        return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "qdexplorer" / "ptx"


def offline_cache_default() -> bool:
    return os.environ.get("QDEXPLORER_OFFLINE_CACHE", "1").strip().lower() not in ("0", "false", "no", "off")


@dataclass
class CacheStats:
    memory: int = 0
    disk: int = 0
    miss: int = 0
    corrupt: int = 0
    writes: int = 0


class PtxCache:
    """Two tiers: memory (this process) and disk (`<folder>/<sm_XX|host>/<ab>/<key>`).

    `offline=False` means memory only: nothing under the folder is read or written.
    """

    def __init__(self, folder: str | Path | None = None, offline: bool | None = None, enabled: bool = True):
        self.enabled = enabled
        self.offline = offline_cache_default() if offline is None else offline
        self.folder = Path(folder) if folder is not None else default_cache_dir()
        self.mem: dict[str, bytes] = {}
        self.stats = CacheStats()
        self.warning: str | None = None
        self._lock = threading.Lock()
        if self.offline and self.enabled:
            self._check_writable()

    def _check_writable(self):
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, probe = tempfile.mkstemp(dir=self.folder, prefix=".probe-")
            os.close(fd)
            os.unlink(probe)
        except OSError as e:
            self.warning = f"cache folder {self.folder} is not writable ({e.strerror or e}); using a memory-only cache"
            warnings.warn(self.warning, stacklevel=3)
            self.offline = False

    @staticmethod
    def namespace(req: CompileRequest) -> str:
        """`sm_XX` (PTX), `sm_XX-cubin` (relocatable cubins: SASS for one SM), `host` (objects)."""
        if req.emit == "cubin":
            return f"{req.arch}-cubin"
        return req.arch if req.target == "nvptx" else "host"

    def path(self, key: str, ns: str) -> Path:
        ext = ".cubin" if ns.endswith("-cubin") else ".ptx" if ns.startswith("sm_") else ".o"
        return self.folder / ns / key[:2] / (key + ext)

    def get(self, key: str, ns: str) -> tuple[bytes | None, str]:
        """(payload, tier) where tier is 'memory', 'disk' or 'miss'."""
        if not self.enabled:
            self.stats.miss += 1
            return None, "miss"
        with self._lock:
            data = self.mem.get(key)
        if data is not None:
            self.stats.memory += 1
            return data, "memory"
        if self.offline:
            data = self._read(self.path(key, ns))
            if data is not None:
                with self._lock:
                    self.mem[key] = data
                self.stats.disk += 1
                return data, "disk"
        self.stats.miss += 1
        return None, "miss"

    def _read(self, p: Path) -> bytes | None:
        try:
            raw = p.read_bytes()
        except OSError:
            return None
        head, _, payload = raw.partition(b"\n")
        if not head.startswith(MAGIC) or head[len(MAGIC):].decode(errors="replace") != hashlib.sha256(payload).hexdigest():
            self.stats.corrupt += 1
            try:
                p.unlink()
            except OSError:
                pass
            return None
        return payload

    def put(self, key: str, ns: str, data: bytes):
        if not self.enabled:
            return
        with self._lock:
            self.mem[key] = data
        if not self.offline:
            return
        p = self.path(key, ns)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{key[:8]}-", suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                fh.write(MAGIC + hashlib.sha256(data).hexdigest().encode() + b"\n" + data)
            os.replace(tmp, p)
            self.stats.writes += 1
        except OSError as e:
            if self.warning is None:
                self.warning = f"cannot write cache entry under {self.folder} ({e.strerror or e}); continuing memory-only"
                warnings.warn(self.warning, stacklevel=2)
            self.offline = False
