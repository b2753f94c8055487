"""Structs: `qd.types.struct(pos=vec3, mass=qd.f32)`, `@qd.dataclass` classes (members from the
annotations, `@qd.func` methods), `qd.Struct.field({...}, shape)`, and the fields they make.

A struct field is stored as one field per member (structure of arrays): kernels reach each member as
an ordinary field, so nothing below the frontend knows structs exist (frontend/structs.py lowers a
struct value to one value per member). From Python a struct field reads and writes like Quadrants':
`f.pos` is the member field, `f[i].mass` an element's member, `f.to_numpy()` a dict of arrays.
"""
from __future__ import annotations

import enum
import numbers

import numpy as np

from .errors import QuadrantsSyntaxError
from .field import Field, _caller
from .func import Func, read_annotations
from .types import DType, as_dtype, f32
from .vector_types import VectorType


class Layout(enum.Enum):
    """`qd.Layout.AOS` / `qd.Layout.SOA` for `Struct.field(..., layout=...)`. Accepted and not
    reproduced: a struct field is one array per member either way, and results do not depend on it."""
    AOS = 0
    SOA = 1


class StructType:
    """A struct type: named members, each a scalar dtype, a vector/matrix type or another struct type."""

    def __init__(self, members: dict, methods: dict | None = None, name: str = "struct"):
        self.members: dict[str, DType | VectorType | StructType] = {}
        for k, t in members.items():
            dt = as_dtype(t)
            if isinstance(t, (VectorType, StructType)):
                self.members[k] = t
            elif dt is not None:
                self.members[k] = dt
            else:
                raise TypeError(f"struct member '{k}' must be a qd scalar, vector, matrix or struct type, got {t!r}")
        self.methods: dict[str, Func] = dict(methods or {})
        self.py_methods: dict = {}  # a dataclass's plain Python methods, for its Python values
        self.name = name

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={t!r}" for k, t in self.members.items())
        return f"qd.types.struct({inner})"

    def field(self, shape=None, name: str = "", offset=None, needs_grad: bool = False, needs_dual: bool = False,
              **unused) -> StructField:
        """A field of this struct: one field per member, all of `shape` (float members get `.grad` /
        `.dual` with needs_grad / needs_dual, as Quadrants gives them)."""
        return StructField(self, shape, name or self.name, needs_grad, needs_dual, offset)

    def __call__(self, *args, **kwargs) -> Struct:
        """From Python: a struct value (missing members are zero; a scalar for a vector member
        broadcasts, for a struct member sets its first member), as Quadrants' constructor."""
        out = {}
        for k, (m, t) in enumerate(self.members.items()):
            v = args[k] if k < len(args) else kwargs.get(m, 0)
            if isinstance(t, StructType):
                out[m] = v if isinstance(v, (Struct, dict)) else t(v)
            elif isinstance(t, VectorType):
                out[m] = t(*np.ravel(np.asarray(v)))
            else:
                out[m] = t.numpy.type(v).item() if isinstance(v, numbers.Number) else v
        return Struct(out, stype=self)

    dtype = None  # Quadrants reports its own struct dtype handle; nothing here reads it

    def filled_with_scalar(self, value) -> Struct:
        """A struct value with every scalar (and every vector component) set to `value`."""
        out: dict = {}
        for m, t in self.members.items():
            if isinstance(t, StructType):
                out[m] = t.filled_with_scalar(value)
            elif isinstance(t, VectorType):
                out[m] = t(value)
            else:
                out[m] = t.numpy.type(value).item()
        return Struct(out, stype=self)

    def cast(self, value) -> Struct:
        """A struct value of this type from a dict, a Struct or a scalar (every member set to it)."""
        if isinstance(value, Struct):
            value = {k: getattr(value, k) for k in self.members}
        if isinstance(value, dict):
            return self(**value)
        return self.filled_with_scalar(value)

    def leaves(self, prefix: tuple = ()) -> list[tuple[tuple, DType, tuple]]:
        """Every scalar or vector member, nested structs flattened: (path, dtype, element shape)."""
        out: list[tuple[tuple, DType, tuple]] = []
        for k, t in self.members.items():
            if isinstance(t, StructType):
                out += t.leaves(prefix + (k,))
            elif isinstance(t, VectorType):
                out.append((prefix + (k,), t.dtype or f32, t.shape))
            else:
                out.append((prefix + (k,), t, ()))
        return out


def struct_arg_names(name: str, stype: StructType) -> list[tuple[str, tuple, DType]]:
    """A struct kernel argument as scalar parameters: (parameter name, (member path, component),
    dtype) per scalar, `p__pos__0`, `p__mass`... (vector components row-major)."""
    out: list[tuple[str, tuple, DType]] = []
    for path, dt, shape in stype.leaves():
        base = "__".join((name,) + path)
        if not shape:
            out.append((base, (path, None), dt))
        else:
            out += [(f"{base}__{k}", (path, k), dt) for k in range(int(np.prod(shape)))]
    return out


