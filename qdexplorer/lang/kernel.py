"""`@qd.kernel`, `@qd.func` and `@qd.workload`: the objects a project file defines.

A Kernel lowers lazily (on first call or when the engine asks for its tasks) and caches its
tasks per argument specialisation, so a kernel with `ndarray()` of unspecified dtype still
works, as in Quadrants.
"""
from __future__ import annotations

import ast

import dataclasses
import inspect

import numpy as np

from .snode import SHORTENED, check_lists
from .autodiff import (adstack_retry, reverse as autodiff, forward as autodiff_fwd,
                       validation as autodiff_validation)
from .calls import array_arg_errors, runtime_api
from .compat import surface as compat
from .. import ir
from .calls.arg_binding import bind_arguments
from .calls.array_arg_errors import ArgumentValueError
from .calls.caller import caller
from ..ir.errors import (QdCompileError, QuadrantsArgumentError, QuadrantsAssertionError,
                         QuadrantsRuntimeTypeError, QuadrantsSyntaxError)
from .host.buffer_view import BufferView, BufferViewType
from ..ir.device_array import DeviceArray
from .field import Field, array_meta, as_kernel_array
from .field import Storage
from .autodiff.adjoints import gradient_of
from .frontend.kernel_scope import RANDOM_KEY
from .func import Func, KernelBase, check_annotations, func, read_annotations
from .calls.launch_stats import LaunchObservations, LaunchStats, SpecialisationMap
from .tasks.offload import lower_kernel
from .qd_types import NDArray, ndarray
from .calls.return_values import is_compound, rebuild
from .tasks.source import SourceInfo
from .struct_types import StructType, struct_arg_values
from .template import ALIAS_KEY, Template, template, template_spec
from .tensor import Tensor
from ..ir.dtypes import DType, NdarrayType, as_dtype, f32, from_numpy
from .vector_types import VectorType


def _aliased_templates(names, types, args) -> tuple:
    """Groups of template parameters given the same field or array (`advect(v.cur, v.cur, v.nxt)`), or
    BufferView parameters given views of one array (`k(data[:8], data[4:12])`): Quadrants accepts such
    a call, so the kernel compiles a specialisation where they may alias."""
    by_obj: dict[int, list[str]] = {}
    for name, a in zip(names, args):
        if isinstance(types[name], Template) and isinstance(a, (Storage, np.ndarray)):
            by_obj.setdefault(id(a), []).append(name)
        elif isinstance(types[name], BufferViewType) and isinstance(a, BufferView):  # two views of one array
            by_obj.setdefault(id(a.arr), []).append(name)
    return tuple(tuple(g) for g in by_obj.values() if len(g) > 1)


