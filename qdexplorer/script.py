"""Kernel calls from plain scripts: `qd.init(arch=...)` then `saxpy(x, y, 2.0)`.

Scripts share the pipeline and backends with the app and the CLI; they run them in-process
(compile and launch without helper processes), the way Quadrants scripts do. The language
reaches this module through the hook in `lang.runtime_api`, installed by the package root.
"""
from __future__ import annotations

import warnings
from pathlib import Path

from .compiler.asm_print import write_ptx
from .compiler.cache import PtxCache
from .compiler.dump import env_dump_dir, env_load_dir, env_load_kinds
from .compiler.overrides import OverrideStore
from .compiler.pipeline import Pipeline
from .compiler.pool import InlineCompiler
from .lang.arg_check import ArgumentError, check_call_args
from .lang.bounds import trip_counts
from .lang.errors import QdError
from .lang.runtime_api import cpu, cuda, gpu
from .runtime.device import LoadItem, LocalDevice
from .runtime.targets import TARGET, pick_arch

_state: dict = {"arch": None, "runner": None, "options": {}}


def init(arch: str = cpu, **options):
    if arch not in (cpu, cuda, gpu):
        raise ValueError(f"qd.init(arch=...) takes qd.cpu, qd.cuda or qd.gpu, got {arch!r}")
    if arch in (cuda, gpu):
        from .runtime.cuda.detect import cuda_status
        st = cuda_status()
        if not st.available:
            if arch == cuda:
                raise RuntimeError(f"qd.init(arch=qd.cuda): CUDA is unavailable: {st.reason}")
            warnings.warn(f"qd.gpu: no usable GPU ({st.reason}); falling back to the CPU backend", stacklevel=3)
            arch = cpu
        else:
            arch = cuda
    if not isinstance(options.get("fast_math", True), bool):
        raise ValueError(f"qd.init(fast_math=...) takes True or False, got {options['fast_math']!r}")
    reset()
    _state["arch"], _state["options"] = arch, options
    return arch


def reset():
    r = _state.get("runner")
    if r is not None:
        r.close()
    _state["runner"] = None


def current_arch() -> str:
    return _state["arch"] or cpu


def call_kernel(kernel, args: dict):
    if _state.get("runner") is None:
        _state["runner"] = InlineRunner(current_arch(), **_state.get("options", {}) or {})
    return _state["runner"].call(kernel, args)


class InlineRunner:
    """Compile in-process on first call (per argument specialisation), then launch in place."""

    def __init__(self, arch: str = "cpu", **options):
        self.backend = "cuda" if arch == "cuda" else "cpu"
        self.target = TARGET[self.backend]
        cache = PtxCache(options.get("cache_dir"), offline=options.get("offline_cache"))
        fast = options.get("fast_math", True)  # qd.init(fast_math=...), on by default as in Quadrants
        if not isinstance(fast, bool):
            raise ValueError(f"qd.init(fast_math=...) takes True or False, got {fast!r}")
        debug = options.get("debug", False)  # qd.init(debug=True): bounds-check every ndarray access
        if not isinstance(debug, bool):
            raise ValueError(f"qd.init(debug=...) takes True or False, got {debug!r}")
        # Quadrants' environment works here too: QD_DUMP_IR / QD_LOAD_IR / QUADRANTS_LOAD_PTX
        overrides = OverrideStore(None, env_load_dir(), env_load_kinds())
        self.pipeline = Pipeline(InlineCompiler(), cache, pick_arch(options.get("sm")), overrides=overrides,
                                 dump_dir=env_dump_dir(), fast_math=fast, debug=debug)
        self.print_asm = bool(options.get("print_kernel_asm"))
        self.device = LocalDevice(self.backend)
        self.loaded: dict = {}

    def call(self, kernel, args: dict):
        ordered = tuple(args[n] for n in kernel.arg_names)
        spec = kernel.spec_for(ordered)
        key = (id(kernel), spec)
        entry = self.loaded.get(key)
        if entry is None:
            tasks = kernel.tasks(spec)
            compiled = self.pipeline.compile(tasks, self.target)
            bad = [ct for ct in compiled if not ct.ok]
            if bad:
                raise QdError(f"{bad[0].task}: {bad[0].error}")
            if self.print_asm:  # PTX whatever the backend: on the CPU it is compiled for reading
                ptx = compiled if self.target == "nvptx" else self.pipeline.compile(tasks, "nvptx")
                write_ptx(Path.cwd(), ptx)
            for r in self.device.load([LoadItem(ct.spec, ct.output, ct.load_hash, ct.unit, ct.final_kind) for ct in compiled]):
                if not r.ok:
                    raise QdError(f"{r.task}: load failed: {r.error}")
            entry = self.loaded[key] = (tasks, [ct.task for ct in compiled])
        tasks, names = entry
        args = check_call_args(kernel.name, spec, args, tasks)
        try:
            trips = trip_counts(tasks, args)
        except ValueError as e:
            raise ArgumentError(f"{kernel.name}(): {e}") from None
        self.device.run_args(names, trips, args)

    def close(self):
        self.device.close()
