"""Load a kernel project: a folder of `*.py` kernel files and an optional `qdexplorer.toml`.

Files run as real modules (so inspect/linecache see their source and errors carry real
file:line), each under a name derived from the project path so two projects never clash.
"""
from __future__ import annotations

import hashlib
import linecache
import os
import re
import stat
import sys
import tokenize
import traceback
import types
from dataclasses import dataclass, field
from pathlib import Path

from ..lang.calls import runtime_api
from ..ir.errors import QdError
from ..lang.field import Storage
from ..lang.kernel import Kernel, Workload
from ..compiler.safe_files import UnsafePathError, read_input
from ..numbers import env_number
from .import_guard import import_deadline

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib


class ProjectError(QdError):
    """A project that cannot be opened: missing folder, bad manifest, file that fails to import."""


@dataclass
class ProjectConfig:
    name: str
    files: list[str] | None = None
    arch: str | None = None           # default sm_XX for PTX (else: detected GPU, else sm_90)
    backend: str | None = None        # default backend for `run`
    block_dim: int | None = None      # default block_dim for range_for tasks without loop_config
    offline_cache: bool | None = None  # None: QDEXPLORER_OFFLINE_CACHE / default on
    cache_dir: str | None = None
    fast_math: bool = True            # CUDA f32 approximate math, as Quadrants' default; per kernel too
    debug: bool = False               # bounds-check every ndarray access (as `--debug`)
    mode: str | None = None           # assembly mode: per_task (default), whole or culink
    print_kernel_asm: bool = False    # write each task's PTX as <task>.ptx in the project folder


@dataclass
class Project:
    path: Path
    config: ProjectConfig
    kernels: dict[str, Kernel] = field(default_factory=dict)
    workloads: dict[str, Workload] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    # file -> why it was left out: filled only by load_project(keep_going=True), so that one broken file
    # leaves the rest of a project usable (the window marks that file red instead of refusing the folder)
    broken: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.config.name

    def workload(self, name: str) -> Workload:
        try:
            return self.workloads[name]
        except KeyError:
            known = ", ".join(sorted(self.workloads)) or "none"
            raise ProjectError(f"no workload named '{name}' in project {self.path} (known: {known})") from None

    def workloads_for(self, kernel: str) -> list[Workload]:
        return [w for w in self.workloads.values() if w.kernel.name == kernel]


def bundled_demo() -> Path:
    return Path(__file__).resolve().parent.parent / "resources" / "demo"


_ARCH = re.compile(r"sm_[0-9]+[a-z]?\Z")
# setting -> (check, what a valid value looks like); one line per mistake, naming the setting
_SETTINGS = {
    "name": (lambda v: isinstance(v, str) and v.strip() != "", "a non-empty string"),
    "files": (lambda v: isinstance(v, list) and v and all(isinstance(f, str) and f for f in v),
              'a list of file names, e.g. files = ["a.py", "b.py"]'),
    "arch": (lambda v: isinstance(v, str) and bool(_ARCH.match(v)), "an SM architecture such as 'sm_90'"),
    "backend": (lambda v: v in ("cpu", "cuda"), "'cpu' or 'cuda'"),
    "block_dim": (lambda v: type(v) is int and 1 <= v <= 1024, "an integer from 1 to 1024"),
    "offline_cache": (lambda v: isinstance(v, bool), "true or false"),
    "cache_dir": (lambda v: isinstance(v, str) and v != "" and "\x00" not in v, "a folder path string"),
    "fast_math": (lambda v: isinstance(v, bool), "true or false"),
    "debug": (lambda v: isinstance(v, bool), "true or false"),
    "mode": (lambda v: v in ("per_task", "whole", "culink"), "'per_task', 'whole' or 'culink'"),
    "print_kernel_asm": (lambda v: isinstance(v, bool), "true or false"),
}