class Kernel(KernelBase):
    """A `@qd.kernel`: callable from Python with NumPy arrays and scalars; lowered to tasks."""

    def __init__(self, fn, fast_math: bool | None = None):
        check_annotations(fn, "kernel")
        self.fn, self.name = fn, fn.__name__
        self.__wrapped__ = fn
        self.__doc__ = fn.__doc__
        self.__name__, self.__qualname__, self.__module__ = fn.__name__, fn.__qualname__, fn.__module__
        self.fast_math = fast_math  # None: follow the project / qd.init setting
        self._source: SourceInfo | None = None
        self._tasks: dict = {}
        self.workloads: list = []  # registered by @qd.workload, in definition order
        self.assert_sites: list = []
        self._sites: dict = {}
        self._draws: dict[tuple, bool] = {}  # spec -> whether its tasks draw random numbers
        self.file = fn.__code__.co_filename
        self.line = fn.__code__.co_firstlineno
        self._signature = inspect.signature(fn)
        self.arg_names = list(self._signature.parameters)
        self._plain_params = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                                 for p in self._signature.parameters.values())
        self._arg_types: dict | None = None  # annotations are fixed once defined: read them once
        self.use_graph = False  # @qd.kernel(graph=True)
        self.pure = False  # @qd.kernel(pure=True) or fastcache=True: no global number/str/field read by name

    def __repr__(self) -> str:
        return f"<qd.kernel {self.name} at {self.file}:{self.line}>"

    def __getattr__(self, name: str):
        """Quadrants kernel attributes qdexplorer leaves out (`k.resume` of graph kernels): one line."""
        if name.startswith("_"):
            raise AttributeError(name)
        compat.refuse_attr("kernel", self, name)

    @property
    def source(self) -> SourceInfo:
        if self._source is None:
            self._source = SourceInfo(self.fn)
        return self._source

    def arg_types(self) -> dict:
        if self._arg_types is None:
            self._arg_types = self._read_arg_types()
        return self._arg_types

    def _read_arg_types(self) -> dict[str, NdarrayType | Template | VectorType | StructType | BufferViewType | DType]:
        hints = read_annotations(self.fn)
        out: dict[str, NdarrayType | Template | VectorType | StructType | BufferViewType | DType] = {}
        for name in self.arg_names:
            ann = _optional_of(hints.get(name))  # `t: qd.Tensor | None`: None is then a compile-time value
            if ann is NDArray or ann is ndarray:  # bare qd.types.NDArray: specialise on the call
                ann = NdarrayType()
            if ann is BufferView:  # a bare `v: BufferView`: the view's dtype comes from the call
                ann = BufferViewType()
            if ann is Template or ann is template or ann is Tensor or (isinstance(ann, type) and
                                                                        dataclasses.is_dataclass(ann)):
                ann = Template()  # `x: qd.Template`/`qd.Tensor`, or a dataclass of arrays: its value specialises
            dt = as_dtype(ann)
            if ann is None and name == "self" and name == self.arg_names[0] and "." in self.fn.__qualname__:
                ann = Template()  # a method's self (a @qd.data_oriented object): a compile-time value
            if isinstance(ann, (NdarrayType, Template, BufferViewType)):
                out[name] = ann
            elif isinstance(ann, VectorType):  # c: qd.math.vec3, passed by value as its components
                out[name] = ann
            elif isinstance(ann, StructType):  # p: Particle, passed by value as its scalar members
                out[name] = ann
            elif dt is not None:
                out[name] = dt
            else:
                raise QdCompileError(
                    f"argument '{name}' of kernel '{self.name}' needs a type annotation "
                    f"(qd.types.ndarray(dtype=..., ndim=...), qd.template() or a scalar type like qd.f32)",
                    self.file, self.line)
        return out

    @property
    def lowered_keys(self) -> list[tuple]:
        """The key of every specialisation lowered so far, first lowered first: what a launch's
        statistics number its variants by (calls/launch_stats.py)."""
        return list(self._tasks)

    @property
    def return_type(self):
        """The kernel's `-> qd.i32` (or vector) annotation, or None."""
        return read_annotations(self.fn).get("return")

    def spec_for(self, args: tuple | None = None) -> tuple:
        """The specialisation key: (name, kind, dtype, ndim) per argument, filled from `args` if given.

        Templates specialise per value, as in Quadrants, except fields and arrays: those specialise on
        dtype and ndim only, since their storage is passed to the tasks at run time."""
        spec = []
        types = self.arg_types()
        for i, name in enumerate(self.arg_names):
            t = types[name]
            if isinstance(t, Template):
                if args is None:
                    raise QdCompileError(f"template argument '{name}' of kernel '{self.name}' takes its value "
                                         f"from a call: call the kernel (or give it a workload)",
                                         self.file, self.line)
                spec.append(template_spec(name, args[i]))
            elif isinstance(t, NdarrayType):
                dt, nd, el = t.dtype, t.ndim, tuple(t.elem)
                if args is not None:
                    dt, nd, el = self._array_spec(name, t, args[i])
                elif nd == 0:
                    nd = 1   # a 0-d array is stored as one element, as a 0-d field is
                if dt is None or nd is None or (t.elem_rank and not el):
                    raise QdCompileError(
                        f"ndarray argument '{name}' of kernel '{self.name}' has no dtype/ndim{'/element shape' if t.elem_rank else ''}: "
                        f"give them in the annotation or call the kernel (or a workload) with arrays",
                        self.file, self.line)
                spec.append((name, "array", dt, nd + len(el)) + ((el,) if el else ()))
            elif isinstance(t, BufferViewType):
                spec.append(self._view_spec(name, t, args[i] if args is not None else None))
            elif isinstance(t, VectorType):
                spec.append((name, "vector", t.dtype or f32, t.shape))
            elif isinstance(t, StructType):
                spec.append((name, "struct", t, 0))
            else:
                if args is not None and t.is_int and isinstance(args[i], (float, np.floating)):
                    raise QuadrantsRuntimeTypeError(
                        f"{self.name}(): Argument {(i,)} (type={type(args[i])}) cannot be converted into required "
                        f"type {t.name}: argument '{name}' is {t!r} but got the float {args[i]!r}; pass an int "
                        f"(Quadrants refuses floats for integer arguments)")
                spec.append((name, "scalar", t, 0))
        aliased = _aliased_templates(self.arg_names, types, args) if args is not None else ()
        if aliased:  # its own specialisation, compiled without the no-alias promise for these
            spec.append((ALIAS_KEY, "static", aliased, 0))
        if args is not None and self.reads_grads():  # `a.grad[i]` of a template field or of an ndarray
            for i, name in enumerate(self.arg_names):     # argument: its adjoint is one more array, `a__grad`
                entry = spec[i]
                if isinstance(types[name], (Template, NdarrayType)) and entry[1] == "array" and \
                        getattr(types[name], "needs_grad", None) is not False and \
                        gradient_of(args[i]) is not None:
                    spec.append((autodiff.grad_name(name),) + tuple(entry[1:]))
        return tuple(spec)

    def _view_spec(self, name: str, t: BufferViewType, v) -> tuple:
        """A `BufferView[dtype]` argument: its backing 1-D array's (dtype, ndim, element shape); the
        kernel takes the array and the view's offset and size as scalars (`name__offset`, `name__size`)."""
        if v is None:
            raise QdCompileError(f"BufferView argument '{name}' of kernel '{self.name}' takes its array from a "
                                 f"call: call the kernel (or give it a workload)", self.file, self.line)
        if not isinstance(v, BufferView):
            raise QuadrantsRuntimeTypeError(
                f"{self.name}(): argument '{name}' is a BufferView parameter, got {type(v).__name__}; pass a "
                f"view (data[a:b], or qd.BufferView(data, offset, size))")
        dt, nd, el = self._array_spec(name, NdarrayType(dtype=t.dtype, ndim=1), v.arr)
        return (name, "bufview", dt, nd + len(el)) + ((el,) if el else ())

    def _array_spec(self, name: str, t: NdarrayType, v) -> tuple:
        """(dtype, storage ndim less the element axes, element shape) of array argument `v` for
        annotation `t`, or the error Quadrants gives for the mismatch. A 0-d qd.ndarray or field
        matches `ndim=0` and is passed as its one-element storage (`x[None]` in the kernel)."""
        dt, nd, el = t.dtype, t.ndim, tuple(t.elem)
        try:
            a = array_meta(v)
        except TypeError as e:
            raise QuadrantsRuntimeTypeError(f"{self.name}(): argument '{name}': {e}") from None
        if not isinstance(a, (np.ndarray, DeviceArray)):
            raise QuadrantsRuntimeTypeError(f"{self.name}(): Invalid type for argument {name}, got {v!r}: it must "
                                            f"be a NumPy array or qd.ndarray, not {type(v).__name__}")
        try:
            adt = from_numpy(a.dtype)
        except TypeError as e:
            raise QuadrantsRuntimeTypeError(
                f"{self.name}(): argument '{name}' (dtype {a.dtype}) cannot be passed: {e}"
                + (f"; convert it with .astype(np.{dt.numpy})" if dt else "")) from None
        got_el = tuple(getattr(a, "elem_shape", ()))
        if t.elem_rank is not None and not isinstance(v, Storage) and isinstance(a, np.ndarray) and not got_el \
                and a.ndim >= t.elem_rank:
            # an external array under `ndarray(element_dim=1)` / a bare vector: its last axes are the
            # element, as Quadrants reads them (an (H, W, 3) image is H x W 3-vectors)
            got_el = tuple(a.shape[a.ndim - t.elem_rank:])
            t = dataclasses.replace(t, elem=got_el, elem_rank=None)
            el = got_el
        if t.elem_rank is not None and len(got_el) != t.elem_rank:
            what = "vector" if t.elem_rank == 1 else "matrix"
            raise ArgumentValueError(f"Invalid value for argument {name} - {self.name}() takes an ndarray of "
                                     f"{what}s (qd.types.{what}()), but an array of "
                                     f"{'shape ' + str(got_el) + ' elements' if got_el else 'scalars'} is provided")
        array_arg_errors.check(self.name, name, t, v, a, adt, isinstance(v, Storage))
        if not el and got_el:
            el = got_el  # a qd.ndarray of vectors for an untyped annotation
        zero_d = isinstance(v, Storage) and v.shape == ()
        user_nd = 0 if zero_d else a.ndim - len(el)
        if nd is not None and user_nd != nd:
            raise QuadrantsRuntimeTypeError(f"{self.name}(): argument '{name}' must have {nd} "
                                            f"dimension(s){' of ' + str(el) + ' elements' if el else ''}, "
                                            f"got an array of shape {getattr(v, 'shape', a.shape)}")
        if el and tuple(a.shape[a.ndim - len(el):]) != el:
            raise QuadrantsRuntimeTypeError(f"{self.name}(): argument '{name}' holds {el} elements: its "
                                            f"last axes must be {el}, got shape {a.shape}")
        return adt, a.ndim - len(el), el

    def default_spec(self) -> tuple:
        """The annotations' specialisation, or, where they leave values open (templates, untyped
        ndarrays), the one of the kernel's first workload's arguments."""
        try:
            return self.spec_for()
        except QdCompileError:
            if not self.workloads:
                raise
            args = self.workloads[0].bound_args(0)
            return self.spec_for(tuple(args[n] for n in self.arg_names))

    def tasks(self, spec: tuple | None = None, memo=None) -> list[ir.Task]:
        spec = spec or self.default_spec()
        key = (spec, runtime_api.debug())  # debug mode compiles asserts in
        if key not in self._tasks:
            self._tasks[key] = lower_kernel(self, memo, spec)
            self._sites[key] = self.assert_sites
        self.assert_sites = self._sites[key]
        runtime_api.note_compiled(self, key)
        return self._tasks[key]

    def reads_grads(self) -> bool:
        """Whether the body mentions `.grad` (`a.grad[i]` of a template field needs its adjoint passed)."""
        r = self.__dict__.get("_reads_grads")
        if r is None:
            r = self.__dict__["_reads_grads"] = any(isinstance(n, ast.Attribute) and n.attr == "grad"
                                                    for n in ast.walk(self.source.fdef))
        return r

    def bind(self, *args, **kwargs) -> dict:
        """Match call arguments to parameter names, with clear errors for missing/extra ones."""
        if not kwargs and len(args) == len(self.arg_names) and self._plain_params:
            return dict(zip(self.arg_names, args))  # the common call, without inspect's general binding
        try:
            ba = bind_arguments(self._signature, self.name, args, kwargs)  # defaults applied
        except QuadrantsArgumentError as e:
            raise QuadrantsArgumentError(e.message, *caller()) from None  # at the user's call
        return dict(ba.arguments)

    def implicit(self, spec: tuple) -> list[ir.ImplicitArray]:
        """The arrays the caller supplies besides the user's arguments (fields, temporaries, result)."""
        seen, out = set(), []
        for t in self.tasks(spec):
            for a in t.implicit:
                if a.name not in seen:
                    seen.add(a.name)
                    out.append(a)
        return out

    def call_args(self, bound: dict, resolve=as_kernel_array, spec: tuple | None = None,
                  implicit: list | None = None) -> dict:
        """A call's full argument dict as the engine wants it: every array argument (fields and
        qd.ndarrays included) through `resolve` (NumPy storage by default; a CUDA script passes device
        copies), plus the implicit arrays of `implicit()` and, when the kernel draws random numbers,
        this call's random key. `spec`: the call's, if already known."""
        if spec is None:
            spec = self.spec_for(tuple(bound[n] for n in self.arg_names))
        args = {}
        for entry, v in zip(spec, (bound[n] for n in self.arg_names)):
            if entry[1] == "vector":
                args.update(vector_components(self.name, entry, v))
                continue
            if entry[1] == "struct":
                try:
                    args.update(struct_arg_values(self.name, entry[0], entry[2], v))
                except TypeError as e:
                    raise QuadrantsRuntimeTypeError(str(e)) from None
                continue
            if entry[1] == "bufview":  # the backing array, and the window as two i32 scalars
                args[entry[0]] = resolve(v.arr)
                args[entry[0] + "__offset"], args[entry[0] + "__size"] = v.offset, v.size
                continue
            args[entry[0]] = resolve(v) if entry[1] == "array" else v
        for entry in spec[len(self.arg_names):]:  # adjoints of array arguments (`a.grad`, k.grad's inputs)
            if entry[0].endswith(autodiff.GRAD):
                args[entry[0]] = resolve(bound[entry[0][:-len(autodiff.GRAD)]].grad)
        for a in self.implicit(spec) if implicit is None else implicit:
            args[a.name] = resolve(Field.by_uid(int(a.key))) if a.role == "field" else np.zeros(a.shape, a.dtype.numpy)
        if self.draws_random(spec):
            args[RANDOM_KEY] = runtime_api.next_random_key()
        return args

    def draws_random(self, spec: tuple) -> bool:
        """Whether a task of this specialisation calls qd.random / qd.randn (its tasks take the key)."""
        draws = self._draws.get(spec)
        if draws is None:
            draws = self._draws[spec] = any(p.name == RANDOM_KEY for t in self.tasks(spec) for p in t.params)
        return draws

    def result(self, args: dict):
        """The kernel's return value, read back from its result array (None without one); raises
        `QuadrantsAssertionError` if a debug-mode assert failed."""
        if SHORTENED:  # a dynamic list past the cells stored for it (snode.py: stored_shape)
            check_lists()
        flag = args.get("assert__")
        if flag is not None and int(flag[0]) != 0:
            site = int(flag[0])
            raise QuadrantsAssertionError(assert_message(self.assert_sites[site - 1], args.get("assertv__"))
                                          if 0 < site <= len(self.assert_sites)
                                          else f"assertion failed in kernel '{self.name}'")
        stack = args.get(autodiff.ADSTACK_FLAG)
        if stack is not None and int(stack[0]) != 0:
            raise QuadrantsAssertionError(
                f"Adstack overflow: kernel '{self.name}' (reverse-mode autodiff) pushed more values than its adstack "
                f"holds ({getattr(self, 'stack_size', runtime_api.ad_stack_size)()} per loop-carried variable of a "
                f"dynamic loop); the gradients "
                f"it wrote are wrong. Raise the capacity with qd.init(ad_stack_size=N)")
        form = self.__dict__.get("_result_form")
        if form is None:  # read once: resolving annotations cost ~1.5 µs of every script call (issue 40)
            ann = self.return_type
            form = self.__dict__["_result_form"] = (ann, is_compound(ann), as_dtype(ann) is not None)
        ann, compound, scalar = form
        if compound:  # a struct or tuple: rebuilt from one array per leaf
            return rebuild(ann, args)
        if "ret__" not in args:
            return None
        r = args["ret__"]
        if scalar:
            x = r[0].item()
            return int(x) if isinstance(x, bool) else x  # a u1 result is 0/1, as Quadrants returns it
        return r.reshape(getattr(ann, "shape", r.shape)).copy()

    def __get__(self, obj, objtype=None):
        """`sim.step` of a kernel method: the kernel with `sim` as its first (template) argument."""
        return self if obj is None else BoundKernel(self, obj)

    autodiff_mode = 0  # Quadrants' AutodiffMode: NONE, or VALIDATION while a Tape(validation=True) records it

    def __call__(self, *args, **kwargs):
        kwargs.pop("qd_stream", None)  # one stream runs every call in order (streams.py)
        if autodiff_fwd.ACTIVE:  # inside `qd.ad.FwdMode`: the forward-mode twin computes the duals too
            return self.fwd(*args, **kwargs)
        bound = self.bind(*args, **kwargs)
        compiled = len(self._tasks)
        autodiff.prepare(self)  # inside `qd.ad.Tape(validation=True)`: the validating twin runs
        target = self.validating if self.autodiff_mode == VALIDATION and runtime_api.debug() else self
        try:
            full = runtime_api.call_kernel(target, bound)  # the caller builds the arguments
        except QdCompileError as e:  # the message names file:line:col with a caret: the compiler's own
            raise e.with_traceback(None) from None  # frames would only bury it
        self._last_bound = bound  # what `launch_stats` counts (held until the next call)
        self._last_reused = len(self._tasks) == compiled  # no new specialisation was lowered for it
        autodiff.record(self, args, kwargs)  # inside `qd.ad.Tape`: replayed in reverse on exit
        return target.result(full)

    @property
    def validating(self) -> "ValidationKernel":
        """The twin that checks Quadrants' global data access rule (`qd.ad.Tape(validation=True)`)."""
        return _twin(self, "_validation_kernel", ValidationKernel)

    @property
    def _primal(self) -> "Kernel":
        """Quadrants' decorated kernel wraps this object as `k._primal`; here `k` is it."""
        return self

    @property
    def mapper(self) -> SpecialisationMap:
        """The specialisations compiled so far (`k._primal.mapper.mapping`; launch_stats.py)."""
        return SpecialisationMap(self)

    @property
    def launch_observations(self) -> LaunchObservations:
        """Whether the last call reused an already compiled specialisation (launch_stats.py)."""
        return LaunchObservations(bool(self.__dict__.get("_last_reused", False)))

    @property
    def launch_stats(self) -> LaunchStats:
        """What the last call passed to the compiled tasks, by kind (launch_stats.py)."""
        return LaunchStats(self)

    @property
    def fwd(self) -> "DualKernel":
        """The forward-mode twin that `qd.ad.FwdMode` calls (made once, lowered lazily)."""
        return _twin(self, "_dual_kernel", DualKernel)

    @property
    def grad(self) -> "GradKernel":
        """`k.grad`: the adjoint kernel, called with `k`'s arguments (made once, lowered lazily)."""
        return _twin(self, "_grad_kernel", GradKernel)


