"""Kernel calls from plain scripts: `qd.init(arch=...)` then `saxpy(x, y, 2.0)`.

Scripts share the pipeline and backends with the app and the CLI; they run them in-process
(compile and launch without helper processes), the way Quadrants scripts do. The language
reaches this module through the hooks in `qdexplorer.script_hooks`, installed by the package root.
"""
from __future__ import annotations

import warnings
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .compiler.asm_print import write_ptx
from .compiler.cache import PtxCache
from .compiler.dump import env_dump_dir, env_load_dir, env_load_kinds
from .compiler.overrides import OverrideStore
from .compiler.pipeline import Pipeline
from .compiler.pool import InlineCompiler
from . import ir
from .lang.calls.arg_check import (ArgumentError, alias_error, check_call_args, check_no_alias, convert_scalar,
                                   written_arrays)
from .lang.calls.bounds import trip_counts
from .ir.device_array import DeviceArray, device_array_of
from .ir.errors import QdError, QuadrantsAssertionError
from .lang.field import Storage
from .lang.field import Field, as_kernel_array, nested_out_of_order
from .lang.frontend.kernel_scope import RANDOM_KEY
from .lang.qd_types import NdarrayType
from .lang.template import Template
from .ir.dtypes import int_range
from .lang.calls import runtime_api
from .lang.calls.runtime_api import cpu, cuda, gpu
from .runtime.backend_api import stream_interop
from .runtime.cuda.detect import cuda_status
from .runtime.cuda.mirror import DeviceMirror
from .runtime.device import LocalDevice
from .runtime.device_api import LoadItem
from .runtime.targets import TARGET, pick_arch
from .machine.arch import DEFAULT_ARCH

_state: dict = {"arch": None, "runner": None, "options": {}}


def init(arch: str = cpu, **options):
    if arch not in (cpu, cuda, gpu):
        raise ValueError(f"qd.init(arch=...) takes qd.cpu, qd.cuda or qd.gpu, got {arch!r}")
    if arch in (cuda, gpu):
        st = cuda_status(in_process=True)  # the script owns the context from here on
        if not st.available:
            if arch == cuda and not options.get("enable_fallback", True):
                raise RuntimeError(f"qd.init(arch=qd.cuda): CUDA is unavailable: {st.reason}")
            if arch == cuda:  # Quadrants falls back to the CPU unless enable_fallback=False
                warnings.warn(f"qd.init(arch=qd.cuda): no usable GPU ({st.reason}); falling back to the CPU backend "
                              f"(enable_fallback=False makes this an error)", stacklevel=4)
                arch = cpu
            warnings.warn(f"qd.gpu: no usable GPU ({st.reason}); falling back to the CPU backend", stacklevel=4)
            arch = cpu
        else:
            arch = cuda
    if not isinstance(options.get("fast_math", True), bool):
        raise ValueError(f"qd.init(fast_math=...) takes True or False, got {options['fast_math']!r}")
    threads = options.get("cpu_max_num_threads")
    if threads is not None and (type(threads) is not int or threads < 1):
        raise ValueError(f"qd.init(cpu_max_num_threads=...) takes a whole number >= 1, got {threads!r}")
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


def call_kernel(kernel, bound: dict) -> dict:
    """Run one call of `kernel` with the user's bound arguments; returns the full argument dict
    (the kernel reads its return value and assert flag from it)."""
    return runner().call(kernel, bound)


def runner() -> "InlineRunner":
    """The runner of the current `qd.init` (made on first use: CUDA starts only when needed)."""
    if _state.get("runner") is None:
        _state["runner"] = InlineRunner(current_arch(), **_state.get("options", {}) or {})
    return _state["runner"]


def sync():
    """`qd.sync()`: wait for the kernels the current runner queued (nothing to do before any call)."""
    r = _state.get("runner")
    if r is not None:
        r.sync()


def adopt(storage):
    """A new qd.ndarray or field after `qd.init(arch=qd.cuda)`: it lives on the device from the
    start (zeroed there), so filling or passing it to kernels moves no data."""
    if _state["arch"] == cuda:
        runner().attach(storage)


def _gpu_array(kernel, name: str, v):
    try:
        return device_array_of(v) or v
    except TypeError as e:
        raise ArgumentError(f"{kernel.name}(): argument '{name}': {e}") from None


def _arg_modes(kernel) -> tuple | bool:
    """Per parameter, how a call's value enters the signature: 'a' an ndarray, 't' a template,
    's' a scalar; False when a parameter is a vector or struct (those calls take the checked path)."""
    try:
        types = kernel.arg_types()
    except QdError:
        return False
    modes = []
    for n in kernel.arg_names:
        t = types[n]
        if isinstance(t, NdarrayType):
            modes.append("a")
        elif isinstance(t, Template):
            modes.append("t")
        elif hasattr(t, "is_float"):
            modes.append("s")
        else:
            return False
    return tuple(modes)


