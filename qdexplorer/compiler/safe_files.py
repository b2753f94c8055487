"""Files whose names come from input (task names, `--arch`, project settings) stay where they belong.

A kernel can be given any `__name__`, a project can plant symlinks, and a command line can name
`../../victim`: every file qdexplorer writes, reads or deletes by a derived name goes through here.
Names are checked (never silently rewritten: a renamed dump would no longer match Quadrants'
scheme), symlinks are refused with `O_NOFOLLOW` and `lstat`, and every file qdexplorer writes
(dumps, overrides, the cache, exports, the menu entry and icons, the trust list, result files)
goes through `write_file`: a temporary file that is `os.replace`d, which replaces a link rather
than writing through it (tests/test_safe_writes.py plants a link at each such path).
"""
from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
from pathlib import Path

from ..ir.errors import QdError

MAX_NAME_BYTES = 200
_NAME = re.compile(r"[^\W\d]\w*\Z")       # a Python identifier (Unicode letters allowed)
_ARCH = re.compile(r"sm_[0-9]+[a-z]?\Z")


class UnsafePathError(QdError):
    """A name or path that would leave its folder, follow a link, or is not a file name at all."""


def check_task_name(name: str, what: str = "task name") -> str:
    """`name` unchanged if it is safe as a file name stem, else UnsafePathError."""
    if not isinstance(name, str) or not name:
        raise UnsafePathError(f"{what} {name!r} is empty or not text")
    if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        raise UnsafePathError(f"{what} {name[:40]!r}… is longer than {MAX_NAME_BYTES} bytes; "
                              f"use a shorter kernel name")
    if not _NAME.match(name):
        raise UnsafePathError(f"{what} {name!r} is not an identifier (letters, digits, '_'); it cannot name a "
                              f"file (kernel names must be Python identifiers)")
    return name


def check_arch(arch, where: str = "--arch") -> str:
    if not isinstance(arch, str) or not _ARCH.match(arch):
        raise UnsafePathError(f"{where}: expected an SM architecture such as 'sm_90' or 'sm_90a', got {arch!r}")
    return arch


def _is_link(p: Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(p).st_mode)
    except OSError:
        return False


def check_folder(folder: Path, create: bool = False, below: Path | None = None) -> Path:
    """Refuse `folder` if it (or any part of it under `below`) is a symlink, or is not a folder."""
    folder = Path(folder)
    parts = [folder]
    if below is not None:
        try:
            rel = folder.relative_to(below)
        except ValueError:
            raise UnsafePathError(f"{folder} is not inside {below}") from None
        p = Path(below)
        parts = []
        for piece in rel.parts:
            p = p / piece
            parts.append(p)
    for p in parts:
        if _is_link(p):
            raise UnsafePathError(f"{p} is a symbolic link; qdexplorer refuses to read or write through it "
                                  f"(replace it with a real folder)")
    if create:
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)  # private whatever the umask: a load
        except FileExistsError:                                    # folder must pass the owner checks
            raise UnsafePathError(f"{folder} exists and is not a folder; pick another path") from None
        except OSError as e:
            raise UnsafePathError(f"cannot create folder {folder}: {e.strerror or e}") from None
    if folder.exists() and not folder.is_dir():
        raise UnsafePathError(f"{folder} exists and is not a folder; pick another path")
    return folder


def unsafe_owner(target) -> str | None:
    """Why a folder/file (a path or an os.stat_result) may not be trusted: another user's, or
    writable by group/others. None where it is safe, or where the OS has no owners (Windows)."""
    if not hasattr(os, "getuid"):
        return None
    st = target if isinstance(target, os.stat_result) else os.stat(target)
    if st.st_uid != os.getuid():
        return f"belongs to another user (uid {st.st_uid})"
    if stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX and st.st_mode & (stat.S_IWOTH | stat.S_IWGRP):
        return "is a shared sticky folder (like /tmp), writable by others"
    if st.st_mode & (stat.S_IWOTH | stat.S_IWGRP):
        return "is writable by other users"
    return None


MAX_LISTED = 20000   # entries of an output folder checked for planted links (a dump folder holds hundreds)