def _twin(kernel: Kernel, key: str, make):
    """`make(kernel)`, made on first use and kept in the kernel's own `__dict__` (read there, so a
    miss never reaches `__getattr__`)."""
    twin = kernel.__dict__.get(key)
    if twin is None:
        twin = kernel.__dict__[key] = make(kernel)
    return twin


class _TwinKernel(Kernel):
    """A kernel derived from another, `primal` (`k.grad`, `k.fwd`, `k.validation`): named after it,
    its own tasks and specialisations, but the primal's function, argument types and workloads (the
    primal's inputs specialise it too)."""

    suffix: str   # what its name adds to the primal's

    def __init__(self, primal: Kernel):
        super().__init__(primal.fn, primal.fast_math)
        self.primal = primal
        self.name = f"{primal.name}.{self.suffix}"
        self.workloads = primal.workloads
        self._arg_types = primal.arg_types() if primal._arg_types is not None else None


class GradKernel(_TwinKernel):
    """`k.grad`: reverse-mode autodiff of kernel `k` (lang/autodiff/reverse.py), named `k.grad` in the project.

    Its specialisation is `k`'s plus one entry per array argument that has a gradient (a
    `qd.ndarray(..., needs_grad=True)`), passed to its tasks as `<name>__grad`."""

    suffix = "grad"

    @property
    def grad(self):
        raise AttributeError(f"{self.name}: second derivatives (grad of a grad kernel) are not supported")

    def spec_for(self, args: tuple | None = None) -> tuple:
        base = self.primal.spec_for(args)
        have = {e[0] for e in base}
        extra = []
        types = self.primal.arg_types()
        for i, entry in enumerate(base[:len(self.arg_names)]):
            if getattr(types.get(entry[0]), "needs_grad", None) is False:
                continue  # `qd.types.ndarray(needs_grad=False)`: no gradient flows into this argument
            if entry[1] == "array" and args is not None and gradient_of(args[i]) is not None \
                    and autodiff.grad_name(entry[0]) not in have:
                extra.append((autodiff.grad_name(entry[0]),) + tuple(entry[1:]))
        return base + tuple(extra)

    def tasks(self, spec: tuple | None = None, memo=None) -> list[ir.Task]:
        spec = spec or self.default_spec()
        key = (spec, runtime_api.debug(), self.stack_size(), runtime_api.ad_stack_adaptive())
        if key not in self._tasks:
            n = len(self.arg_names)
            # the primal's own entries: the arguments, the alias marker, and the adjoints its body reads
            # (`a.grad[i]`) when it reads any; not the ones only this adjoint kernel takes
            reads_grads = self.primal.reads_grads()
            primal = self.primal.tasks(tuple(e for k, e in enumerate(spec) if k < n or not e[0].endswith(
                autodiff.GRAD) or reads_grads), memo)
            arg_grads = {e[0][:-len(autodiff.GRAD)]: (e[2], e[3]) for e in spec[n:] if e[0].endswith(autodiff.GRAD)}
            if reads_grads:
                types = self.primal.arg_types()
                autodiff.check_no_grad_of_grad(primal, [a for a in arg_grads if isinstance(types.get(a), NdarrayType)])
            tasks = autodiff.grad_tasks(self.name, primal, _field_grad, arg_grads, key[2], key[3])
            if key[2] != runtime_api.ad_stack_size():  # grown stacks: tasks of their own (a device loads by name)
                tasks = [dataclasses.replace(t, name=f"{t.name}_adstack{key[2]}") for t in tasks]
            self._tasks[key] = tasks
        runtime_api.note_compiled(self, key)
        return self._tasks[key]

    def call_args(self, bound: dict, resolve=as_kernel_array, spec: tuple | None = None,
                  implicit: list | None = None) -> dict:
        if spec is None:
            spec = self.spec_for(tuple(bound[n] for n in self.arg_names))
        return super().call_args(bound, resolve, spec, implicit)

    _grown: tuple | None = None  # (qd.init's stack size, this kernel's): a twin with larger stacks

    def stack_size(self) -> int:
        """Entries of a stack whose loop has no constant trip count (lang/autodiff/adstack_retry.py grows it)."""
        base = runtime_api.ad_stack_size()
        return self._grown[1] if self._grown is not None and self._grown[0] == base else base

    def with_stacks(self, size: int) -> "GradKernel":
        """A twin of this kernel whose stacks hold `size` entries: calls go to it from then on."""
        g = GradKernel(self.primal)
        g._grown = (runtime_api.ad_stack_size(), size)
        self.__dict__["_larger"] = g
        return g

    def __call__(self, *args, **kwargs):
        bound = self.bind(*args, **kwargs)
        k = self
        while True:
            larger = k.__dict__.get("_larger")
            if larger is not None and larger.stack_size() > k.stack_size():
                k = larger  # an earlier call overflowed these stacks
                continue
            try:
                saved = adstack_retry.save(k, bound)
                full = runtime_api.call_kernel(k, bound)
            except QdCompileError as e:
                raise e.with_traceback(None) from None
            if not adstack_retry.retry(k, saved, full):
                return k.result(full)