_STATIC = (int, float, bool, str, type(None))


def _signature(modes: tuple, values: list, on_cuda: bool):
    """(signature, values) of one call, or None where the checked path must decide: what the
    specialisation, the argument checks and the launch depend on, short of the values of the
    scalars that bound loops (the plan keys its trip counts on those). Arrays are keyed by type,
    shape, dtype and, for NumPy ones, contiguity and writability; a qd.ndarray or field by its
    storage (and a field's offset=); a GPU array (CUDA) by its interface, read once here."""
    sig: list = []
    templated: set = set()
    for k, (m, v) in enumerate(zip(modes, values)):
        t = type(v)
        if m == "s":
            sig.append(t)
            continue
        if isinstance(v, Storage):
            if m == "t":  # one field in two template parameters: an aliased specialisation, the checked path's
                if id(v) in templated:
                    return None
                templated.add(id(v))
            if v.residency.mirror is not None and not on_cuda:
                return None
            st = v.storage
            # offset=, quant too (an instance attribute of quantized fields only: a getattr that misses goes
            # through Storage.__getattr__'s refusal, an exception built per array per call, ~2 µs each); a
            # sparse field given as a template is baked in, so which one it is (its uid)
            sparse = m == "t" and hasattr(type(v), "sparse") and (v.sparse or nested_out_of_order(v))
            sig.append((t, v.shape, st.shape, st.dtype, v.offset, v.__dict__.get("quant"), v.uid if sparse else None))
        elif isinstance(v, np.ndarray):
            if on_cuda:
                return None  # copied in and out around the call: the checked path does that
            fl = v.flags
            sig.append((t, v.shape, v.dtype, fl.c_contiguous, fl.writeable, getattr(v, "elem_shape", ())))
        elif m == "t":
            if t not in _STATIC:
                return None
            sig.append((t, v))
        elif on_cuda:
            try:
                d = device_array_of(v)
            except TypeError:
                return None
            if d is None:
                return None
            values[k] = d
            sig.append((t, d.shape, d.dtype, d.elem_shape))
        else:
            return None
    return tuple(sig), values


def _check_distinct(kernel_name: str, resident: list):
    """The aliasing check of a fast call's qd.ndarrays and fields, as the checked path words it: one
    passed twice, or as an argument and as a global the kernel reads. (GPU arrays: `check_no_alias`,
    once per set of pointers.)"""
    seen: dict = {}
    for name, v in resident:
        if id(v) in seen:
            raise alias_error(kernel_name, seen[id(v)], name)
        seen[id(v)] = name


class _Fast:
    """One signature's call plan: what a call does once its signature matched (see `_fast_call`)."""

    __slots__ = ("kernel", "names", "arrays", "scalars", "implicit", "draws", "range_names", "launchers",
                 "prints", "trips", "fields", "distinct")

    def __init__(self, kernel, names, arrays, scalars, implicit, draws, range_names, launchers, prints):
        self.kernel, self.names, self.arrays, self.scalars = kernel, names, arrays, scalars
        self.implicit, self.draws, self.range_names = implicit, draws, tuple(range_names)
        self.launchers, self.prints = launchers, prints
        self.trips: dict = {}  # range scalars' values -> trip counts, checked against the shapes
        # the fields the kernel reaches as globals, held weakly (a script may drop a field)
        self.fields = [(a.name, weakref.ref(Field.by_uid(int(a.key))), int(a.key))
                       for a in implicit if a.role == "field"]
        self.distinct: tuple = ()  # GPU array pointers whose aliasing check passed last call


