"""`qd.init(...)` and kernel calls from plain scripts, as seen from the language.

The language sits below the engine, so it cannot call the engine itself. It keeps the chosen
options and hands each call to a *caller* that a higher layer installs (`qdexplorer.script`,
wired by the package root). This keeps the layers one-way: lang never imports what runs it.
"""
from __future__ import annotations

import time
from contextlib import contextmanager

from ..tasks import materialize
from ...ir import dtypes as _types
from .splitmix import GOLDEN, MASK64, mix64
from ...script_hooks import HOOKS as _hooks, install as _install

ADSTACK_DEFAULT_SIZE = 1024  # qd.init(ad_stack_size=0), Quadrants' "adaptive": this many entries per stack


class Arch(str):
    """A backend name that compares equal to its string ("cpu") and has Quadrants' `Arch.name`
    (`qd.cpu.name == "x64"`), which Quadrants' own test harness puts in test ids."""

    _name: str

    def __new__(cls, value: str, name: str | None = None):
        self = super().__new__(cls, value)
        self._name = name or value
        return self

    @property
    def name(self) -> str:
        return self._name

    def __reduce__(self):
        return (Arch, (str(self), self._name))


cpu, cuda, gpu = Arch("cpu", "x64"), Arch("cuda"), Arch("gpu")
amdgpu, metal, vulkan = Arch("amdgpu"), Arch("metal"), Arch("vulkan")  # Quadrants' other backends: named so
arm64 = Arch("arm64")                                                   # ported code parses; qd.init refuses them
x64 = cpu

class BackendUnavailableError(RuntimeError, ValueError):
    """qd.init(arch=...) of a backend qdexplorer lacks with enable_fallback=False (Quadrants raises a
    RuntimeError; a ValueError too, as qdexplorer raised before)."""


_config: dict = {"debug": False, "host_only": 0,  # what lowering needs of qd.init's options
                 "random_seed": 0, "launches": 0}  # qd.random's seed, and calls that drew numbers since
PROFILE: dict[str, list[float]] = {}  # kernel name -> milliseconds of each call, with qd.init(kernel_profiler=True)
_compiled: set = set()  # (kernel, specialisation) pairs lowered since the last qd.init / qd.reset
_ON_INIT: list = []  # called with (default_ip, default_fp) (None: the default) after each qd.init


def _init_defaults() -> tuple:
    return _config.get("default_ip"), _config.get("default_fp")


_types.init_defaults = _init_defaults  # types.as_dtype reads `int`/`float` annotations through it


def on_init(fn) -> None:
    """Call `fn(default_ip, default_fp)` after every `qd.init` (qd.math retypes its vec/ivec types)."""
    _ON_INIT.append(fn)


_last_call: list = [None]  # (kernel, bound arguments) of the latest kernel call, for last_call_tasks()


def install(init, call, reset, adopt=None, sync=None):
    """The callers of a higher layer (the package root installs `qdexplorer.script`'s through
    `qdexplorer.script_hooks`, without importing the language); kept for harnesses that swap them."""
    _install(init, call, reset, adopt, sync)


def _hook(name):
    fn = _hooks[name]
    if fn is None:  # the package root installs the hooks; reaching here means a broken install
        raise RuntimeError("qdexplorer.script is not installed as the kernel caller")
    return fn