class DualKernel(_TwinKernel):
    """`k` under `qd.ad.FwdMode`: its tasks also carry each float's tangent into the fields' `.dual`
    (lang/autodiff/forward.py); specialised as `k`, whose primal results it computes too."""

    suffix = "fwd"

    def tasks(self, spec: tuple | None = None, memo=None) -> list[ir.Task]:
        spec = spec or self.default_spec()
        primal = self.primal.tasks(spec, memo)
        duals = tuple(sorted({int(a.key) for t in primal for a in t.implicit  # lazy_dual() may add some later
                              if a.role == "field" and _field_dual(int(a.key)) is not None}))
        key = (spec, runtime_api.debug(), duals)
        if key not in self._tasks:
            self._tasks[key] = autodiff_fwd.dual_tasks(self.name, primal, _field_dual)
        runtime_api.note_compiled(self, key)
        return self._tasks[key]

    def __call__(self, *args, **kwargs):
        try:
            full = runtime_api.call_kernel(self, self.bind(*args, **kwargs))
        except QdCompileError as e:
            raise e.with_traceback(None) from None
        return self.result(full)


class ValidationKernel(_TwinKernel):
    """`k` recorded by `qd.ad.Tape(validation=True)` in debug mode: its tasks also check the global
    data access rule (lang/autodiff/validation.py); a violation raises when the call returns."""

    suffix = "validation"

    def __init__(self, primal: Kernel):
        super().__init__(primal)
        self.checked: dict = {}  # task key -> the checked fields' names

    def tasks(self, spec: tuple | None = None, memo=None) -> list[ir.Task]:
        spec = spec or self.default_spec()
        primal = self.primal.tasks(spec, memo)
        key = (spec, runtime_api.debug(), tuple(sorted({int(a.key) for t in primal for a in t.implicit
                                                         if a.role == "field" and _field_grad(int(a.key)) is not None})))
        if key not in self._tasks:
            self._tasks[key], self.checked[key[0]] = autodiff_validation.validation_tasks(
                self.name, primal, Field.by_uid)
        self.names = self.checked[key[0]]
        self.assert_sites = self.primal.assert_sites
        runtime_api.note_compiled(self, key)
        return self._tasks[key]

    def result(self, args: dict):
        msg = autodiff_validation.violation_message(self.primal.name, getattr(self, "names", []),
                                                    args.get(autodiff_validation.GDAR_FLAG))
        if msg is not None:
            raise QuadrantsAssertionError(msg)
        return super().result(args)


