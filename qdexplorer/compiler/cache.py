"""PtxCache: compiled task output (PTX or host object) in memory and on disk.

The key is the sha256 of the task module's LLVM text plus everything else that changes the
output, so an unchanged task is a hit after an edit elsewhere. Disk entries are namespaced by
`sm_XX` (PTX/SASS for one arch is not portable), written to a temp file then `os.replace`d
(several app instances may share the folder), and carry a checksum: a truncated or corrupted
entry is detected, dropped and rebuilt.

The disk tier is also a way in (a host object from it is executed), so: the checksummed header
binds the entry's key (a valid entry planted under another key's name is rejected), entries and
the folder must belong to this user and not be writable by others (else: one warning, memory
only), entries are opened with O_NOFOLLOW, and one bad entry is skipped, never the whole tier.
"""
from __future__ import annotations

import errno
import functools
import hashlib
import os
import stat
import tempfile
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

from .ptxas import find_ptxas
from .safe_files import UnsafePathError, check_arch, unsafe_owner, write_file
from .stages import CompileRequest
from .toolchain import toolchain_identity

MAGIC = b"QDXC2 "
_SUFFIX = {"host": ".o", "ll": ".ll"}  # other namespaces are sm_XX: PTX, or sm_XX-cubin: relocatable cubins
CUBIN_NS = "-cubin"
# errors that mean "this folder cannot hold entries at all" (vs. one entry being in the way)
_FOLDER_ERRORS = (errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EACCES, errno.EPERM)
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
                 toolchain_identity(), _ptxas_identity() if req.stage == "cubin" else req.stage):
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


def entry_bytes(key: str, data: bytes) -> bytes:
    """Header `QDXC2 <key> <sha256(key, payload)>` + newline + payload: the checksum covers the key."""
    return MAGIC + key.encode() + b" " + _digest(key, data).encode() + b"\n" + data


def _digest(key: str, data: bytes) -> str:
    return hashlib.sha256(key.encode() + b"\x1f" + data).hexdigest()


def valid_entry(raw: bytes, key: str) -> bool:
    head, _, payload = raw.partition(b"\n")
    parts = head.split(b" ")
    return (len(parts) == 3 and parts[0] + b" " == MAGIC and parts[1] == key.encode()
            and parts[2] == _digest(key, payload).encode())


@dataclass
class CacheStats:
    memory: int = 0
    disk: int = 0
    miss: int = 0
    corrupt: int = 0
    writes: int = 0
    skipped: int = 0       # entries that could not be written (their path is blocked); the tier stays on


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
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)  # private whatever the umask (002)
            problem = unsafe_owner(self.folder)   # the guard's owner check: this user's, no one else can write
            if problem:
                self._memory_only(f"cache folder {self.folder} {problem}; not loading anything from it "
                                  f"(fix: chmod go-w, or pick another --cache-dir); using a memory-only cache")
                return
            fd, probe = tempfile.mkstemp(dir=self.folder, prefix=".probe-")
            os.close(fd)
            os.unlink(probe)
        except OSError as e:
            self._memory_only(f"cache folder {self.folder} is not writable ({e.strerror or e}); "
                              f"using a memory-only cache")

    def _memory_only(self, message: str):
        self.warning = message
        warnings.warn(message, stacklevel=4)
        self.offline = False

    @staticmethod
    def namespace(req: CompileRequest) -> str:
        """`sm_XX` (PTX), `sm_XX-cubin` (relocatable cubins: SASS for one SM), `host` (objects)."""
        if req.stage == "cubin":
            return req.arch + CUBIN_NS
        return PtxCache.namespace_of(req.target, req.arch)

    @staticmethod
    def namespace_of(target: str, arch: str) -> str:
        return arch if target == "nvptx" else "host"

    def path(self, key: str, ns: str) -> Path:
        cubin = ns.endswith(CUBIN_NS)
        if ns not in _SUFFIX:
            check_arch(ns[:-len(CUBIN_NS)] if cubin else ns, "cache namespace")
        if len(key) != 64 or not all(c in "0123456789abcdef" for c in key):
            raise UnsafePathError(f"cache key {key[:80]!r} is not a sha256 hex digest")
        return self.folder / ns / key[:2] / (key + (".cubin" if cubin else _SUFFIX.get(ns, ".ptx")))

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
            data = self._read(self.path(key, ns), key)
            if data is not None:
                with self._lock:
                    self.mem[key] = data
                self.stats.disk += 1
                return data, "disk"
        self.stats.miss += 1
        return None, "miss"

    def _read(self, p: Path, key: str) -> bytes | None:
        try:
            fd = os.open(p, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
                         | getattr(os, "O_NONBLOCK", 0))  # a FIFO in an entry's place must not block the open
        except FileNotFoundError:
            return None
        except OSError:  # a symlink (ELOOP), a folder in the entry's place, unreadable: not an entry
            self._drop(p)
            return None
        raw = None
        try:
            st = os.fstat(fd)
            if stat.S_ISREG(st.st_mode) and not unsafe_owner(st):
                with os.fdopen(os.dup(fd), "rb") as fh:
                    raw = fh.read()
        except OSError:
            raw = None
        finally:
            os.close(fd)
        if raw is None or not valid_entry(raw, key):
            self._drop(p)
            return None
        return raw.partition(b"\n")[2]

    def _drop(self, p: Path):
        """Count and remove a bad entry (a file or a link; a folder in its place stays and is skipped)."""
        self.stats.corrupt += 1
        try:
            if not os.path.isdir(p) or os.path.islink(p):
                os.unlink(p)
        except OSError:
            pass

    def put(self, key: str, ns: str, data: bytes):
        if not self.enabled:
            return
        with self._lock:
            self.mem[key] = data
        if not self.offline:
            return
        if self._write(key, ns, data):
            self.stats.writes += 1

    def has(self, key: str, ns: str) -> bool:
        """Whether the disk tier holds a file for this entry (not verified; `get` verifies)."""
        return self.enabled and self.offline and os.path.isfile(self.path(key, ns))

    def put_disk(self, key: str, ns: str, data: bytes) -> bool:
        """Write a disk entry only (no memory tier, no stats): side artifacts such as LLVM text."""
        return self.enabled and self.offline and self._write(key, ns, data)

    def _write(self, key: str, ns: str, data: bytes) -> bool:
        p = self.path(key, ns)
        try:
            p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_file(p, entry_bytes(key, data))
            return True
        except OSError as e:
            if e.errno in _FOLDER_ERRORS:
                if self.warning is None:
                    self.warning = (f"cannot write cache entries under {self.folder} ({e.strerror or e}); "
                                    f"continuing memory-only")
                    warnings.warn(self.warning, stacklevel=2)
                self.offline = False
            else:  # this entry's path is blocked (a folder in its place, ...): skip it, keep the tier
                self.stats.skipped += 1
            return False
        except UnsafePathError:   # a link planted at the entry's name: never written through
            self.stats.skipped += 1
            return False