# Every keyword Quadrants 1.3.3's qd.init accepts: its CompileConfig fields, its spec options and its
# own parameters (misc.init). Anything else is Quadrants' KeyError, so a misspelt option is not ignored.
INIT_OPTIONS = frozenset("""
ad_stack_experimental_enabled ad_stack_size ad_stack_sparse_threshold_bytes advanced_optimization
auto_mesh_local_default_occupacy cache_loop_invariant_global_vars cfg_optimization check_out_of_bound
cpu_max_num_threads cuda_stack_limit debug debug_dump_path default_cpu_block_dim default_fp
default_gpu_block_dim default_ip demote_dense_struct_fors demote_no_access_mesh_fors detect_read_only
device_memory_GB device_memory_fraction experimental_auto_mesh_local external_metal_command_queue
external_metal_command_queue_is_torch_queue fast_math flatten_if force_scalarize_matrix half2_vectorization
kernel_profiler make_block_local make_cpu_multithreading_loop make_mesh_block_local make_thread_local
max_block_dim mesh_localize_all_attr_mappings mesh_localize_from_end_mapping mesh_localize_to_end_mapping
move_loop_invariant_outside_if num_compile_threads offline_cache offline_cache_cleaning_factor
offline_cache_cleaning_policy offline_cache_file_path offline_cache_max_size_of_files opt_level
optimize_mesh_reordered_mapping print_accessor_ir print_ir print_ir_dbg_info print_kernel_amdgcn
print_kernel_asm print_kernel_llvm_ir print_kernel_llvm_ir_optimized print_preprocessed_ir
print_struct_llvm_ir quant_opt_atomic_demotion quant_opt_store_fusion raise_on_templated_floats random_seed
real_matrix_scalarize saturating_grid_dim timeline vk_api_version
log_level gdb_trigger short_circuit_operators print_full_traceback unrolling_limit
_test_mode enable_fallback require_version print_non_pure src_ll_cache""".split())