VALIDATION = 1  # AutodiffMode.VALIDATION


def _field_dual(uid: int):
    return Field.by_uid(uid).adjoints.dual


def _field_grad(uid: int):
    return Field.by_uid(uid).adjoints.grad


class BoundKernel:
    """A `@qd.kernel` method bound to its object (`@qd.data_oriented`): calls pass the object as
    `self`, which specialises the kernel per object, as a `qd.template()` argument does."""

    def __init__(self, kernel: Kernel, obj):
        self.kernel, self.obj = kernel, obj
        self.__wrapped__ = kernel.fn

    def _check_class(self):
        cls = type(self.obj)
        if not getattr(cls, "_qd_data_oriented", False):
            raise QuadrantsSyntaxError(f"Please decorate class {cls.__name__} with @qd.data_oriented (its @qd.kernel "
                                       f"method {self.kernel.name} takes the object as a compile-time value)",
                                       self.kernel.file, self.kernel.line)

    def __call__(self, *args, **kwargs):
        self._check_class()
        return self.kernel(self.obj, *args, **kwargs)

    @property
    def grad(self) -> "BoundKernel":
        """`sim.step.grad`: the adjoint kernel, bound to the same object."""
        return BoundKernel(self.kernel.grad, self.obj)

    def __repr__(self) -> str:
        return f"<bound {self.kernel!r} of {type(self.obj).__name__}>"