@dataclass
class _Plan:
    """What every call of one specialisation needs, worked out once: a time-step loop calls the
    same kernel thousands of times, and Quadrants users expect a call to cost microseconds."""
    kernel: object   # held, so the id in the runner's key cannot be reused by another kernel
    tasks: list
    names: list
    implicit: list
    trips: dict = field(default_factory=dict)  # (array shapes, range scalars) -> checked trip counts
    range_scalars: tuple = ()

    prints: bool = False  # a task prints: the call waits, so its output appears at the call
    writes: frozenset = frozenset()  # array arguments the kernel writes: never a read-only one

    def __post_init__(self):
        self.writes = written_arrays(self.tasks)
        used = {n.name for t in self.tasks for n in ir.walk(t.ranges) if isinstance(n, ir.ScalarArg)}
        self.range_scalars = tuple(sorted(used))
        self.prints = any(isinstance(n, ir.Print) for t in self.tasks for n in ir.walk(t.body))

    def key(self, args: dict):
        """What the range checks and trip counts depend on; None when a value cannot be a key."""
        try:
            k = (tuple((n, v.shape) for n, v in args.items() if isinstance(v, (np.ndarray, DeviceArray))),
                 tuple(args[n] for n in self.range_scalars))
            hash(k)
        except (TypeError, KeyError):
            return None
        return k


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
        # the CPU backend runs host code: probing for a GPU's SM arch (a child process) would only delay it
        arch = pick_arch(options.get("sm")) if self.backend == "cuda" else options.get("sm") or DEFAULT_ARCH
        self.pipeline = Pipeline(InlineCompiler(), cache, arch, overrides=overrides,
                                 dump_dir=env_dump_dir(), fast_math=fast, debug=debug)
        self.print_asm = bool(options.get("print_kernel_asm"))
        self.debug = debug
        threads = options.get("cpu_max_num_threads")  # Quadrants': at most this many CPU threads run a loop
        self.device = LocalDevice(self.backend, **({"threads": threads} if self.backend == "cpu" and threads else {}))
        self.streams = stream_interop(self.device.backend)   # CUDA: ordering with GPU arrays' own streams
        self.loaded: dict = {}
        self.mirrored: weakref.WeakSet = weakref.WeakSet()  # qd.ndarrays / fields with a device copy here
        self.modes: dict = {}  # kernel -> what each parameter is, for signatures ((): no fast calls)
        self.fast: dict = {}   # (kernel, signature) -> _Fast

    def call(self, kernel, bound: dict) -> dict:
        """One call: a signature seen before (types, shapes, dtypes, residency, range scalars) takes
        its plan's fast path; anything else, and the first call of each, the checked path below,
        which then records a plan for the next."""
        modes: Any = self.modes.get(kernel)
        if modes is None:
            modes = self.modes[kernel] = _arg_modes(kernel)
        if modes is False:
            return self._call(kernel, bound)
        got = _signature(modes, [bound[n] for n in kernel.arg_names], self.backend == "cuda")
        if got is None:
            return self._call(kernel, bound)
        sig, values = got
        fp = self.fast.get((kernel, sig))
        if fp is not None:
            out = self._fast_call(fp, values)
            if out is not None:
                return out
        args = self._call(kernel, bound)
        self._record(kernel, sig, fp, values)
        return args

    def _call(self, kernel, bound: dict) -> dict:
        self._last = None
        if self.backend == "cuda":  # read each GPU array's interface once per call, not per check
            bound = {k: _gpu_array(kernel, k, v) for k, v in bound.items()}
        spec = kernel.spec_for(tuple(bound[n] for n in kernel.arg_names))
        plan = self.loaded.get((id(kernel), spec))
        if plan is None or plan.kernel is not kernel:  # an id can be reused once a kernel is collected
            plan = self._load(kernel, spec)
        resident: list = []
        args = kernel.call_args(bound, self._resolver(resident), spec, plan.implicit)
        key = plan.key(args)
        trips = plan.trips.get(key) if key is not None else None
        # loop ranges and the shapes they are checked against were seen before: skip re-checking them
        checked = check_call_args(kernel.name, spec, args, plan.tasks if trips is None else (),
                                  on_device=self.backend == "cuda", writes=plan.writes)
        if trips is None:
            try:
                trips = trip_counts(plan.tasks, checked)
            except ValueError as e:
                raise ArgumentError(f"{kernel.name}(): {e}") from None
            if key is not None and len(plan.trips) < 256:
                plan.trips[key] = trips
        self._last = (spec, plan, checked, trips)
        try:
            self.device.run_args(plan.names, trips, checked, timed=False, wait=self._must_wait(plan, checked))
        except QuadrantsAssertionError:  # a bad access in debug mode: an assert that failed before it
            kernel.result(args)          # (and let it happen) is the error to report, as in Quadrants
            raise
        finally:  # conservatively: a kernel (even one that faulted midway) may have written them
            for st in resident:
                st.residency.device_written()
        return args

    def _record(self, kernel, sig: tuple, fp: "_Fast | None", values: list):
        """After a checked call that succeeded: remember its plan for `sig`, or the trip counts of
        its range scalars' values in the plan already there."""
        last = self._last
        if last is None:
            return
        spec, plan, checked, trips = last
        if fp is None:
            fp = self._make_fast(kernel, spec, plan, checked)
            if fp is None:
                return
            if len(self.fast) < 4096:
                self.fast[(kernel, sig)] = fp
        if len(fp.trips) < 256:
            fp.trips[tuple(checked[n] for n in fp.range_names)] = trips

    def _make_fast(self, kernel, spec: tuple, plan: "_Plan", checked: dict) -> "_Fast | None":
        """The fast path of one signature, or None where it does not apply: range bounds that read
        anything but the user's scalar arguments; on CUDA, kernel-scope temporaries or a return
        value (copied back at every call), or plain NumPy arguments (copied in and out)."""
        names = list(kernel.arg_names)
        if len(spec) != len(names) or any(n not in names for n in plan.range_scalars):
            return None  # a spec with entries beyond the arguments (k.grad's adjoint arrays): checked path
        cuda_ = self.backend == "cuda"
        if cuda_ and any(a.role != "field" for a in plan.implicit):
            return None
        launchers = []
        for t in plan.names:
            q = self.device.backend.quick_launcher(t, checked)
            if q is None:
                return None
            launchers.append((t, q))
        scalars = []
        for i, entry in enumerate(spec):
            if entry[1] == "scalar" and hasattr(entry[2], "is_float"):
                dt = entry[2]
                native = float if dt.is_float else int
                bounds = None if dt.is_float else int_range(dt)
                scalars.append((i, native, bounds, dt, f"{kernel.name}(): argument '{entry[0]}'"))
        return _Fast(kernel, names, [i for i, e in enumerate(spec) if e[1] == "array"], scalars,
                     list(plan.implicit), kernel.draws_random(spec), plan.range_scalars, launchers,
                     plan.prints)

    def _fast_call(self, fp: "_Fast", values: list) -> dict | None:
        """A call on a known signature: convert the scalars, look up the trip counts (checked when
        these range values were first seen), refresh the arrays' pointers and launch. None when
        the range values are new: the checked path runs instead (and records them)."""
        for i, native, bounds, dt, where in fp.scalars:
            v = values[i]
            if type(v) is native and (bounds is None or bounds[0] <= v <= bounds[1]):
                continue
            values[i] = convert_scalar(where, v, dt)
        args = dict(zip(fp.names, values))
        trips = fp.trips.get(tuple(args[n] for n in fp.range_names)) if fp.range_names else \
            next(iter(fp.trips.values()), None)
        if trips is None:
            return None
        cuda_ = self.backend == "cuda"
        if cuda_:
            return self._fast_cuda(fp, args, trips)
        for i in fp.arrays:
            v = values[i]
            if type(v) is not np.ndarray and not isinstance(v, np.ndarray):
                args[fp.names[i]] = v.storage
        for name, ref, uid in fp.fields:
            f = ref()
            args[name] = (f if f is not None else Field.by_uid(uid)).storage
        for a in fp.implicit:
            if a.role != "field":
                args[a.name] = np.zeros(a.shape, a.dtype.numpy)
        if fp.draws:
            args[RANDOM_KEY] = runtime_api.next_random_key()
        if not self.debug:
            for t, launch in fp.launchers:
                launch(args, trips[t])
            return args
        try:
            for t, launch in fp.launchers:
                launch(args, trips[t])
        except QuadrantsAssertionError:  # a bad access: an assert that failed before it is the error,
            fp.kernel.result(args)       # as on the checked path
            raise
        return args

    def _fast_cuda(self, fp: "_Fast", args: dict, trips: dict) -> dict:
        """CUDA: qd.ndarrays and fields by their device copies (uploaded first only if Python wrote
        them last), GPU arrays by pointer after their producer stream; the call returns once the
        launches are queued, unless the kernel prints or a GPU array names no stream to order."""
        backend = self.device.backend
        resident, external = [], {}
        for i in fp.arrays:
            name = fp.names[i]
            v = args[name]
            if isinstance(v, DeviceArray):
                external[name] = v
                args[name] = (v.ptr, v.shape)
                continue
            args[name] = self._device_ptr(v, backend)
            resident.append((name, v))
        user_resident = bool(resident)
        for name, ref, uid in fp.fields:
            f = ref()
            if f is None:
                f = Field.by_uid(uid)  # collected: its error; re-registered: the new one
            args[name] = self._device_ptr(f, backend)
            resident.append((name, f))
        if len(resident) > 1 and user_resident:  # implicit fields are distinct by construction
            _check_distinct(fp.kernel.name, resident)
        if len(external) > 1:  # the same pointers as last call passed last call's check
            ptrs = tuple(v.ptr for v in external.values())
            if ptrs != fp.distinct:
                check_no_alias(fp.kernel.name, external)
                fp.distinct = ptrs
        if fp.draws:
            args[RANDOM_KEY] = runtime_api.next_random_key()
        interop = self.streams
        assert interop is not None  # a CUDA backend has it, and the fast path on CUDA is the only caller
        if external and not resident and not fp.prints:
            stream = interop.producer_stream(external.values())
            if stream is not None:  # launch where the arrays' producer queued: ordered both ways
                for t, launch in fp.launchers:
                    launch(args, trips[t], stream)
                return args
        streams = interop.order_after(list(external.values())) if external else set()
        try:
            for t, launch in fp.launchers:
                launch(args, trips[t])
        finally:  # conservatively: a kernel (even one that faulted midway) may have written them
            for _, st in resident:
                st.residency.device_written()
        if fp.prints or any(v.stream is None for v in external.values()):
            self.device.sync()
        elif streams:
            interop.signal(streams)
        return args

    def _device_ptr(self, v, backend) -> tuple:
        return (self._device_copy(v, backend).ptr, v.storage.shape)

    def _device_copy(self, v: Storage, backend) -> Any:
        """`v`'s device copy in `backend`, made here if it has none there, current for a kernel."""
        if v.residency.mirror is None or v.residency.mirror.backend is not backend:
            self.attach(v, zeroed=False)
        return v.residency.on_device()

    def _must_wait(self, plan: "_Plan", args: dict) -> bool:
        """Whether the call must return only after its kernels finished. On CUDA it need not when
        every array lives on the GPU, as Quadrants' calls do not: Python's next statements overlap
        the kernels, and everything that reads their results is ordered after them (see handoff).
        It must when a host array is copied back (NumPy arguments, the return value, kernel-scope
        temporaries), in debug mode (each launch is checked), when the kernel prints (the output
        appears at the call), and for a GPU array whose interface names no stream to order."""
        if self.backend != "cuda" or self.debug or plan.prints:
            return True
        for v in args.values():
            if isinstance(v, np.ndarray):
                return True
            if isinstance(v, DeviceArray) and v.stream is None and not isinstance(v.owner, Storage):
                return True
        return False

    def sync(self):
        self.device.sync()

    def _load(self, kernel, spec) -> "_Plan":
        tasks = kernel.tasks(spec)
        compiled = self.pipeline.compile(tasks, self.target)
        bad = [ct for ct in compiled if not ct.ok]
        if bad:
            err = str(bad[0].error)
            raise QdError(err if bad[0].task in err else f"{bad[0].task}: {err}")
        if self.print_asm:  # PTX whatever the backend: on the CPU it is compiled for reading
            ptx = compiled if self.target == "nvptx" else self.pipeline.compile(tasks, "nvptx")
            write_ptx(Path.cwd(), ptx)
        items = [LoadItem(ct.spec, ct.output, ct.load_hash, ct.unit, ct.final_kind) for ct in compiled if ct.spec is not None]
        results = self.device.load(items)
        if any(not r.reused for r in results):
            self.fast.clear()  # code was (re)loaded: a launcher may hold a replaced entry point
        for r in results:
            if not r.ok:
                raise QdError(f"{r.task}: load failed: {r.error}")
        plan = self.loaded[(id(kernel), spec)] = _Plan(kernel, tasks, [ct.task for ct in compiled],
                                                       kernel.implicit(spec))
        return plan

    def _resolver(self, resident: list):
        """How array arguments reach the backend. On CUDA, qd.ndarrays and fields get a device copy
        that stays between calls (uploaded only when Python wrote the host side last) and GPU
        arrays pass by pointer; plain NumPy arrays are copied in and out around the call."""
        if self.backend != "cuda":
            return as_kernel_array
        backend = self.device.backend

        def resolve(v):
            if not isinstance(v, Storage):
                return as_kernel_array(v)
            m = self._device_copy(v, backend)
            resident.append(v)
            return DeviceArray(m.ptr, v.storage.shape, v.storage.dtype, v.elem_shape, None, v,
                               type(v).__name__)
        return resolve

    def attach(self, v, zeroed: bool = True):
        """Give a qd.ndarray or field its device copy here. `zeroed`: it was just allocated (all
        zeros on both sides), so the device copy is made current without a transfer."""
        v.host()  # a copy owned by an earlier runner (qd.init again): bring it home first
        v.residency.attach(DeviceMirror(self.device.backend, v.storage), zeroed)
        self.mirrored.add(v)

    def close(self):
        for st in list(self.mirrored):  # nothing lost: kernels' results come home before the context goes
            try:
                st.residency.detach()
            except Exception:  # noqa: BLE001 - a faulted context cannot copy back; drop the copy
                st.residency.drop()
        self.device.close()