def check_readable_folder(folder: Path) -> None:
    """One line naming the project folder when this user cannot enter or list it (it was reported as
    "qdexplorer.toml: Permission denied", the first file looked for inside it)."""
    if folder.is_dir() and not os.access(folder, os.R_OK | os.X_OK):
        raise ProjectError(f"cannot read project folder {folder}: permission denied (reading a project needs "
                           f"permission to list and enter its folder: chmod u+rx, or run as its owner)")


def read_config(path: Path) -> ProjectConfig:
    check_readable_folder(path)
    cfg = ProjectConfig(name=path.name)
    mf = path / "qdexplorer.toml"
    if not mf.is_file():
        if os.path.lexists(mf) and mf.exists():  # a FIFO would block the read, a folder cannot be one
            raise ProjectError(f"{mf} is not a regular file (a FIFO, device or folder?); replace it with a "
                               f"TOML file or remove it")
        return cfg
    try:
        data = tomllib.loads(read_input(mf, 1 << 20, "project settings").decode("utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ProjectError(f"{mf}: invalid TOML: {e}") from None
    except UnicodeDecodeError as e:
        raise ProjectError(f"{mf}: not UTF-8 text (byte {e.start}); TOML files are UTF-8") from None
    except UnsafePathError as e:
        raise ProjectError(str(e)) from None
    except OSError as e:
        raise ProjectError(f"{mf}: cannot read it: {e.strerror or e}") from None
    section = data.get("project", data)
    if not isinstance(section, dict):
        raise ProjectError(f"{mf}: [project] must be a table of settings")
    known = set(_SETTINGS)
    unknown = set(section) - known - {"project"}
    if unknown:
        raise ProjectError(f"{mf}: unknown setting(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(known))})")
    for k, (ok, expected) in _SETTINGS.items():
        if k in section:
            if not ok(section[k]):
                raise ProjectError(f"{mf}: {k} must be {expected}, got {section[k]!r}")
            setattr(cfg, k, section[k])
    return cfg


def _listed_files(root: Path, cfg: ProjectConfig) -> list[Path]:
    """The toml's `files`, each of which must stay inside the project (after following links)."""
    out = []
    real_root = root.resolve()
    for name in cfg.files or []:
        f = (root / name)
        try:
            inside = f.resolve().is_relative_to(real_root)
        except (OSError, ValueError):
            inside = False
        if os.path.isabs(name) or not inside:
            raise ProjectError(f"{root / 'qdexplorer.toml'}: files: {name!r} is outside the project folder "
                               f"{root}; list only files inside it")
        out.append(f)
    return out


def _discovered_files(root: Path) -> list[Path]:
    """The `*.py` files of a project without `files = [...]`, under the same rules as listed ones: a
    link must stay inside the project, and each must be a regular file (a FIFO would hang the
    import, /dev/zero never ends, a folder named `x.py` is not Python)."""
    real_root = root.resolve()
    out = []
    for p in sorted(root.glob("*.py")):
        if p.name.startswith(("_", "test_")):
            continue
        if stat.S_ISLNK(os.lstat(p).st_mode):  # OSError (no permission): the caller names the folder
            try:
                inside = p.resolve(strict=True).is_relative_to(real_root)
            except (OSError, RuntimeError):
                raise ProjectError(f"{p} is a link to {os.readlink(p)}, which does not exist") from None
            if not inside:
                raise ProjectError(f"{p} is a link to {os.readlink(p)}, outside the project folder {root}; kernel "
                                   f"files must be inside it (copy the file in, or list files in qdexplorer.toml)")
        if not stat.S_ISREG(os.stat(p).st_mode):
            raise ProjectError(_not_regular(p))
        out.append(p)
    return out


def _not_regular(p: Path) -> str:
    return (f"{p} is not a regular file (a FIFO, a device or a folder named *.py); remove or rename it, or list "
            f"the kernel files in qdexplorer.toml (files = [...])")


def max_file_bytes() -> int:
    """The largest kernel file opened: Python's compile() of a huge file cannot be interrupted (tens of
    seconds per 10 MB, far longer for long expressions), so it is refused before it starts."""
    mb = env_number("QDEXPLORER_MAX_FILE_MB")   # 0: no limit
    return int(mb * (1 << 20)) if mb > 0 else 1 << 62


DEFAULT_MAX_FILE_MB = 8


def _read_source(f: Path) -> str:
    """A project file's text, decoded as Python does (a `# coding:` line, else UTF-8)."""
    try:
        size = f.stat().st_size
    except OSError as e:
        raise ProjectError(f"{f}: cannot read it: {e.strerror or e}") from None
    if size > max_file_bytes():
        raise ProjectError(f"{f} is {size / (1 << 20):.1f} MiB, larger than the {max_file_bytes() / (1 << 20):g} MiB a "
                           f"kernel file may be (Python's compile() of it cannot be interrupted); split it, or set "
                           f"QDEXPLORER_MAX_FILE_MB to allow more")
    try:
        with tokenize.open(f) as fh:
            return fh.read()
    except SyntaxError as e:  # undecodable first lines, or an unknown or contradictory coding cookie
        msg = str(e.msg if getattr(e, "msg", None) else e)
        if msg.startswith("invalid or missing encoding declaration"):
            raise ProjectError(f"{f}: not valid utf-8 text and no '# coding: ...' line; save it as UTF-8 or "
                               f"declare its encoding") from None
        raise ProjectError(f"{f}:{e.lineno or 1}: {msg}") from None
    except UnicodeDecodeError as e:
        raise ProjectError(f"{f}: not valid {e.encoding} text (byte {e.start}); save it as UTF-8 or declare "
                           f"its encoding with a '# coding: ...' line") from None
    except OSError as e:
        raise ProjectError(f"{f}: cannot read it: {e.strerror or e}") from None


_cache: dict = {}


def load_project(path: str | Path | None = None, reload: bool = False, keep_going: bool = False) -> Project:
    """Import the project at `path`. A file that cannot be read or imported is an error, unless
    `keep_going`: then it is left out and its message kept in `Project.broken` (the window opens the
    rest, as it does when a file breaks after opening); with no kernel left, the first message is raised."""
    path = Path(path) if path is not None else bundled_demo()
    path = path.resolve()
    if not path.exists():
        raise ProjectError(f"project folder not found: {path}")
    if path.is_file():
        files = [path]
        cfg = ProjectConfig(name=path.stem)
        root = path.parent
    else:
        cfg = read_config(path)
        root = path
        try:
            os.listdir(root)  # an unreadable folder must not look like an empty one
            files = _listed_files(root, cfg) if cfg.files else _discovered_files(root)
        except OSError as e:
            raise ProjectError(f"cannot read project folder {root}: {e.strerror or e}") from None
        missing = [f for f in files if not f.is_file()]
        if missing:
            if missing[0].exists():
                raise ProjectError(f"{root / 'qdexplorer.toml'}: listed file {_not_regular(missing[0])}")
            raise ProjectError(f"{root / 'qdexplorer.toml'}: listed file not found: {missing[0]}")
    broken: dict[str, str] = {}
    texts: dict[Path, str] = {}
    for f in files:
        try:
            texts[f] = _read_source(f)
        except ProjectError as e:
            if not keep_going:
                raise
            broken[str(f)] = str(e)
    # content, not mtime: an edit within the filesystem's timestamp granularity must still count
    stamp = tuple((str(f), hashlib.sha1(t.encode("utf-8", "surrogatepass")).hexdigest()) for f, t in texts.items())
    key = str(path)
    if not reload and key in _cache and _cache[key][0] == stamp:
        return _cache[key][1]
    proj = Project(path=root if path.is_dir() else path, config=cfg, files=files)
    mods = []
    with import_deadline(path, files):
        for f in texts:
            try:
                mods.append((f, _import_file(f, root, texts[f])))
            except QdError as e:
                if not keep_going:
                    raise
                broken[str(f)] = str(e)
    proj.broken = broken
    for f, mod in mods:
        for obj in vars(mod).values():
            if isinstance(obj, Kernel) and obj.file == str(f):
                _add_kernel(proj, obj)
                if _has_gradients(mod):  # a differentiable program: its adjoint kernels show too
                    _add_kernel(proj, obj.grad)
            elif isinstance(obj, Workload):
                if obj.name in proj.workloads and proj.workloads[obj.name] is not obj:
                    raise ProjectError(f"{f}: workload name '{obj.name}' is defined twice in the project")
                proj.workloads[obj.name] = obj
    if not proj.kernels:
        if broken:
            raise ProjectError(next(iter(broken.values())))
        raise ProjectError(f"no @qd.kernel found in {path}")
    if not broken:   # a partial project is never served to a later strict load
        _cache[key] = (stamp, proj)
    return proj


def _has_gradients(mod) -> bool:
    """Whether a kernel file allocates a field or ndarray with needs_grad=True (then each of its
    kernels' `.grad` is part of the project, with its own tasks, IR and PTX)."""
    return any(v.adjoints.grad is not None for v in vars(mod).values() if isinstance(v, Storage))


def _add_kernel(proj: Project, k: Kernel):
    """Tasks, overrides and workloads find a kernel by its name, so a second kernel of that name
    (another file, or a factory in the same one) would silently run as the first: refused."""
    seen = proj.kernels.get(k.name)
    if seen is None:
        proj.kernels[k.name] = k
    elif seen is not k:
        raise ProjectError(f"kernel '{k.name}' is defined twice: {seen.file}:{seen.line} and {k.file}:{k.line}; "
                           f"kernel names must be unique in a project (tasks are named after them): rename one")


def _import_file(f: Path, root: Path, text: str):
    """Execute a project file from its current text: no bytecode cache (an edit within the
    filesystem's timestamp granularity must never run stale code, and the user's folder gets no
    __pycache__), and linecache holds exactly the text that ran, so positions always match."""
    digest = hashlib.sha1(str(f).encode()).hexdigest()[:10]
    name = f"qdx_project_{digest}_{f.stem}"
    try:
        code = compile(text, str(f), "exec", dont_inherit=True)
    except SyntaxError as e:
        raise ProjectError(f"{e.filename or f}:{e.lineno}:{e.offset or 0}: syntax error: {e.msg}") from None
    except (RecursionError, MemoryError) as e:  # Python's own compiler: a 20000-term expression
        raise ProjectError(f"{f}: an expression or block nests too deeply for Python to compile "
                           f"({type(e).__name__}); split it into smaller statements") from None
    except ValueError as e:  # NUL bytes: binary data, not Python source
        raise ProjectError(f"{f}: not a Python source file ({e}); remove it from the project or from "
                           f"qdexplorer.toml's files") from None
    mod = types.ModuleType(name)
    mod.__file__ = str(f)
    linecache.cache[str(f)] = (len(text), None, text.splitlines(True), str(f))
    sys.modules[name] = mod
    added = str(root) not in sys.path
    if added:
        sys.path.insert(0, str(root))
    try:
        with runtime_api.host_only():
            exec(code, mod.__dict__)  # noqa: S102 - running the user's project is the point
    except QdError:
        sys.modules.pop(name, None)
        raise
    except (Exception, SystemExit) as e:  # noqa: BLE001 - show the user's frame, not ours
        sys.modules.pop(name, None)
        tb = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == str(f)]
        where = f"{f}:{tb[-1].lineno}" if tb else str(f)
        if isinstance(e, SystemExit):  # a script's exit() must not end the app, nor pass silently
            raise ProjectError(f"{where}: the file called exit({e.code!r}) while being imported; a kernel "
                               f"file must not exit (guard script code with `if __name__ == \"__main__\":`)") from None
        raise ProjectError(f"{where}: error while importing: {type(e).__name__}: {e}") from None
    finally:
        if added and str(root) in sys.path:
            sys.path.remove(str(root))
    return mod
