"""Tuples, lists and dicts in a kernel, and the comprehensions that build them.

They exist only while compiling: a comprehension is unrolled over a compile-time iterable (or a
vector's components), a dict takes compile-time keys, and the kernel values they hold live in locals.
"""
from __future__ import annotations

from typing import Any

from .... import ir
from ....ir.errors import QdCompileError
from ..values import DictKey, KDict, Py, Vec, is_number, py_value
from ..base import LoweringBase


class ContainerLowering(LoweringBase):
    """`v_Tuple` / `v_List`, `v_ListComp`, `v_Dict`, `v_DictComp`."""

    def v_Tuple(self, node):
        items = [self.value(e) for e in node.elts]
        if all(isinstance(i, Py) for i in items):
            return Py(tuple(i.value for i in items))
        return items  # a tuple of runtime values; only valid as an assignment source

    v_List = v_Tuple

    def v_ListComp(self, node):
        """`[w[i] * x for i in range(3)]`: a list of kernel values, unrolled; its iterable (and any
        `if`) must be known at compile time, as for a `qd.static` loop."""
        out: list = []
        self.comprehension(node.generators, 0, lambda: out.append(self.value(node.elt)))
        return out

    def comprehension(self, gens, k: int, body) -> None:
        """The `for`s of a comprehension, nested left to right (`[i * j for i in range(2) for j in
        range(i)]`), each iterable known at compile time or a kernel vector (its components), each `if`
        a compile-time test, as Quadrants unrolls them (process_generators)."""
        if k == len(gens):
            body()
            return
        gen = gens[k]
        if gen.is_async:
            self.err(gen.iter, "an async comprehension is not supported in a kernel")
        try:
            items = list(self.eval_static(gen.iter))  # Python values
            wrap: Any = py_value
        except (QdCompileError, TypeError):
            try:
                v = self.value(gen.iter)
            except QdCompileError:
                v = None
            if not isinstance(v, Vec):
                self.err(gen.iter, "a list comprehension in a kernel iterates over a compile-time sequence "
                                   "(range(3), a tuple, qd.static(...)) or a vector; use a for loop for a runtime one")
            items, wrap = list(v.items), (lambda x: x)  # kernel values, as they are
        names = self.frame.src.target_names(gen.target)
        for item in items:
            vals = item if len(names) > 1 else (item,)
            self.frame.scopes.append({n.id: wrap(x) for n, x in zip(names, vals)})
            try:
                if all(self.static_truth(c) for c in gen.ifs):
                    self.comprehension(gens, k + 1, body)
            finally:
                self.frame.scopes.pop()

    def v_Dict(self, node):
        """`{"a": x, "b": y}`: keys known at compile time, values evaluated now into locals."""
        if any(k is None for k in node.keys):
            self.err(node, "**unpacking in a dict literal is not supported in a kernel")
        return KDict({self.dict_key(k): self.held(self.value(v), node) for k, v in zip(node.keys, node.values)})

    def v_DictComp(self, node):
        """`{k: v for j in range(3) if ...}`: unrolled like a list comprehension (compile-time iterable)."""
        out: dict = {}
        for scope in self.comprehension_scopes(node):
            self.frame.scopes.append(scope)
            try:
                if all(self.static_truth(c) for c in node.generators[0].ifs):
                    out[self.dict_key(node.key)] = self.held(self.value(node.value), node)
            finally:
                self.frame.scopes.pop()
        return KDict(out)

    def comprehension_scopes(self, node) -> list[dict]:
        gens = node.generators
        if len(gens) != 1 or gens[0].is_async:
            self.err(node, "a comprehension in a kernel takes one 'for'")
        try:
            items = list(self.eval_static(gens[0].iter))
        except (QdCompileError, TypeError):
            self.err(gens[0].iter, "a comprehension in a kernel iterates over a compile-time sequence "
                                   "(range(3), a tuple, qd.static(...)); use a for loop for a runtime one")
        names = self.frame.src.target_names(gens[0].target)
        return [{n.id: py_value(x) for n, x in zip(names, item if len(names) > 1 else (item,))} for item in items]

    def dict_key(self, node):
        k = self.value(node)
        if isinstance(k, Py):
            try:
                hash(k.value)
                return k.value
            except TypeError:
                self.err(node, f"a dict key must be hashable, got {type(k.value).__name__}")
        return DictKey(k)

    def held(self, v, node):
        """A value kept in a container: a kernel scalar or vector in a local, a compile-time one as it is."""
        if isinstance(v, Vec):
            return self.vec_local(v, "item")
        if isinstance(v, ir.Expr):
            return ir.LocalRef(self.new_local("item", v.dtype, v))
        return v

    def static_truth(self, cond) -> bool:
        v = self.value(cond)
        if isinstance(v, ir.Const):
            return bool(v.value)
        if not is_number(v):
            self.err(cond, "the 'if' of a list comprehension in a kernel must be known at compile time")
        return bool(v.value)
