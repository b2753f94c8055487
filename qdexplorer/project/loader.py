"""Load a kernel project: a folder of `*.py` kernel files and an optional `qdexplorer.toml`.

Files run as real modules (so inspect/linecache see their source and errors carry real
file:line), each under a name derived from the project path so two projects never clash.
"""
from __future__ import annotations

import hashlib
import linecache
import sys
import traceback
import types
from dataclasses import dataclass, field
from pathlib import Path

from ..lang.errors import QdError
from ..lang.kernel import Kernel, Workload

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]


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
    mode: str | None = None           # assembly mode: per_task (default), whole or culink
    print_kernel_asm: bool = False    # write each task's PTX as <task>.ptx in the project folder


@dataclass
class Project:
    path: Path
    config: ProjectConfig
    kernels: dict[str, Kernel] = field(default_factory=dict)
    workloads: dict[str, Workload] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)

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


def read_config(path: Path) -> ProjectConfig:
    cfg = ProjectConfig(name=path.name)
    mf = path / "qdexplorer.toml"
    if not mf.is_file():
        return cfg
    try:
        data = tomllib.loads(mf.read_text())
    except tomllib.TOMLDecodeError as e:
        raise ProjectError(f"{mf}: invalid TOML: {e}") from None
    section = data.get("project", data)
    known = {"name", "files", "arch", "backend", "block_dim", "offline_cache", "cache_dir", "mode", "print_kernel_asm"}
    unknown = set(section) - known - {"project"}
    if unknown:
        raise ProjectError(f"{mf}: unknown setting(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(known))})")
    for k in known:
        if k in section:
            setattr(cfg, k, section[k])
    if cfg.arch is not None and not (isinstance(cfg.arch, str) and cfg.arch.startswith("sm_")):
        raise ProjectError(f"{mf}: arch must look like 'sm_90', got {cfg.arch!r}")
    if cfg.mode not in (None, "per_task", "whole", "culink"):
        raise ProjectError(f"{mf}: mode must be 'per_task', 'whole' or 'culink', got {cfg.mode!r}")
    if not isinstance(cfg.print_kernel_asm, bool):
        raise ProjectError(f"{mf}: print_kernel_asm must be true or false, got {cfg.print_kernel_asm!r}")
    if cfg.backend not in (None, "cpu", "cuda"):
        raise ProjectError(f"{mf}: backend must be 'cpu' or 'cuda', got {cfg.backend!r}")
    return cfg


_cache: dict = {}


def load_project(path: str | Path | None = None, reload: bool = False) -> Project:
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
        files = [root / f for f in cfg.files] if cfg.files else sorted(
            p for p in root.glob("*.py") if not p.name.startswith(("_", "test_")))
        missing = [f for f in files if not f.is_file()]
        if missing:
            raise ProjectError(f"{root / 'qdexplorer.toml'}: listed file not found: {missing[0]}")
    # content, not mtime: an edit within the filesystem's timestamp granularity must still count
    stamp = tuple((str(f), hashlib.sha1(f.read_bytes()).hexdigest()) for f in files)
    key = str(path)
    if not reload and key in _cache and _cache[key][0] == stamp:
        return _cache[key][1]
    proj = Project(path=root if path.is_dir() else path, config=cfg, files=files)
    for f in files:
        mod = _import_file(f, root)
        for obj in vars(mod).values():
            if isinstance(obj, Kernel) and obj.file == str(f):
                proj.kernels.setdefault(obj.name, obj)
            elif isinstance(obj, Workload):
                if obj.name in proj.workloads and proj.workloads[obj.name] is not obj:
                    raise ProjectError(f"{f}: workload name '{obj.name}' is defined twice in the project")
                proj.workloads[obj.name] = obj
    if not proj.kernels:
        raise ProjectError(f"no @qd.kernel found in {path}")
    _cache[key] = (stamp, proj)
    return proj


def _import_file(f: Path, root: Path):
    """Execute a project file from its current text: no bytecode cache (an edit within the
    filesystem's timestamp granularity must never run stale code, and the user's folder gets no
    __pycache__), and linecache holds exactly the text that ran, so positions always match."""
    digest = hashlib.sha1(str(f).encode()).hexdigest()[:10]
    name = f"qdx_project_{digest}_{f.stem}"
    text = f.read_text(encoding="utf-8")
    try:
        code = compile(text, str(f), "exec", dont_inherit=True)
    except SyntaxError as e:
        raise ProjectError(f"{e.filename or f}:{e.lineno}:{e.offset or 0}: syntax error: {e.msg}") from None
    mod = types.ModuleType(name)
    mod.__file__ = str(f)
    linecache.cache[str(f)] = (len(text), None, text.splitlines(True), str(f))
    sys.modules[name] = mod
    added = str(root) not in sys.path
    if added:
        sys.path.insert(0, str(root))
    try:
        exec(code, mod.__dict__)  # noqa: S102 - running the user's project is the point
    except QdError:
        sys.modules.pop(name, None)
        raise
    except Exception as e:  # noqa: BLE001 - show the user's frame, not ours
        sys.modules.pop(name, None)
        tb = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == str(f)]
        where = f"{f}:{tb[-1].lineno}" if tb else str(f)
        raise ProjectError(f"{where}: error while importing: {type(e).__name__}: {e}") from None
    finally:
        if added and str(root) in sys.path:
            sys.path.remove(str(root))
    return mod
