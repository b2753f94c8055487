"""Random kernel and function bodies: locals, if/else, range and `qd.static` loops, while loops with
break and continue, local atomics, calls of `qd.func`s, stores into output slots.

A body is a list of lines (indentation included). Loops always terminate: a `range` has a small
bound, a while loop counts up before anything that may `continue`."""
from __future__ import annotations

from random import Random

from .exprs import ExprGen, Scope
from .types import F64, I32, I64, T


class Outputs:
    """Output slots of one kernel: `o_<kernel>_<type>[i, slot]`; a slot holds one stored value per
    iteration of the kernel's parallel loop."""

    def __init__(self, kernel: str):
        self.kernel = kernel
        self.slots: dict[str, int] = {}

    def slot(self, t: T) -> str:
        n = self.slots.get(t.name, 0)
        self.slots[t.name] = n + 1
        return f"o_{self.kernel}_{t.name}[i, {n}]"


class BodyGen:
    def __init__(self, rng: Random, types: list[T], trans: bool, funcs: list[tuple[str, list[T], T]]):
        self.rng, self.types, self.funcs = rng, types, funcs
        self.counter = 0
        self.lines: list[str] = []
        self.indent = 1
        self.ex = ExprGen(rng, self.hoist, trans, types)

    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def hoist(self, text: str, t: T) -> str:
        name = self.fresh("t")
        self.emit(f"{name} = {text}")
        return name

    # --- statements ---

    def block(self, scope: Scope, n: int, depth: int, out: Outputs | None, loop: str | None) -> None:
        """n statements; `loop` is "for"/"while" inside a loop (break/continue allowed), else None."""
        for _ in range(n):
            self.statement(scope, depth, out, loop)

    def statement(self, scope: Scope, depth: int, out: Outputs | None, loop: str | None) -> None:
        rng, ex = self.rng, self.ex
        kinds = ["assign", "assign", "update", "store", "store"]
        if depth > 0:
            kinds += ["if", "for", "while", "static", "atomic"]
        if loop:
            kinds += ["jump"]
        if self.funcs:
            kinds += ["call"]
        if out is not None:
            kinds += ["mixed"]
        kind = rng.choice(kinds)
        if kind == "assign":
            t = ex.pick_type(scope)
            name = self.fresh()
            self.emit(f"{name} = {ex.expr(t, scope, 3)}")
            scope.add(name, t)
        elif kind == "update":
            t = ex.pick_type(scope)
            own = [n for n in scope.of(t) if n.startswith("v")]
            if not own:
                return self.statement(scope, depth, out, loop)
            op = rng.choice(["=", "+=", "-=", "*=", "^=", "|=", "&="] if t.is_int else ["=", "+=", "-=", "*="])
            self.emit(f"{rng.choice(own)} {op} {ex.expr(t, scope, 2)}")
        elif kind == "store" and out is not None:
            t = ex.pick_type(scope)
            self.emit(f"{out.slot(t)} = {ex.expr(t, scope, 3)}")
        elif kind == "mixed" and out is not None:
            text, has_float = ex.mixed(scope)
            self.emit(f"{out.slot(F64 if has_float else I64)} = {text}")
        elif kind == "if":
            self.emit(f"if {ex.cond(scope, 2)}:")
            self.nested(scope, depth, out, loop)
            if rng.random() < 0.5:
                self.emit("else:")
                self.nested(scope, depth, out, loop)
        elif kind == "for":
            j = self.fresh("j")
            if rng.random() < 0.5:
                bound = str(rng.randint(0, 5))
            else:
                t = rng.choice([x for x in self.types if x.is_int] or [I32])
                bound = f"qd.cast({ex.expr(t, scope, 1)} & qd.cast(3, {t.q}), qd.i32)"
            self.emit(f"for {j} in range({rng.randint(-1, 1)}, {bound}):")
            self.nested(scope, depth, out, "for", (j, I32))
        elif kind == "while":
            w = self.fresh("w")
            self.emit(f"{w} = 0")
            self.emit(f"while {w} < {rng.randint(1, 4)}:")
            self.indent += 1
            self.emit(f"{w} += 1")
            self.indent -= 1
            self.nested(scope, depth, out, "while", (w, I32))
        elif kind == "static":
            j = self.fresh("s")
            self.emit(f"for {j} in qd.static(range({rng.randint(1, 3)})):")
            inner = Scope(scope)
            self.indent += 1
            c = self.fresh()
            self.emit(f"{c} = qd.cast({j}, qd.i32)")
            inner.add(c, I32)
            self.block(inner, rng.randint(1, 3), depth - 1, out, None)
            self.emit("pass")
            self.indent -= 1
        elif kind == "jump" and loop:
            self.emit(f"if {ex.cond(scope, 1)}:")
            self.indent += 1
            self.emit(rng.choice(["break", "continue"]))
            self.indent -= 1
        elif kind == "atomic":
            self.local_atomic(scope, out)
        elif kind == "call" and self.funcs:
            name, params, ret = rng.choice(self.funcs)
            args = ", ".join(ex.expr(p, scope, 1) for p in params)
            v = self.fresh()
            self.emit(f"{v} = {name}({args})")
            scope.add(v, ret)
        else:
            self.statement(scope, depth, out, loop)

    def nested(self, scope: Scope, depth: int, out, loop, var: tuple[str, T] | None = None) -> None:
        inner = Scope(scope)
        if var:
            inner.add(*var)
        self.indent += 1
        before = len(self.lines)
        self.block(inner, self.rng.randint(1, 3), depth - 1, out, loop)
        if len(self.lines) == before or self.lines[-1].endswith(":"):
            self.emit("pass")
        self.indent -= 1

    def local_atomic(self, scope: Scope, out: Outputs | None) -> None:
        """An atomic on a local: its return value is the old value, deterministic within one thread."""
        ex, rng = self.ex, self.rng
        t = ex.pick_type(scope)
        own = [n for n in scope.of(t) if n.startswith("v")]
        if not own:
            return
        ops = ["add", "sub"] + (["min", "max"] if t.bits > 8 else []) + (["and", "or", "xor"] if t.is_int else [])
        r = self.fresh()  # (Quadrants 1.3.3 aborts on min/max of 8-bit integers, atomics included)
        self.emit(f"{r} = qd.atomic_{rng.choice(ops)}({rng.choice(own)}, {ex.expr(t, scope, 1)})")
        scope.add(r, t)