def _lstat_no_link(path: Path, what: str, fix: str) -> os.stat_result | None:
    """`path`'s own status (None when it does not exist); UnsafePathError, naming `fix`, when it is a
    symbolic link, which qdexplorer never writes through."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise UnsafePathError(f"{what} {path}: {e.strerror or e}") from None
    if stat.S_ISLNK(st.st_mode):
        raise UnsafePathError(f"{what} {path} is a symbolic link; qdexplorer refuses to write through it ({fix})")
    return st


def output_folder(folder: Path | str, what: str = "output folder", create: bool = True,
                  empty_links: bool = True) -> Path:
    """THE check for a folder that qdexplorer writes into, or hands to another program to write
    (Quadrants' `--dump DIR` and load folders, ncu's `-o`, a Ray cluster's temp folder, exports):
    not a symbolic link, a folder (created private, 0700, when missing and `create`), this user's
    and writable by no one else, and (`empty_links`) holding no symbolic link that a program which
    opens its files by name (Quadrants does) would write through. UnsafePathError with one line
    naming the folder and the fix otherwise."""
    folder = Path(folder)
    st = _lstat_no_link(folder, what, "give a real folder of your own")
    if st is None:
        if not create:
            raise UnsafePathError(f"{what} {folder} does not exist")
        check_folder(folder, create=True)
        st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafePathError(f"{what} {folder} exists and is not a folder; pick another path")
    why = unsafe_owner(st)
    if why:
        raise UnsafePathError(f"{what} {folder} {why}; qdexplorer refuses to write there, where another user "
                              f"could plant links (use a folder of your own that only you can write: chmod go-w)")
    if empty_links:
        try:
            with os.scandir(folder) as it:
                for n, entry in enumerate(it):
                    if n >= MAX_LISTED:
                        break
                    if entry.is_symlink():
                        raise UnsafePathError(f"{what} {folder} holds a symbolic link, {entry.name}; qdexplorer "
                                              f"refuses to let a program write through it (remove it)")
        except OSError as e:
            raise UnsafePathError(f"{what} {folder}: cannot list it: {e.strerror or e}") from None
    return folder


def output_file(path: Path | str, what: str = "output file") -> Path:
    """THE check for a file that another program (or sqlite) opens by name to write: not a symbolic
    link, a regular file if it exists, in a folder that is no symbolic link. Its folder is created
    when missing (private)."""
    path = Path(path)
    st = _lstat_no_link(path, what, "remove it, or pick another path")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise UnsafePathError(f"{what} {path} exists and is not a regular file (a folder, FIFO or device); "
                              f"move it aside")
    if not path.parent.is_dir() or _is_link(path.parent):
        check_folder(path.parent, create=True)
    return path


def private_temp_folder(prefix: str) -> Path:
    """A fresh folder of this user's only (`mkdtemp`: 0700, an unpredictable name)."""
    return Path(tempfile.mkdtemp(prefix=prefix))


def read_nofollow(path: Path) -> bytes:
    """The bytes of a regular file, refusing a symlink at the last component, and a FIFO or device
    without waiting on it (opened non-blocking, checked before the first read)."""
    return read_checked(path)[0]


def read_checked(path: Path, max_bytes: int | None = None) -> tuple[bytes, os.stat_result]:
    """`read_nofollow`, with the file's stat (for owner checks on what was actually opened) and an
    optional size limit (UnsafePathError past it, before reading)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise UnsafePathError(f"{path} is a symbolic link; qdexplorer refuses to follow it") from None
        raise
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise UnsafePathError(f"{path} is not a regular file (a FIFO, device or folder); move it aside")
        if max_bytes is not None and st.st_size > max_bytes:
            raise UnsafePathError(f"{path} is {st.st_size} bytes, more than the {max_bytes} bytes allowed")
        return fh.read(), st


def read_input(path: Path | str, max_bytes: int, what: str = "file") -> bytes:
    """The bytes of a file the user may have edited or replaced (settings, a PTX to compare, a
    sidecar): a link is followed (reading through one writes nothing), but the file must be
    regular (a FIFO or /dev/zero would block or never end) and at most `max_bytes` long, checked
    on what was opened, and no more than that is read. UnsafePathError (one line naming the file
    and what to do) otherwise; OSError as the OS says (not found, permission)."""
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise UnsafePathError(f"{what} {path} is not a regular file (a FIFO, device or folder); "
                                  f"replace it with a file")
        if st.st_size > max_bytes:
            raise UnsafePathError(f"{what} {path} is {st.st_size} bytes, more than the {max_bytes} bytes such a "
                                  f"file may have; is it the right file?")
        data = fh.read(max_bytes + 1)
        if len(data) > max_bytes:   # it grew while being read
            raise UnsafePathError(f"{what} {path} is more than {max_bytes} bytes; is it the right file?")
        return data


def write_file(path: Path | str, data: bytes | str, mode: int | None = None) -> Path:
    """The one way qdexplorer writes a file: refuses a symlink at `path` (and anything there that is
    not a regular file), writes a fresh temporary file beside it (`mkstemp`: O_EXCL, mode 0600, an
    unpredictable name, so nothing planted can receive the bytes) and renames it over `path`, which
    replaces a file and never writes through one. `mode` sets the new file's permissions (0o644 for
    what other programs read, such as a menu entry); None keeps mkstemp's 0600. The folder must
    exist. A reader never sees a half-written file."""
    target = Path(path)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        raise UnsafePathError(f"{target} is a symbolic link; qdexplorer refuses to write through it "
                              f"(remove it, or pick another path)")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise UnsafePathError(f"{target} exists and is not a regular file (a folder, FIFO or device); "
                              f"move it aside")
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name[:40]}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            if mode is not None:
                os.fchmod(fh.fileno(), mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return target


def copy_file(src: Path | str, dst: Path | str, max_bytes: int | None = None) -> Path:
    """`write_file(dst, <src's bytes>)`: `src` read by `read_checked` (a regular file, no link)."""
    return write_file(dst, read_checked(Path(src), max_bytes)[0])


def write_atomic(folder: Path, name: str, data: bytes) -> Path:
    """`write_file(folder / name, data)`: a derived name in a folder of qdexplorer's own."""
    return write_file(Path(folder) / name, data)


def unlink_regular(path: Path) -> bool:
    """Delete a file (a symlink itself is deleted, never its target). False if there was none."""
    try:
        os.unlink(path)
        return True
    except FileNotFoundError:
        return False