def init(arch=None, default_fp=None, default_ip=None, _test_mode: bool = False, enable_fallback: bool = True,
         require_version: str | None = None, print_non_pure: bool = False, src_ll_cache: bool = True, **kwargs):
    """Pick the backend for kernel calls from Python; `gpu` falls back to the CPU when no GPU exists.
    `debug=True` compiles kernels' `assert`s (a failed one raises `QuadrantsAssertionError`).
    `short_circuit_operators` may only be True (the default): `and`/`or` always short-circuit.
    The named parameters are Quadrants' (in its order); each one given is an option as if by keyword."""
    options = dict(kwargs)
    given = {"default_fp": default_fp, "default_ip": default_ip, "_test_mode": _test_mode,
             "enable_fallback": enable_fallback, "require_version": require_version,
             "print_non_pure": print_non_pure, "src_ll_cache": src_ll_cache}
    defaults = {"default_fp": None, "default_ip": None, "_test_mode": False, "enable_fallback": True,
                "require_version": None, "print_non_pure": False, "src_ll_cache": True}
    options.update({k: v for k, v in given.items() if v is not defaults[k] and v != defaults[k]})
    if arch is None:
        arch = cpu
    unknown = [k for k in options if k not in INIT_OPTIONS]
    if "default_up" in options:
        raise KeyError("'default_up' is always the unsigned type of 'default_ip'. Please set 'default_ip' instead.")
    if unknown:
        raise KeyError(f"Unrecognized keyword argument(s) for qd.init: {', '.join(unknown)}")
    if arch == "python":  # Quadrants' python arch: the CPU backend here
        arch = cpu
    if arch in (amdgpu, metal, vulkan, arm64):  # as Quadrants: an unsupported arch falls back to the CPU
        if not options.get("enable_fallback", True):
            raise BackendUnavailableError(f"qd.init(arch=qd.{arch}, enable_fallback=False): qdexplorer runs on "
                                          f"qd.cpu and qd.cuda only")
        import warnings
        warnings.warn(f"qd.init(arch=qd.{arch}): qdexplorer runs on qd.cpu and qd.cuda only; falling back to "
                      f"the CPU backend (enable_fallback=False makes this an error)", stacklevel=2)
        arch = cpu
    if not options.get("short_circuit_operators", True):
        raise ValueError(f"qd.init(short_circuit_operators={options['short_circuit_operators']!r}): qdexplorer "
                         f"always short-circuits 'and'/'or' (Quadrants' default, short_circuit_operators=True); "
                         f"the bitwise mode is not supported (write '&' / '|' for bitwise operations)")
    options.pop("short_circuit_operators", None)
    seed = options.pop("random_seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"qd.init(random_seed=...) takes an integer, got {seed!r}")
    _config["kernel_profiler"] = bool(options.pop("kernel_profiler", False))
    _config["default_ip"], _config["default_fp"] = _default_type(options, "default_ip"), _default_type(options, "default_fp")
    result = _hook("init")(arch, **options)
    _config["arch"] = {cpu: cpu, cuda: cuda}.get(result, cpu)
    _config["options"] = dict(options)
    _config["debug"] = bool(options.get("debug", False))
    _config["random_seed"], _config["launches"] = seed, 0
    _compiled.clear()
    materialize.forget()
    for fn in _ON_INIT:
        fn(_config["default_ip"], _config["default_fp"])
    _last_call[0] = None
    if options.get("_test_mode"):  # Quadrants' test mode returns the spec options it was given
        return SpecConfig(**{k: options[k] for k in SpecConfig.DEFAULTS if k in options})
    return result


class SpecConfig:
    """What `qd.init(_test_mode=True, ...)` returns, as in Quadrants: the options that are not compiler
    settings (log level, gdb trigger, ...), each its default unless given."""

    DEFAULTS = {"log_level": "info", "gdb_trigger": False, "short_circuit_operators": True,
                "print_full_traceback": False, "unrolling_limit": 32}

    def __init__(self, **given):
        import os
        for k, v in self.DEFAULTS.items():
            env = os.environ.get("QD_" + k.upper(), "")  # QD_LOG_LEVEL=debug, QD_GDB_TRIGGER=1, as Quadrants
            if k in given:
                v = given[k]
            elif env:
                v = type(v)(int(env)) if isinstance(v, (bool, int)) else env
            setattr(self, k, v)


def _default_type(options: dict, key: str):
    """qd.init's default_ip (qd.i32 or qd.i64) / default_fp (qd.f32 or qd.f64): the type of Python
    numbers in kernels. Popped, so that nothing below sees an option it does not know."""
    v = options.pop(key, None)
    if v is None:
        return None
    dt = _types.as_dtype(v)
    allowed = ("i32", "i64") if key == "default_ip" else ("f32", "f64")
    if dt is None or dt.name not in allowed:
        raise ValueError(f"qd.init({key}=...) takes qd.{allowed[0]} or qd.{allowed[1]}, got {v!r}")
    return getattr(_types, dt.name)  # the registered dtype itself, even for a copy (`is qd.f32` holds), as Quadrants


def current_arch() -> Arch:
    """The backend of the current `qd.init` (`qd.cpu` before any): Quadrants' `current_cfg().arch`."""
    return _config.get("arch") or cpu


def setting(name: str, default=None):
    """One option of the current `qd.init` as lowering reads it (`arch`, `debug`, `default_fp`...)."""
    return _config.get(name, default)


def settings() -> dict:
    """A copy of the current `qd.init`'s options as lowering reads them."""
    return {k: v for k, v in _config.items() if k != "launches"}


def default_types() -> tuple:
    """(default_ip, default_fp): the types Python numbers get in a kernel, i32 and f32 unless
    `qd.init(default_ip=..., default_fp=...)` chose others."""
    return _config.get("default_ip") or _types.i32, _config.get("default_fp") or _types.f32


def float_type(dt=None):
    """`dt`, else qd.init's default_fp (f32 unless default_fp=qd.f64): a decomposition's or a solve's
    float type, as Quadrants picks it."""
    return dt if dt is not None else default_types()[1]


def init_options() -> dict:
    """The options the current `qd.init` was given (Quadrants' `current_cfg()` reads them)."""
    return dict(_config.get("options") or {})


def debug() -> bool:
    return _config["debug"]


def ad_stack_size() -> int:
    """Entries per adstack of reverse-mode kernels, or 0 when Quadrants' adstack is off (its default:
    `qd.init(ad_stack_experimental_enabled=True)` turns it on). `ad_stack_size=0` is Quadrants'
    adaptive size; here it is a fixed default, and a kernel that needs more raises at its call."""
    opts = _config.get("options") or {}
    if not opts.get("ad_stack_experimental_enabled", False):
        return 0
    size = opts.get("ad_stack_size", 0)
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise ValueError(f"qd.init(ad_stack_size=...) takes a non-negative integer, got {size!r}")
    return size or ADSTACK_DEFAULT_SIZE


def ad_stack_adaptive() -> bool:
    """`ad_stack_size=0` (the default): Quadrants sizes each stack itself; here a loop of a constant
    trip count gets a stack of exactly that many entries, any other the default size."""
    return not (_config.get("options") or {}).get("ad_stack_size", 0)


def reset():
    _compiled.clear()
    materialize.forget()
    _last_call[0] = None
    _config["arch"], _config["options"] = None, {}
    _config["random_seed"], _config["launches"] = 0, 0  # a fresh program, as Quadrants' reset gives
    _config["default_ip"] = _config["default_fp"] = None
    return _hook("reset")()


def next_random_key() -> int:
    """The key of one kernel call's random numbers: a different stream for each call, the same
    sequence of keys for the same `qd.init(random_seed=...)` (see frontend/random.py)."""
    _config["launches"] += 1
    return mix64((_config["random_seed"] * GOLDEN + _config["launches"]) & MASK64)



def note_compiled(kernel, key):
    """A kernel specialisation was lowered (or reused) for this session: counted once per distinct one."""
    _compiled.add((kernel, key))


def num_compiled() -> int:
    """Distinct kernel specialisations used since the last `qd.init`/`qd.reset`: what Quadrants counts
    as compiled functions (one per kernel and argument types; a new array shape compiles nothing)."""
    return len(_compiled)


def last_call_tasks() -> int:
    """How many offloaded tasks the latest kernel call launched (0 before any): Quadrants'
    `get_num_offloaded_tasks_on_last_call()`."""
    last = _last_call[0]
    if last is None:
        return 0
    kernel, bound = last
    return len(kernel.tasks(kernel.spec_for(tuple(bound[n] for n in kernel.arg_names))))


def call_kernel(kernel, bound: dict) -> dict:
    """Run `kernel` on the user's bound arguments; the caller decides how arrays reach its backend
    (host storage, device copies, GPU arrays by pointer) and returns the full argument dict."""
    _last_call[0] = (kernel, bound)
    if not _config.get("kernel_profiler"):
        return _hook("call")(kernel, bound)
    t0 = time.perf_counter()   # qd.profiler's records: the call's wall clock, the device synchronised
    out = _hook("call")(kernel, bound)
    sync()
    PROFILE.setdefault(kernel.name, []).append((time.perf_counter() - t0) * 1e3)
    return out


def adopt(storage):
    """A qd.ndarray or field was just allocated: the backend of the current `qd.init` may give it
    device memory (on CUDA it lives there from the start). Nothing happens before `qd.init`."""
    fn = _hooks["adopt"]
    if fn is not None and not _config["host_only"]:
        fn(storage)


@contextmanager
def host_only():
    """While the app or CLI imports a project file: its kernels run through the engine, whose device
    lives in a worker process, so fields it allocates stay host arrays even after a top-level
    `qd.init(arch=qd.cuda)` (the app process never opens a CUDA context)."""
    _config["host_only"] += 1
    try:
        yield
    finally:
        _config["host_only"] -= 1


def sync():
    """Wait for every kernel launched so far. On CUDA a call whose arrays all live on the GPU returns
    as soon as its kernels are queued, as in Quadrants; reading a qd.ndarray or field from Python,
    or a PyTorch/CuPy op on the arrays, is ordered after them without this."""
    fn = _hooks["sync"]
    if fn is not None:
        fn()