def vector_components(kernel_name: str, entry: tuple, v) -> dict:
    """A vector or matrix argument's components as the scalar arguments `name__k` (row-major)."""
    name, _, dt, shape = entry[:4]
    try:
        a = np.asarray(v, dtype=dt.numpy)
    except (TypeError, ValueError):
        a = None
    if a is None or a.shape != tuple(shape):
        got = f"shape {a.shape}" if a is not None else type(v).__name__
        raise QuadrantsRuntimeTypeError(f"{kernel_name}(): argument '{name}' must be a {'x'.join(map(str, shape))} "
                                        f"vector/matrix (e.g. qd.math.vec3(1, 2, 3)), got {got}")
    return {f"{name}__{k}": x.item() for k, x in enumerate(a.reshape(-1))}


class Workload:
    """Inputs for one kernel (built from a seeded Generator) and an optional NumPy check."""

    def __init__(self, kernel: Kernel, fn, check=None, name: str | None = None, repeat: int = 1):
        if not isinstance(kernel, Kernel):
            raise TypeError(f"@qd.workload's first argument must be a @qd.kernel, got {kernel!r}")
        self.kernel, self.fn, self.check = kernel, fn, check
        kernel.workloads.append(self)
        self.name = name or fn.__name__
        self.file = inspect.getsourcefile(fn) or "<unknown>"
        self.__wrapped__ = fn

    def __repr__(self) -> str:
        return f"<qd.workload {self.name} for {self.kernel.name}>"

    def make_args(self, seed: int = 0) -> dict:
        return self.kernel.call_args(self.bound_args(seed))

    def bound_args(self, seed: int = 0) -> dict:
        """The workload's arguments by the kernel's parameter names (what `spec_for` reads; a vector
        argument is still one value here, split into its components only by `call_args`)."""
        rng = np.random.default_rng(seed)
        made = self.fn(rng)
        if isinstance(made, dict):
            args = self.kernel.bind(**made)
        elif isinstance(made, (tuple, list)):
            args = self.kernel.bind(*made)
        else:
            raise TypeError(f"workload '{self.name}' must return a dict or tuple of kernel arguments, "
                            f"got {type(made).__name__}")
        return args

    def run_check(self, before: dict, after: dict) -> str | None:
        """None when the outputs are right; otherwise the reason, in one message."""
        if self.check is None:
            return None
        try:
            res = self.check(before, after)
        except AssertionError as e:
            return str(e).strip() or "assertion failed"
        if res is False:
            return "check returned False"
        return None


