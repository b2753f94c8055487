"""What the tasks of one kernel share: fields, kernel-scope locals kept between tasks, the result.

Each task is its own module, so anything that outlives a task lives in an array: a field's storage,
a global temporary for a local that one task assigns and a later one reads (Quadrants keeps these
in its global temporary buffer too), and a one-element array for the kernel's return value. Each
becomes an implicit parameter of the tasks that touch it (`ir.ImplicitArray`), which the caller
supplies.
"""
from __future__ import annotations

import ast

from ... import ir
from ..field import Field, memory_order
from ...ir.dtypes import DType, f64, i32, u1, u64

ASSERT_VALUES = 8  # runtime values an assert's f-string message can show

RANDOM_KEY = "random_key__"  # the scalar parameter carrying a call's random key (frontend/random.py)


class KernelScope:
    def __init__(self, arg_names, gtemp_names=(), ret_dtype: DType | None = None, ret_shape=(1,)):
        self.taken = set(arg_names)
        self.arg_values: dict = dict(arg_names) if isinstance(arg_names, dict) else {}  # name → its value in the body
        self.implicit: dict[str, ir.ImplicitArray] = {}
        self.fields: dict[int, ir.ArrayArg] = {}
        self.field_objs: dict[str, Field] = {}  # array name → the field it is (SNode trees, x.fill, x.parent())
        self.gtemp_names = set(gtemp_names)
        self.gtemps: dict[str, ir.ArrayArg] = {}
        self.view_arrays: dict[str, ir.ArrayArg] = {}  # kernel-scope BufferView local → its array (offset
        # and size live in the global temporaries "<name>.offset" and "<name>.size")
        self.ret: ir.ArrayArg | None = None
        self.ret_annotation = None  # the kernel's `-> ...` (a dtype or vector type), to check returns
        self.ret_leaves: list[ir.ArrayArg] = []  # a struct or tuple result: one array per leaf (return_values.py)
        # message of each debug-mode assert, numbered from 1: a string, or (format string, which of its
        # values are integers) for an f-string message, its values read back from `assertv__`
        self.assert_sites: list = []
        self.elem_shapes: dict[str, tuple] = {}  # array name → its element's (vector/matrix) shape
        self.offsets: dict[str, tuple] = {}  # array name → its field's index offset (qd.field(offset=)), if any
        self.quants: dict = {}  # array name → its field's quantized type (qd.types.quant), if any
        self.quant_groups: dict = {}  # array name → the names of its shared-exponent group, in order
        self.clamped: set[str] = set()  # ndarray arguments annotated boundary="clamp"
        self.draws_random = False  # a task calls qd.random / qd.randn: the caller passes RANDOM_KEY
        if ret_dtype is not None:
            self.ret = self._add("ret__", "ret", ret_dtype, tuple(ret_shape))

    def _add(self, name, role, dtype, shape, key=0, elem_ndim=0, zero_d=False, layout=(),
             runtime_shape=False) -> ir.ArrayArg:
        base, n = name, 1
        while name in self.taken:
            n += 1
            name = f"{base}_{n}"
        self.taken.add(name)
        self.implicit[name] = ir.ImplicitArray(name, role, dtype, shape, key, zero_d, layout=tuple(layout),
                                               runtime_shape=runtime_shape, elem_ndim=elem_ndim)
        return ir.ArrayArg(name, dtype, len(shape), layout=tuple(layout))

    def add_result(self, name: str, dtype, shape) -> ir.ArrayArg:
        return self._add(name, "ret", dtype, tuple(shape))

    def assert_flag(self) -> ir.ArrayArg:
        """The one-element array a failed `assert` writes its site number into (debug mode)."""
        if "assert__" not in self.implicit:
            self._add("assert__", "assert", i32, (1,))
        return ir.ArrayArg("assert__", i32, 1)

    def assert_values(self) -> ir.ArrayArg:
        """Where a failed assert writes the runtime values of its f-string message (as f64)."""
        if "assertv__" not in self.implicit:
            self._add("assertv__", "assert", f64, (ASSERT_VALUES,))
        return ir.ArrayArg("assertv__", f64, 1)

    def assert_site(self, src, node, ints: list | None = None) -> int:
        """Number an assert's message. `ints`: for an f-string message, whether each of its first
        ASSERT_VALUES replacement fields is an integer; the message becomes a format string."""
        file, line, _, text = src.where(node)
        head = f"{file}:{line}: assertion failed: {text.strip()}"
        if isinstance(node.msg, ast.Constant) and isinstance(node.msg.value, str):
            self.assert_sites.append(f"{head}: {node.msg.value}")
        elif isinstance(node.msg, ast.JoinedStr) and ints is not None:
            parts, k = [], 0
            for v in node.msg.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value).replace("{", "{{").replace("}", "}}"))
                elif not isinstance(v, ast.FormattedValue):
                    continue
                elif k < len(ints):
                    spec = v.format_spec
                    fmt = "".join(str(c.value) for c in spec.values if isinstance(c, ast.Constant)) \
                        if isinstance(spec, ast.JoinedStr) else ""
                    parts.append("{%d%s}" % (k, ":" + fmt if fmt else ""))
                    k += 1
                else:
                    parts.append("{{" + ast.unparse(v.value).replace("{", "{{").replace("}", "}}") + "}}")
            self.assert_sites.append((head.replace("{", "{{").replace("}", "}}")
                                      + ": " + "".join(parts), ints))
        else:
            self.assert_sites.append(head)
        return len(self.assert_sites)

    def check_site(self, src, node, message: str) -> int:
        """Number a debug-mode check the language adds (not the user's assert): `file:line: message`."""
        file, line, _, _ = src.where(node)
        self.assert_sites.append(f"{file}:{line}: {message}")
        return len(self.assert_sites)

    def field_arg(self, fld, name_hint: str) -> ir.ArrayArg:
        arr = self.fields.get(fld.uid)
        if arr is None:
            arr = self.fields[fld.uid] = self._add(fld.name or name_hint, "field", fld.dtype,
                                                   fld.storage.shape, fld.uid,
                                                   zero_d=tuple(getattr(fld, "shape", (0,))) == (),
                                                   layout=memory_order(fld),
                                                   runtime_shape=not isinstance(fld, Field),
                                                   elem_ndim=len(tuple(fld.elem_shape)))
            self.note_field(arr.name, fld)
            group = getattr(fld, "quant_group", None)
            if group:  # a store re-encodes every member of its shared-exponent group: all are arrays here
                self.quant_groups[arr.name] = [self.field_arg(g, g.name or "field").name if g is not fld else arr.name
                                               for g in group]
        if arr.name in self.quants:  # the frontend sees the compute type; quant_lower.py restores the raw one
            return ir.ArrayArg(arr.name, self.quants[arr.name].compute, arr.ndim, layout=arr.layout)
        return arr

    def note_field(self, name: str, fld) -> None:
        """What the frontend reads of the field behind array `name`, whether lowered now or adopted
        from the memo: its element shape, the field itself, its offset and its quantised type."""
        self.elem_shapes[name] = tuple(fld.elem_shape)
        if isinstance(fld, Field):
            self.field_objs[name] = fld
        if fld.offset:
            self.offsets[name] = tuple(fld.offset)
        if getattr(fld, "quant", None) is not None:
            self.quants[name] = fld.quant

    def sparse_field(self, name: str) -> Field | None:
        """The field behind array `name` when a pointer/bitmasked container is above it."""
        f = self.field_objs.get(name)
        return f if f is not None and f.sparse else None

    def gtemp(self, name: str) -> ir.ArrayArg | None:
        """The global temporary of kernel-scope local `name`, if a task has assigned it yet."""
        return self.gtemps.get(name)

    def make_gtemp(self, name: str, dtype: DType, elem: tuple = ()) -> ir.ArrayArg:
        """The global temporary of kernel-scope local `name` (one element; a vector keeps its components
        as trailing axes); created with `dtype` on first assignment."""
        arr = self.gtemps.get(name)
        if arr is None:
            arr = self.gtemps[name] = self._add(f"{name}__gtmp", "gtmp", i32 if dtype == u1 else dtype,
                                                (1,) + tuple(elem), key=name)
            if elem:
                self.elem_shapes[arr.name] = tuple(elem)
        return arr

    def adopt(self, a: ir.ImplicitArray):
        """Take over an implicit array of a task reused from the memo (it was not lowered again)."""
        if a.name in self.implicit:
            return
        self.taken.add(a.name)
        self.implicit[a.name] = a
        arr = ir.ArrayArg(a.name, a.dtype, len(a.shape), layout=a.layout)
        if a.role == "gtmp":
            self.gtemps[str(a.key)] = arr
            if len(a.shape) > 1:
                self.elem_shapes[a.name] = tuple(a.shape[1:])
        elif a.role == "field":
            self.fields[int(a.key)] = arr
            self.note_field(a.name, Field.by_uid(int(a.key)))

    def random_key(self) -> ir.ScalarArg:
        """The call's random key, a scalar parameter of the tasks that draw random numbers."""
        self.draws_random = True
        return ir.ScalarArg(RANDOM_KEY, u64)

    def scalars(self) -> dict:
        """The scalar parameters the caller supplies besides the user's arguments."""
        return {RANDOM_KEY: ir.ScalarArg(RANDOM_KEY, u64)} if self.draws_random else {}

    def for_task(self, used: set) -> tuple:
        return tuple(a for n, a in self.implicit.items() if n in used)

    def arrays(self) -> dict:
        out = {arr.name: arr for arr in list(self.fields.values()) + list(self.gtemps.values())}
        if "assert__" in self.implicit:
            out["assert__"] = ir.ArrayArg("assert__", i32, 1)
        if "assertv__" in self.implicit:
            out["assertv__"] = ir.ArrayArg("assertv__", f64, 1)
        if self.ret is not None:
            out[self.ret.name] = self.ret
        for arr in self.ret_leaves:
            out[arr.name] = arr
        return out
