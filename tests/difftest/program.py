"""A whole random program: fields and inputs, `qd.func`s, kernels of a few kinds, and `main()`,
which runs the kernels and returns every result (fields, ndarrays, kernel return values).

`generate(seed)` is deterministic: the same seed gives the same text on every machine. The text
is written for Quadrants (`import quadrants as qd`); `as_ours` swaps the one import line. It runs
on its own too (`python prog.py` prints main()'s results), which makes a reproducer self-contained.

Classes: "exact" programs (fast_math=False, no transcendental functions) must agree bit for bit;
"trans" programs use floats only, with sin/exp/..., and agree to a stated tolerance."""
from __future__ import annotations

from dataclasses import dataclass, field
from random import Random

from .body import BodyGen, Outputs
from .exprs import ExprGen, Scope
from .types import FLOATS, I32, INTS, T, int_value, literal, value

N = 16  # iterations of every parallel loop
IMPORT_QUADRANTS = "import quadrants as qd"
IMPORT_OURS = "import qdexplorer.lang as qd"
OLD_CLASSES = ("exact", "trans")
CLASSES = OLD_CLASSES + ("scalar", "vector", "struct", "ndarray")  # the last four: compound.py
NEW_SHARE = 0.5  # of the seeds, when every class may be drawn

@dataclass
class Program:
    seed: int
    cls: str
    source: str
    features: list[str] = field(default_factory=list)

    @property
    def init(self) -> dict:
        return {"fast_math": False}


def as_ours(source: str) -> str:
    return source.replace(IMPORT_QUADRANTS, IMPORT_OURS, 1)