def _optional_of(ann):
    """`X | None` (or Optional[X]) is X, as Quadrants reads `qd.Tensor | None` / `qd.types.Template | None`:
    the argument may be None, a compile-time value the kernel tests with qd.static(t is None)."""
    import types
    import typing
    if isinstance(ann, types.UnionType) or typing.get_origin(ann) is typing.Union:
        args = typing.get_args(ann)
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return rest[0]
    return ann


def kernel(_fn=None, *, fast_math: bool | None = None, pure: bool | None = None, fastcache: bool = False,
           graph: bool = False, checkpoints: bool = False):
    """`@qd.kernel`, or `@qd.kernel(fast_math=False)` to override the project's fast-math setting.

    Quadrants' `pure`/`fastcache` (its disk cache of compiled kernels) and `graph` (capture into a
    CUDA graph, which "other backends ignore") change how a kernel is launched, not what it
    computes, so they are accepted and the kernel runs as any other. `checkpoints=True` (pause and
    resume inside a graph) is refused."""
    if checkpoints:
        file, line = caller()
        raise NotImplementedError(f"{file}:{line}: @qd.kernel(checkpoints=True): qd.checkpoint pause/resume is not "
                                  f"supported by qdexplorer.lang; split the kernel where it would pause")
    if _fn is None:
        if fast_math is not None and not isinstance(fast_math, bool):
            raise TypeError(f"@qd.kernel(fast_math=...) takes True or False, got {fast_math!r}")
        return lambda f: _pure(_with_graph(Kernel(f, fast_math), graph), bool(pure) or fastcache)
    return Kernel(_fn)



def _pure(k: Kernel, pure: bool) -> Kernel:
    k.pure = pure  # Quadrants' pure kernel (pure=True or fastcache=True): no global scalars or fields read by name
    return k

def _with_graph(k: Kernel, graph: bool) -> Kernel:
    k.use_graph = graph  # read by the checks Quadrants makes of graph kernels (qd.stream_parallel refused)
    return k


def workload(kernel_obj: Kernel, check=None, name: str | None = None):
    def deco(fn):
        return Workload(kernel_obj, fn, check=check, name=name)
    return deco


__all__ = ["Kernel", "Func", "Workload", "kernel", "func", "workload", "DType"]


def assert_message(site, values) -> str:
    """A failed assert's message: its text, with an f-string message's runtime values filled in."""
    if not isinstance(site, tuple):
        return site
    template, ints = site
    vals = [int(v) if is_int else float(v) for v, is_int in zip(values if values is not None else [], ints)]
    try:
        return template.format(*vals)
    except (ValueError, IndexError):  # a format spec that does not fit the value's type
        return template.format(*map(str, vals)) if len(vals) == len(ints) else template