def struct_arg_values(kernel_name: str, name: str, stype: StructType, value) -> dict:
    """The scalar arguments of struct argument `name` from its Python value (a `qd.Struct`, a struct
    type's value, a dict, or a struct field element)."""
    out = {}
    for pname, (path, k), dt in struct_arg_names(name, stype):
        v = value
        try:
            for p in path:
                v = v[p] if isinstance(v, dict) else getattr(v, p)
        except (AttributeError, KeyError):
            raise TypeError(f"{kernel_name}(): argument '{name}' has no member {'.'.join(path)!r}") from None
        if k is not None:
            v = np.ravel(np.asarray(v))[k]
        out[pname] = np.asarray(v).item()
    return out


def struct(**members) -> StructType:
    """`qd.types.struct(pos=qd.math.vec3, mass=qd.f32)`."""
    return StructType(members)


def dataclass(cls) -> StructType:
    """`@qd.dataclass`: a struct type from a class's annotations, with its `@qd.func`s as methods."""
    members = read_annotations(cls)
    for k in members:
        if k in vars(cls):
            raise QuadrantsSyntaxError(f"Default value in @dataclass is not supported. ({cls.__name__}.{k}; "
                                       f"Quadrants refuses it too)")
    methods = {k: v for k, v in vars(cls).items() if isinstance(v, Func)}
    st = StructType(members, methods, cls.__name__)
    st.py_methods = {k: v for k, v in vars(cls).items() if callable(v) and not isinstance(v, Func)
                     and not k.startswith("__")}
    return st


class Struct:
    """A struct value in Python (`qd.Struct(a=1, b=2)`, `qd.Struct({"a": 1})`, what a struct type's
    constructor makes): members as attributes, a dataclass's Python methods callable on it; and
    `qd.Struct.field({"pos": vec3, "mass": qd.f32}, shape)`, a struct field without naming a type."""

    def __init__(self, *args, stype: StructType | None = None, **kwargs):
        entries = dict(args[0]) if args else {}
        entries.update(kwargs)
        object.__setattr__(self, "_entries", {k: Struct(v) if isinstance(v, dict) else v for k, v in entries.items()})
        object.__setattr__(self, "_type", stype)

    @staticmethod
    def field(members: dict, methods: dict | None = None, shape=None, name: str = "<Struct>", **options):
        return StructType(members, methods).field(shape, name, **options)

    def __getattr__(self, name: str):
        entries = self.__dict__["_entries"]
        if name in entries:
            return entries[name]
        stype = self.__dict__["_type"]
        method = getattr(stype, "py_methods", {}).get(name)
        if method is not None:
            return method.__get__(self)
        raise AttributeError(f"struct has no member '{name}' (members: {', '.join(entries)})")

    def __setattr__(self, name: str, value):
        if name not in self._entries:
            raise AttributeError(f"struct has no member '{name}' (members: {', '.join(self._entries)})")
        self._entries[name] = value

    def __getitem__(self, name: str):
        return self._entries[name]

    def keys(self):
        return self._entries.keys()

    def items(self):
        return self._entries.items()

    def to_dict(self) -> dict:
        return {k: v.to_dict() if isinstance(v, Struct) else v for k, v in self._entries.items()}

    def __repr__(self) -> str:
        return f"qd.Struct({self.to_dict()!r})"


def _shape(shape) -> tuple | None:
    if shape is None:  # placed later by an SNode tree (each member then gets the container's shape)
        return None
    return (int(shape),) if isinstance(shape, numbers.Integral) else tuple(int(s) for s in shape)