class ProgramGen:
    def __init__(self, seed: int, features: tuple[str, ...] | None = None, arch: str = "cpu", small: bool = False,
                 cls: str | None = None):
        self.arch, self.small = arch, small
        self.rng = Random(seed)
        self.seed = seed
        rng = self.rng
        self.compound = cls not in (None, "exact", "trans")
        if self.compound:  # a class of compound.py: its own stream (the text differs from the old classes anyway)
            from .compound import pick_types
            self.rng = rng = Random(seed * 7717 + CLASSES.index(cls))
            self.cls = cls
            self.types = pick_types(rng, cls)
        else:
            self.cls = "trans" if rng.random() < 0.12 else "exact"
        self.trans = self.cls == "trans"
        if self.compound:
            pass
        elif self.trans:
            self.types = rng.sample(FLOATS, rng.randint(1, 3))
        else:
            self.types = ExprGen.types_for(rng, allow_f16=rng.random() < 0.3)
        self.globals: list[str] = []      # field declarations
        self.defs: list[str] = []         # funcs and kernels
        self.main: list[str] = []
        self.funcs: list[tuple[str, list[T], T]] = []
        self.features: list[str] = []
        self.only = features

    def np_array(self, t: T, values) -> str:
        return f"np.array([{', '.join(literal(v, t) for v in values)}], dtype=np.{t.numpy})"

    def data(self, t: T, n: int = N) -> list:
        return [value(self.rng, t) for _ in range(n)]

    # --- pieces ---

    def inputs(self) -> None:
        self.globals.append("dz = qd.field(qd.i32, shape=())  # always 0: a value no compiler can fold")
        for t in self.types:
            self.globals.append(f"x_{t.name} = qd.field({t.q}, shape={N})")
            self.main.append(f"x_{t.name}.from_numpy({self.np_array(t, self.data(t))})")

    def func(self, k: int) -> None:
        rng = self.rng
        params = [rng.choice(self.types) for _ in range(rng.randint(1, 3))]
        ret = rng.choice(self.types)
        name = f"f{k}"
        annotate = rng.random() < 0.5
        sig = ", ".join(f"p{n}: {p.q}" if annotate else f"p{n}" for n, p in enumerate(params))
        bg = BodyGen(rng, self.types, self.trans, list(self.funcs))
        scope = Scope()
        for n, p in enumerate(params):
            scope.add(f"p{n}", p)
        bg.block(scope, rng.randint(1, 4), 2, None, None)
        bg.emit(f"return {bg.ex.expr(ret, scope, 3)}")
        arrow = f" -> {ret.q}" if annotate or rng.random() < 0.5 else ""
        self.defs += ["@qd.func", f"def {name}({sig}){arrow}:"] + bg.lines + [""]
        self.funcs.append((name, params, ret))
        self.features.append("func")

    def out_fields(self, out: Outputs) -> None:
        for tname, n in out.slots.items():
            name = f"o_{out.kernel}_{tname}"
            self.globals.append(f"{name} = qd.field(qd.{tname}, shape=({N}, {n}))")
            self.main.append(f"out[{name!r}] = {name}.to_numpy()")

    def loop_head(self, bg: BodyGen, scope: Scope) -> None:
        """Locals from the inputs at i and at a neighbour, so that iterations see different values."""
        scope.add("i", I32)
        for t in self.types:
            bg.emit(f"a_{t.name} = x_{t.name}[i]")
            bg.emit(f"b_{t.name} = x_{t.name}[(i + {self.rng.randint(1, N - 1)}) % {N}]")
            scope.add(f"a_{t.name}", t)
            scope.add(f"b_{t.name}", t)

    def map_kernel(self, k: int) -> None:
        """A parallel loop over i; scalar and ndarray arguments; each iteration writes its own slots."""
        rng = self.rng
        name = f"k{k}"
        params, call = [], []
        bg = BodyGen(rng, self.types, self.trans, self.funcs)
        scope = Scope()
        for n in range(rng.randint(0, 2)):
            t = rng.choice(self.types)
            params.append(f"p{n}: {t.q}")
            call.append(literal(value(rng, t), t))
            scope.add(f"p{n}", t)
        arr = None
        if rng.random() < 0.4:
            arr = rng.choice(self.types)
            params.append(f"arr: qd.types.ndarray(dtype={arr.q}, ndim=1)")
            host = rng.choice(["nd", "np"])
            self.main.append(f"arr_{name} = {self.np_array(arr, self.data(arr))}")
            if host == "nd":
                self.main.append(f"nd_{name} = qd.ndarray({arr.q}, shape=({N},))")
                self.main.append(f"nd_{name}.from_numpy(arr_{name})")
            call.append(f"nd_{name}" if host == "nd" else f"arr_{name}")
            self.features.append(f"ndarray_{host}")
        out = Outputs(name)
        bg.emit(f"for i in range({N}):")
        bg.indent = 2
        self.loop_head(bg, scope)
        if arr is not None:
            bg.emit("c_arr = arr[i]")
            scope.add("c_arr", arr)
        bg.block(scope, rng.randint(2, 4) if self.small else rng.randint(3, 8), 3, out, None)
        if arr is not None:
            bg.emit(f"arr[i] = {bg.ex.expr(arr, scope, 2)}")
        self.defs += ["@qd.kernel", f"def {name}({', '.join(params)}):"] + bg.lines + [""]
        self.main.append(f"{name}({', '.join(call)})")
        if arr is not None:
            self.main.append(f"out['arr_{name}'] = {'nd_' + name + '.to_numpy()' if 'nd_' in call[-1] else 'arr_' + name + '.copy()'}")
        self.out_fields(out)
        self.features.append("map")

    def serial_kernel(self, k: int) -> None:
        """A serialised loop that carries a value across iterations and returns it."""
        rng = self.rng
        name = f"k{k}"
        ret = rng.choice(self.types)
        bg = BodyGen(rng, self.types, self.trans, self.funcs)
        scope = Scope()
        out = Outputs(name)
        bg.emit(f"r = {bg.ex.lit(ret)}")
        bg.emit("qd.loop_config(serialize=True)")
        bg.emit(f"for i in range({N}):")
        bg.indent = 2
        self.loop_head(bg, scope)
        scope.add("r", ret)
        bg.block(scope, rng.randint(2, 6), 3, out, None)
        op = "+=" if not ret.is_int else rng.choice(["+=", "^=", "-="])
        bg.emit(f"r {op} {bg.ex.expr(ret, scope, 2)}")
        bg.indent = 1
        bg.emit("return r")
        self.defs += ["@qd.kernel", f"def {name}() -> {ret.q}:"] + bg.lines + [""]
        self.main.append(f"out['{name}'] = {name}()")
        self.out_fields(out)
        self.features.append("serial_return")

    def atomic_kernel(self, k: int) -> None:
        """Atomics on global cells: contended ones whose final value is order-free, private ones whose
        returned old value is stored, and a counter whose returned tickets must be a permutation."""
        rng = self.rng
        name = f"k{k}"
        bg = BodyGen(rng, self.types, self.trans, self.funcs)
        scope = Scope()
        out = Outputs(name)
        bg.emit(f"for i in range({N}):")
        bg.indent = 2
        self.loop_head(bg, scope)
        bg.block(scope, rng.randint(1, 3), 2, out, None)
        cells: list[tuple[str, T, int]] = []
        for n in range(rng.randint(1, 4)):
            t = rng.choice(self.types)
            m = rng.choice([1, 3, N])
            acc = f"acc_{name}_{n}"
            cells.append((acc, t, m))
            ops = ["add", "sub"] + (["min", "max"] if t.bits > 8 else []) + (["and", "or", "xor"] if t.is_int else [])
            op = rng.choice(ops)
            exact_sum = not t.is_int and op in ("add", "sub")
            init = [float(rng.randint(-8, 8)) for _ in range(m)] if exact_sum else self.data(t, m)
            self.main.append(f"{acc}.from_numpy({self.np_array(t, init)})")
            if t.is_int or op in ("min", "max"):
                v = bg.ex.expr(t, scope, 2) if t.is_int else f"a_{t.name}"
            else:  # float sums exact in any order: small integers
                v = f"qd.cast((i * {rng.randint(1, 7)}) % 9 - 4, {t.q})"
            idx = f"i % {m}" if m != N else "i"
            form = rng.random()
            if m == N and form < 0.5:  # private cell: the old value is deterministic
                r = bg.fresh()
                bg.emit(f"{r} = qd.atomic_{op}({acc}[{idx}], {v})")
                bg.emit(f"{out.slot(t)} = {r}")
            elif op in ("add", "sub") and form < 0.8:
                bg.emit(f"{acc}[{idx}] {'+=' if op == 'add' else '-='} {v}")
            else:
                bg.emit(f"qd.atomic_{op}({acc}[{idx}], {v})")
        bg.emit(f"ticket = qd.atomic_add(ctr_{name}[None], 1)")
        bg.emit(f"seen_{name}[ticket % {N}] += 1")
        self.globals.append(f"ctr_{name} = qd.field(qd.i32, shape=())")
        self.globals.append(f"seen_{name} = qd.field(qd.i32, shape={N})")
        for acc, t, m in cells:
            self.globals.append(f"{acc} = qd.field({t.q}, shape={m})")
        self.defs += ["@qd.kernel", f"def {name}():"] + bg.lines + [""]
        self.main.append(f"{name}()")
        for acc, _, _ in cells:
            self.main.append(f"out[{acc!r}] = {acc}.to_numpy()")
        self.main.append(f"out['ctr_{name}'] = ctr_{name}.to_numpy()")
        self.main.append(f"out['seen_{name}'] = seen_{name}.to_numpy()")
        self.out_fields(out)
        self.features.append("atomic")

    def sparse_kernels(self, k: int) -> None:
        from .sparse import sparse_block
        sparse_block(self, k)
        self.features.append("sparse")

    # --- the whole ---

    def build(self) -> Program:
        rng = self.rng
        self.inputs()
        for f in range(rng.choice([0, 0, 1] if self.small else [0, 0, 1, 2])):
            self.func(f)
        if self.compound:
            from .compound import CompoundGen
            CompoundGen(self, self.cls).build()
            return self.finish()
        kinds = ["map", "map", "serial", "atomic"] + (["sparse"] if rng.random() < 0.3 or not self.small else [])
        if self.only:
            kinds = [k for k in kinds if k in self.only]
        for k in range(1 if self.small else rng.randint(1, 3)):
            kind = rng.choice(kinds)
            {"map": self.map_kernel, "serial": self.serial_kernel, "atomic": self.atomic_kernel,
             "sparse": self.sparse_kernels}[kind](k)
        return self.finish()

    def finish(self) -> Program:
        head = [IMPORT_QUADRANTS, "import numpy as np", "",
                f"# difftest seed {self.seed}, class {self.cls}: features {' '.join(sorted(set(self.features)))}",
                "if not globals().get('_DIFFTEST_CHILD'):",
                f"    qd.init(arch=qd.{self.arch}, fast_math=False)", ""]
        tail = ["", "def main():", "    out = {}"] + ["    " + m for m in self.main] + ["    return out", "",
                "", "if __name__ == '__main__':", "    for k, v in main().items():", "        print(k, repr(v))", ""]
        text = "\n".join(head + self.globals + [""] + self.defs + tail)
        return Program(self.seed, self.cls, text, sorted(set(self.features)))


def pick_class(seed: int, classes: tuple[str, ...] | None = None) -> str | None:
    """The class of a seed's program, None for the old generator's own choice ("exact" or "trans").

    Drawn from a stream of its own, so that a seed whose program is of an old class is the same
    program as before the new classes came (issue 39); with `classes` = ("exact", "trans") every
    seed gives its old program. With every class allowed, NEW_SHARE of the seeds get a new one."""
    classes = tuple(classes or CLASSES)
    new = [c for c in classes if c not in OLD_CLASSES]
    if not new:
        return None
    r = Random(seed * 2654435761 + 12345)
    if any(c in OLD_CLASSES for c in classes) and r.random() >= NEW_SHARE:
        return None
    return new[r.randrange(len(new))]


def generate(seed: int, features: tuple[str, ...] | None = None, arch: str = "cpu", small: bool = False,
             classes: tuple[str, ...] | None = None) -> Program:
    """`small`: one kernel and a shorter body, for the CI sample (the long runs use the full size).
    `classes`: the classes a seed may draw (default all; see pick_class)."""
    return ProgramGen(seed, features, arch, small, pick_class(seed, classes)).build()


__all__ = ["Program", "generate", "as_ours", "CLASSES", "INTS", "int_value"]