class StructField:
    """A field of structs, stored as one field per member (`members`, by name)."""

    def __init__(self, stype: StructType, shape, name: str, needs_grad: bool = False, needs_dual: bool = False,
                 offset=None):
        self.struct_type, self.shape, self.name = stype, _shape(shape), name
        self.members: dict[str, Field | StructField] = {}
        for k, t in stype.members.items():
            label = f"{name}.{k}"
            if isinstance(t, StructType):
                self.members[k] = t.field(self.shape, label, offset=offset, needs_grad=needs_grad,
                                          needs_dual=needs_dual)
            elif isinstance(t, VectorType):  # an integer member with needs_grad is refused, as in Quadrants
                self.members[k] = t.field(self.shape, label, needs_grad=needs_grad, needs_dual=needs_dual,
                                          offset=offset)
            else:
                self.members[k] = Field(t, self.shape, label, needs_grad=needs_grad, needs_dual=needs_dual,
                                        offset=offset)
                if needs_dual and self.shape is not None:
                    self.members[k]._with_dual(True)

    def _adjoint(self, which: str) -> "StructField":
        """The struct field of the members' `.grad` (or `.dual`): the same storage, not a copy."""
        out = StructField.__new__(StructField)
        out.struct_type, out.shape, out.name = self.struct_type, self.shape, f"{self.name}.{which}"
        out.members = {}
        for k, m in self.members.items():
            if isinstance(m, StructField):
                out.members[k] = m._adjoint(which)
            elif getattr(m, f"_{which}", None) is not None:
                out.members[k] = getattr(m, which)
        if not out.members:
            file, line = _caller()
            raise AttributeError(f"{file}:{line}: struct field {self.name!r} has no {which}: make it with "
                                 f"needs_{which}=True (qd.Struct.field({{...}}, shape=..., needs_{which}=True))")
        return out

    def __repr__(self) -> str:
        return f"<qd struct field {self.name} shape={self.shape} members={list(self.members)}>"

    def __getattr__(self, name: str):
        members = self.__dict__.get("members", {})
        if name in members:
            return members[name]
        from . import compat
        if f"struct_field.{name}" in compat.REFUSED:
            raise compat.refuse(f"struct_field.{name}")
        raise AttributeError(f"struct field {self.__dict__.get('name', '')!r} has no member '{name}' "
                             f"(members: {', '.join(members)})")

    layout = None
    dtype = "struct"  # Quadrants reports its struct dtype; nothing here reads it

    @property
    def field_dict(self) -> dict:
        return dict(self.members)

    @property
    def struct_methods(self) -> dict:
        return dict(self.struct_type.methods)

    def has_grad(self) -> bool:
        return any(getattr(m, "_grad", None) is not None for m in self.members.values())

    def has_dual(self) -> bool:
        return any(getattr(m, "_dual", None) is not None for m in self.members.values())

    @property
    def grad(self) -> "StructField":
        """`s.grad`: the struct field of the float members' adjoints (`s.grad[i].a`, `s.grad.a`)."""
        return self._adjoint("grad")

    @property
    def dual(self) -> "StructField":
        """`s.dual`: the struct field of the float members' tangents (forward mode)."""
        return self._adjoint("dual")

    @property
    def snode(self):
        """The SNode of the first member: every member hangs from the same container."""
        return next(iter(self.members.values())).snode

    def parent(self, n: int = 1):
        return self.snode.parent(n)

    def to_torch(self, device=None) -> dict:
        return {k: m.to_torch(device) for k, m in self.members.items()}

    def from_torch(self, tensors: dict):
        for k, m in self.members.items():
            m.from_torch(tensors[k])

    def to_dlpack(self) -> dict:
        return {k: m.to_dlpack() for k, m in self.members.items()}

    def keys(self) -> list[str]:
        return list(self.members)

    def get_member_field(self, key: str):
        return self.members[key]

    @property
    def ndim(self) -> int:
        return len(self.shape or ())

    def __getitem__(self, key) -> StructElement:
        return StructElement(self, key)

    def __setitem__(self, key, value):
        StructElement(self, key).assign(value)

    def fill(self, value):
        for m in self.members.values():
            m.fill(value)

    def to_numpy(self) -> dict:
        return {k: m.to_numpy() for k, m in self.members.items()}

    def from_numpy(self, arrays: dict):
        for k, m in self.members.items():
            m.from_numpy(arrays[k])

    def copy_from(self, other: StructField):
        for k, m in self.members.items():
            src = other.members[k]
            if isinstance(m, StructField) and isinstance(src, StructField):
                m.copy_from(src)
            elif isinstance(m, Field) and isinstance(src, Field):
                m.copy_from(src)
            else:
                raise TypeError(f"copy_from: member '{k}' is a struct in one field and not in the other")


class StructElement:
    """`f[i]` from Python: reads and writes go to the members' fields (`f[i].pos = [1, 2, 3]`)."""

    def __init__(self, owner: StructField, key):
        object.__setattr__(self, "_owner", owner)
        object.__setattr__(self, "_key", key)

    def __getattr__(self, name: str):
        members = self._owner.members
        if name not in members:
            raise AttributeError(f"struct has no member '{name}' (members: {', '.join(members)})")
        return members[name][self._key]

    def __setattr__(self, name: str, value):
        members = self._owner.members
        if name not in members:
            raise AttributeError(f"struct has no member '{name}' (members: {', '.join(members)})")
        members[name][self._key] = value

    def assign(self, value):
        items = value.items() if isinstance(value, (dict, Struct)) else \
            ((k, getattr(value, k)) for k in self._owner.members)
        for k, v in items:
            setattr(self, k, v)

    def to_dict(self) -> dict:
        out = {}
        for k, m in self._owner.members.items():
            v = m[self._key]
            out[k] = v.to_dict() if isinstance(v, StructElement) else np.asarray(v) if hasattr(v, "to_numpy") else v
        return out

    def __repr__(self) -> str:
        return repr(self.to_dict())
