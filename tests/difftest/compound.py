"""The program classes of issue 39 (part 4), beside "exact" and "trans":

- "scalar": every scalar width (i8..u64, f16/f32/f64) and `qd.u1` stored, cast and returned across
  each other: implicit casts of a store into a field of another type, comparisons stored into
  integer, float and u1 fields, casts to and from u1, kernels returning each type (and a value of
  another type converted by the return);
- "vector": `qd.Vector.field` / `qd.Matrix.field` and vector/matrix locals (`qd.math.vec3`,
  `qd.Vector([...], dt=...)`): components, swizzles, `@`, dot, cross, outer products, transposes,
  sums, element-wise arithmetic, and above all updates whose right-hand side reads the target
  (`v[i] -= v[i].dot(n) * n`, `m[i] += m[i] @ m[i]`, `v[i] = v[i].zxy`, `v[i][1] += v[i].sum()`),
  in parallel, struct-for and serialized loops; contended vector atomics on integers; kernels that
  return a vector or a matrix;
- "struct": `qd.types.struct(...).field()` with scalar, vector, matrix and nested-struct members,
  read and updated through `s[i].m` and `s.m[i]`;
- "ndarray": ndarray arguments of one and two dimensions, of scalars, vectors and matrices, from
  `qd.ndarray`, `qd.Vector.ndarray`/`qd.Matrix.ndarray` or NumPy arrays, read and updated.

All are compared bit for bit (fast_math=False; no transcendental functions). Races are kept out:
in a parallel loop a container written by the kernel is touched at the iteration's own index only;
others (and every container in a serialized loop) may be read anywhere. Float division is
allowed (IEEE), integer vectors get no `/`, `//` or `%`, and 8-bit types no min/max (Quadrants 1.3.3
aborts on those)."""
from __future__ import annotations

from random import Random
from typing import TYPE_CHECKING

from .body import BodyGen, Outputs
from .exprs import Scope
from .types import ALL, BY_NAME, F32, I32, INTS, T, float_value, int_value, literal, value

if TYPE_CHECKING:
    from .program import ProgramGen

NEW_CLASSES = ("scalar", "vector", "struct", "ndarray")
U1 = T("u1", 1, "uint", "bool")  # Quadrants' boolean: fields of it read back as NumPy bool
SWZ = "xyzw"
# element types of vectors and matrices: mostly f32, as programs use them
ELEM = [F32, F32, F32, BY_NAME["f64"], BY_NAME["f64"], I32, I32, BY_NAME["i64"], BY_NAME["f16"], BY_NAME["u16"]]


def tq(t: T, shape: tuple) -> str:
    """The Quadrants type of a value: scalar, vector or matrix."""
    if not shape:
        return t.q
    if len(shape) == 1:
        return f"qd.types.vector({shape[0]}, {t.q})"
    return f"qd.types.matrix({shape[0]}, {shape[1]}, {t.q})"


def elem_value(rng: Random, t: T):
    """Data for vectors: small dyadic floats mostly (so that sums and products stay exact-ish and
    finite for a few rounds), and the integer edge values."""
    if t.is_int:
        return int_value(rng, t) if rng.random() < 0.5 else max(t.lo, min(t.hi, rng.randint(-9, 9)))
    return float_value(rng, t) if rng.random() < 0.3 else rng.randint(-16, 16) / 4.0


class Place:
    """Something a kernel can read (and, if `writable`, write): a field element, a struct member,
    an ndarray element, a local."""

    def __init__(self, text: str, t: T, shape: tuple, writable: bool):
        self.text, self.t, self.shape, self.writable = text, t, shape, writable


class Outputs2(Outputs):
    """Output slots of a loop over qd.ndrange(N, M): one row per (i, j)."""

    def __init__(self, kernel: str, m: int):
        super().__init__(kernel)
        self.m = m

    def slot(self, t: T) -> str:
        return super().slot(t).replace("[i, ", f"[i * {self.m} + j, ")


class VecGen:
    """Expressions of a known element type and shape over the places in view; scalar leaves come
    from the ordinary ExprGen (`bg.ex`), so its hoisting and guards apply."""

    def __init__(self, rng: Random, bg: BodyGen):
        self.rng, self.bg = rng, bg
        self.places: list[Place] = []

    def of(self, t: T, shape: tuple) -> list[Place]:
        return [p for p in self.places if p.t == t and p.shape == shape]

    def ctor(self, t: T, shape: tuple, scope: Scope, depth: int) -> str:
        rng = self.rng
        el = (lambda: self.scalar(t, scope, depth - 1)) if depth > 0 and rng.random() < 0.3 else (lambda: self.leaf(t, scope))
        if len(shape) == 1:
            items = [el() for _ in range(shape[0])]
            if t == F32 and rng.random() < 0.5:
                return f"qd.math.vec{shape[0]}({', '.join(items)})"
            if t == I32 and rng.random() < 0.5:
                return f"qd.math.ivec{shape[0]}({', '.join(items)})"
            return f"qd.Vector([{', '.join(items)}], dt={t.q})"
        rows = ", ".join("[" + ", ".join(el() for _ in range(shape[1])) + "]" for _ in range(shape[0]))
        if t == F32 and shape[0] == shape[1] and rng.random() < 0.4:
            return f"qd.math.mat{shape[0]}([{rows}])"
        return f"qd.Matrix([{rows}], dt={t.q})"

    def leaf(self, t: T, scope: Scope) -> str:
        names = scope.of(t)
        if names and self.rng.random() < 0.6:
            return self.rng.choice(names)
        return self.bg.ex.lit(t)

    def scalar(self, t: T, scope: Scope, depth: int) -> str:
        """A scalar of type t, often taken from a vector or matrix of that element type."""
        rng = self.rng
        vecs = [p for p in self.places if p.t == t and p.shape]
        if vecs and rng.random() < 0.6:
            p = rng.choice(vecs)
            form = rng.random()
            if len(p.shape) == 1:
                if form < 0.3:
                    return f"{p.text}.dot({self.val(t, p.shape, scope, depth - 1)})"
                if form < 0.55:
                    return f"{p.text}[{rng.randrange(p.shape[0])}]"
                if form < 0.8:
                    return f"{p.text}.{SWZ[rng.randrange(p.shape[0])]}"
                return f"{p.text}.sum()"
            if form < 0.6:
                return f"{p.text}[{rng.randrange(p.shape[0])}, {rng.randrange(p.shape[1])}]"
            if form < 0.8 and p.shape[0] == p.shape[1]:
                return f"{p.text}.trace()"
            return f"{p.text}.sum()"
        return self.bg.ex.expr(t, scope, max(0, min(depth, 2)))

    def val(self, t: T, shape: tuple, scope: Scope, depth: int) -> str:
        rng = self.rng
        if not shape:
            return self.scalar(t, scope, depth)
        have = self.of(t, shape)
        if depth <= 0 or rng.random() < 0.3:
            if have and rng.random() < 0.8:
                return rng.choice(have).text
            return self.ctor(t, shape, scope, 0)
        ops = ["+", "-", "*", "scale", "neg", "ctor", "+", "-"]
        if not t.is_int:
            ops += ["div"]
        if t.bits > 8:
            ops += ["minmax"]
        if len(shape) == 1:
            ops += ["swz", "swz", "matvec"] + (["cross"] if shape == (3,) and t.kind != "uint" else [])
        else:
            ops += ["matmul", "matmul", "transpose", "outer"]
        op = rng.choice(ops)
        d = depth - 1
        if op in ("+", "-", "*"):
            return f"({self.val(t, shape, scope, d)} {op} {self.val(t, shape, scope, d)})"
        if op == "div":
            return f"({self.val(t, shape, scope, d)} / {self.scalar(t, scope, d)})"
        if op == "scale":
            s, v = self.scalar(t, scope, d), self.val(t, shape, scope, d)
            return f"({s} * {v})" if rng.random() < 0.5 else f"({v} * {s})"
        if op == "neg":
            return f"(-{self.val(t, shape, scope, d)})"
        if op == "ctor":
            return self.ctor(t, shape, scope, d)
        if op == "minmax":
            return f"qd.{rng.choice(['min', 'max'])}({self.val(t, shape, scope, d)}, {self.val(t, shape, scope, d)})"
        if op == "swz":
            src = [p for p in self.places if p.t == t and len(p.shape) == 1 and p.shape[0] >= 2]
            if not src:
                return self.ctor(t, shape, scope, d)
            p = rng.choice(src)
            return f"{p.text}.{''.join(rng.choice(SWZ[:p.shape[0]]) for _ in range(shape[0]))}"
        if op == "matvec":
            k = rng.choice([2, 3])
            return f"({self.val(t, (shape[0], k), scope, d)} @ {self.val(t, (k,), scope, d)})"
        if op == "cross":
            return f"{self.val(t, (3,), scope, d)}.cross({self.val(t, (3,), scope, d)})"
        if op == "matmul":
            k = rng.choice([2, 3])
            return f"({self.val(t, (shape[0], k), scope, d)} @ {self.val(t, (k, shape[1]), scope, d)})"
        if op == "transpose":
            return f"{self.val(t, (shape[1], shape[0]), scope, d)}.transpose()"
        return f"{self.val(t, (shape[0],), scope, d)}.outer_product({self.val(t, (shape[1],), scope, d)})"

    def self_reading(self, p: Place, scope: Scope) -> tuple[str, str]:
        """An update of p whose right-hand side reads p itself: (operator, right-hand side)."""
        rng, t, shape = self.rng, p.t, p.shape
        x = p.text
        if not shape:
            return rng.choice(["=", "+=", "-="]), f"({x} {rng.choice(['+', '-', '*'])} {self.scalar(t, scope, 1)})"
        if len(shape) == 1:
            n = shape[0]
            forms = ["proj", "swz", "perm", "scale", "mat"]
            form = rng.choice(forms)
            if form == "proj":  # v -= v.dot(n) * n
                m = self.val(t, shape, scope, 1)
                hoisted = self.bg.hoist(m, t) if rng.random() < 0.5 else m
                return rng.choice(["-=", "+=", "="]), f"{x}.dot({hoisted}) * {hoisted}"
            if form == "swz":
                return rng.choice(["=", "+=", "-=", "*="]), f"{x}.{''.join(rng.choice(SWZ[:n]) for _ in range(n))}"
            if form == "perm":
                idx = list(range(n))
                rng.shuffle(idx)
                return rng.choice(["=", "+="]), f"qd.Vector([{', '.join(f'{x}[{k}]' for k in idx)}], dt={t.q})"
            if form == "scale":
                return rng.choice(["*=", "=", "-="]), f"{x}[{rng.randrange(n)}] * {x}"
            k = n
            return "=", f"{self.val(t, (n, k), scope, 1)} @ {x}"
        r, c = shape
        forms = ["transpose", "entry"] + (["square"] if r == c else [])
        form = rng.choice(forms)
        if form == "square":
            return rng.choice(["+=", "-=", "=", "*="]), rng.choice([f"{x} @ {x}", f"{x} @ {x}.transpose()", f"{x}.transpose() @ {x}"])
        if form == "transpose" and r == c:
            return rng.choice(["=", "+=", "-="]), f"{x}.transpose()"
        return rng.choice(["-=", "+=", "="]), f"{x}[{rng.randrange(r)}, {rng.randrange(c)}] * {x}"


class CompoundGen:
    """One program of a new class; borrows ProgramGen's pieces (inputs, loop heads, outputs)."""

    def __init__(self, g: "ProgramGen", cls: str):
        self.g, self.cls, self.rng = g, cls, g.rng
        self.containers: list[dict] = []   # {"name", "t", "shape", "index": "{i}" pattern, "kind"}

    # --- declarations ---

    def data(self, t: T, shape: tuple, n: "int | tuple") -> str:
        dims = n if isinstance(n, tuple) else (n,)
        vals = [elem_value(self.rng, t) for _ in range(_size(dims) * _size(shape))]
        arr = f"np.array([{', '.join(literal(v, t) for v in vals)}], dtype=np.{t.numpy})"
        return f"{arr}.reshape({dims + shape})"

    def vec_field(self, k: int) -> dict:
        from .program import N
        rng = self.rng
        t = rng.choice(ELEM)
        if rng.random() < 0.55:
            shape = (rng.choice([2, 3, 3, 4]),)
            decl = f"qd.Vector.field({shape[0]}, dtype={t.q}, shape={N})"
            if t == F32 and rng.random() < 0.3:
                decl = f"qd.field(qd.math.vec{shape[0]}, shape={N})"
        else:
            shape = (rng.choice([2, 3]), rng.choice([2, 2, 3]))
            decl = f"qd.Matrix.field({shape[0]}, {shape[1]}, dtype={t.q}, shape={N})"
        name = f"vf{k}"
        self.g.globals.append(f"{name} = {decl}")
        self.g.main.insert(0, f"{name}.from_numpy({self.data(t, shape, N)})")
        c = {"name": name, "t": t, "shape": shape, "access": [f"{name}[{{i}}]"], "out": [f"{name}.to_numpy()"]}
        self.containers.append(c)
        return c

    def struct_field(self, k: int) -> dict:
        from .program import N
        rng = self.rng
        members = []
        for m in range(rng.randint(2, 4)):
            t = rng.choice(ELEM if rng.random() < 0.7 else ALL)
            shape = rng.choice([(), (3,), (2,), (2, 2), (3, 3), (2, 3)])
            members.append((f"m{m}", t, shape))
        nested = rng.random() < 0.3
        name = f"sf{k}"
        fields = ", ".join(f"{m}={tq(t, s)}" for m, t, s in members)
        if nested:
            inner_t = rng.choice(ELEM)
            self.g.globals.append(f"In{k} = qd.types.struct(p={tq(inner_t, (3,))}, q={inner_t.q})")
            fields += f", inner=In{k}"
        self.g.globals.append(f"St{k} = qd.types.struct({fields})")
        self.g.globals.append(f"{name} = St{k}.field(shape={N})")
        out = []
        leaves = list(members) + ([("inner.p", inner_t, (3,)), ("inner.q", inner_t, ())] if nested else [])
        for m, t, s in leaves:
            self.g.main.insert(0, f"{name}.{m}.from_numpy({self.data(t, s, N)})")
            c = {"name": f"{name}.{m}", "root": name, "t": t, "shape": s,
                 "access": [f"{name}[{{i}}].{m}", f"{name}.{m}[{{i}}]"], "out": [f"{name}.{m}.to_numpy()"]}
            self.containers.append(c)
            out.append(c)
        return out

    # --- kernels ---

    def body(self, bg: BodyGen, vg: VecGen, scope: Scope, out: Outputs, n: int, serial: bool,
             written: list[dict], read_only: list[dict]) -> None:
        """n statements over the containers: `written` at index i only (unless serial), `read_only` anywhere."""
        rng = self.rng
        from .program import N
        own = []
        for c in written:
            acc = rng.choice(c["access"]).format(i="i")
            own.append(Place(acc, c["t"], c["shape"], True))
        vg.places += own
        for c in read_only + (written if serial else []):
            j = f"(i + {rng.randint(1, N - 1)}) % {N}"
            vg.places.append(Place(rng.choice(c["access"]).format(i=j), c["t"], c["shape"], False))
        for _ in range(n):
            self.statement(bg, vg, scope, out, own, 2)

    def statement(self, bg: BodyGen, vg: VecGen, scope: Scope, out: Outputs, own: list[Place], depth: int) -> None:
        rng = self.rng
        kinds = ["update", "update", "update", "component", "local", "store", "scalar"]
        if depth > 0:
            kinds += ["if", "atomic"]
        kind = rng.choice(kinds)
        writable = [p for p in vg.places if p.writable]
        if kind in ("update", "component", "atomic") and not writable:
            kind = "local"
        if kind == "update":
            p = rng.choice(writable)
            if rng.random() < 0.6:
                op, rhs = vg.self_reading(p, scope)
            else:
                op = rng.choice(["=", "+=", "-="] + (["*="] if p.shape else []))
                rhs = vg.val(p.t, p.shape, scope, 2)
            if op == "*=" and not p.shape and p.t.is_int and p.t.bits == 8:
                op = "="
            bg.emit(f"{p.text} {op} {rhs}")
        elif kind == "component":
            p = rng.choice(writable)
            if not p.shape:
                bg.emit(f"{p.text} += {vg.scalar(p.t, scope, 1)}")
                return
            if len(p.shape) == 1:
                comp = f"[{rng.randrange(p.shape[0])}]" if rng.random() < 0.6 else f".{SWZ[rng.randrange(p.shape[0])]}"
            else:
                comp = f"[{rng.randrange(p.shape[0])}, {rng.randrange(p.shape[1])}]"
            rhs = vg.scalar(p.t, scope, 2) if rng.random() < 0.4 else (
                f"{p.text}.sum()" if rng.random() < 0.5 else
                (f"{p.text}.dot({p.text})" if len(p.shape) == 1 else f"{p.text}[0, 0] * {p.text}[{p.shape[0] - 1}, {p.shape[1] - 1}]"))
            bg.emit(f"{p.text}{comp} {rng.choice(['=', '+=', '-='])} {rhs}")
        elif kind == "local":
            t = rng.choice([p.t for p in vg.places] or [F32])
            shape = rng.choice([(), (2,), (3,), (3,), (2, 2), (3, 3), (2, 3)])
            name = bg.fresh("u")
            bg.emit(f"{name} = {vg.val(t, shape, scope, 2)}")
            if shape:
                vg.places.append(Place(name, t, shape, True))
            else:
                scope.add(name, t)
        elif kind == "store":
            ts = [p.t for p in vg.places] or [F32]
            t = rng.choice(ts)
            bg.emit(f"{out.slot(t)} = {vg.scalar(t, scope, 2)}")
        elif kind == "scalar":
            bg.statement(scope, 0, out, None)
        elif kind == "if":
            bg.emit(f"if {bg.ex.cond(scope, 1)}:")
            bg.indent += 1
            inner = Scope(scope)
            saved = list(vg.places)
            for _ in range(rng.randint(1, 2)):
                self.statement(bg, vg, inner, out, own, depth - 1)
            vg.places = saved
            bg.indent -= 1
        elif kind == "atomic":
            p = rng.choice(writable)
            v = vg.val(p.t, p.shape, scope, 1)
            if rng.random() < 0.5:
                r = bg.fresh("u")
                bg.emit(f"{r} = qd.atomic_{rng.choice(['add', 'sub'])}({p.text}, {v})")
                if p.shape:
                    vg.places.append(Place(r, p.t, p.shape, True))
                else:
                    scope.add(r, p.t)
            else:
                bg.emit(f"qd.atomic_{rng.choice(['add', 'sub'])}({p.text}, {v})")

    def container_kernel(self, k: int) -> None:
        """A parallel (range or struct-for) or serialized loop over the containers."""
        from .program import N
        g, rng = self.g, self.rng
        name = f"k{k}"
        bg = BodyGen(rng, g.types, False, g.funcs)
        vg = VecGen(rng, bg)
        scope = Scope()
        out = Outputs(name)
        serial = rng.random() < 0.3
        pool = list(self.containers)
        rng.shuffle(pool)
        nw = rng.randint(1, max(1, min(3, len(pool))))
        written, read_only = pool[:nw], pool[nw:]
        ret = None
        if serial:
            bg.emit("qd.loop_config(serialize=True)")
            bg.emit(f"for i in range({N}):")
        else:
            roots = [c for c in written if "root" not in c and c["name"].startswith("vf")]
            bg.emit(f"for i in {roots[0]['name']}:" if roots and rng.random() < 0.4 else f"for i in range({N}):")
        bg.indent = 2
        g.loop_head(bg, scope)
        if serial and rng.random() < 0.6:  # a vector carried across iterations and returned
            src = rng.choice(pool)
            ret = (src["t"], src["shape"] or (3,))
            bg.lines.insert(0, f"    r = {VecGen(rng, bg).ctor(ret[0], ret[1], Scope(), 0)}")
            vg.places.append(Place("r", ret[0], ret[1], True))  # (kept by body, which adds the containers)
        self.body(bg, vg, scope, out, rng.randint(2, 4) if g.small else rng.randint(3, 8), serial, written, read_only)
        if ret is not None:
            bg.emit(f"r += {vg.val(ret[0], ret[1], scope, 1)}")
            bg.indent = 1
            bg.emit("return r")
        sig = f" -> {tq(*ret)}" if ret else ""
        g.defs += ["@qd.kernel", f"def {name}(){sig}:"] + bg.lines + [""]
        g.main.append(f"out['{name}'] = np.asarray({name}())" if ret else f"{name}()")
        g.out_fields(out)
        g.features.append("serial_vector" if serial else "parallel_vector")

    def vector_atomic_kernel(self, k: int) -> None:
        """Contended vector atomics on integer vectors: the sum is order-free."""
        from .program import N
        g, rng = self.g, self.rng
        t = rng.choice([I32, BY_NAME["i64"], BY_NAME["u32"]])
        shape = rng.choice([(3,), (2,), (2, 2)])
        m = rng.choice([1, 3])
        acc = f"va{k}"
        g.globals.append(f"{acc} = qd.field({tq(t, shape)}, shape={m})")
        g.main.append(f"{acc}.from_numpy({self.data(t, shape, m)})")
        bg = BodyGen(rng, g.types, False, g.funcs)
        vg = VecGen(rng, bg)
        scope = Scope()
        bg.emit(f"for i in range({N}):")
        bg.indent = 2
        g.loop_head(bg, scope)
        vg.places = [Place(rng.choice(c["access"]).format(i="i"), c["t"], c["shape"], False)
                     for c in self.containers]
        v = vg.val(t, shape, scope, 2)
        form = rng.choice(["+=", "-=", "add", "sub"])
        if form in ("+=", "-="):
            bg.emit(f"{acc}[i % {m}] {form} {v}")
        else:
            bg.emit(f"qd.atomic_{form}({acc}[i % {m}], {v})")
        g.defs += ["@qd.kernel", f"def k{k}():"] + bg.lines + [""]
        g.main.append(f"k{k}()")
        g.main.append(f"out['{acc}'] = {acc}.to_numpy()")
        g.features.append("vector_atomic")

    # --- ndarrays ---

    def ndarray_kernel(self, k: int) -> None:
        from .program import N
        g, rng = self.g, self.rng
        name = f"k{k}"
        M = rng.choice([3, 4, 5])
        two_d = rng.random() < 0.5
        params, call = [], []
        arrays = []
        for a in range(rng.randint(1, 3)):
            t = rng.choice(ELEM)
            shape = rng.choice([(), (), (3,), (2,), (2, 2)])
            ndim = 2 if (two_d and rng.random() < 0.7) else 1
            dims = (N, M) if ndim == 2 else (N,)
            pname, host = f"a{a}", f"h{k}_{a}"
            dtype = tq(t, shape) if not (t == F32 and shape == (3,) and rng.random() < 0.5) else "qd.math.vec3"
            ann = f"qd.types.ndarray(dtype={dtype}, ndim={ndim})" if shape or rng.random() < 0.7 else "qd.types.ndarray()"
            params.append(f"{pname}: {ann}")
            data = self.data(t, shape, dims)
            form = rng.choice(["nd", "np", "vnd"] if shape else ["nd", "np"])
            if form == "np":
                g.main.append(f"{host} = {data}")
                g.main.append(f"{name}_res_{a} = lambda: {host}.copy()")
            else:
                if form == "vnd" and len(shape) == 1:
                    mk = f"qd.Vector.ndarray({shape[0]}, {t.q}, shape={dims})"
                elif form == "vnd":
                    mk = f"qd.Matrix.ndarray({shape[0]}, {shape[1]}, {t.q}, shape={dims})"
                else:
                    mk = f"qd.ndarray({dtype}, shape={dims})"
                g.main.append(f"{host} = {mk}")
                g.main.append(f"{host}.from_numpy({data})")
                g.main.append(f"{name}_res_{a} = lambda: {host}.to_numpy()")
            call.append(host)
            arrays.append({"name": pname, "t": t, "shape": shape, "ndim": ndim})
            g.features.append(f"ndarray_{form}_{ndim}d" + ("_vec" if shape else ""))
        bg = BodyGen(rng, g.types, False, g.funcs)
        vg = VecGen(rng, bg)
        scope = Scope()
        out = Outputs(name) if not two_d else Outputs2(name, M)
        written = arrays[:rng.randint(1, len(arrays))]
        if two_d:
            bg.emit(f"for i, j in qd.ndrange({N}, {M}):")
            bg.indent = 2
            g.loop_head(bg, scope)
            scope.add("j", I32)
            own, other = "[i, j]", f"[(i + {rng.randint(1, N - 1)}) % {N}, (j + 1) % {M}]"
            own1 = "[i]"
        else:
            bg.emit(f"for i in range({rng.choice([str(N), arrays[0]['name'] + '.shape[0]'])}):")
            bg.indent = 2
            g.loop_head(bg, scope)
            own, other, own1 = None, None, "[i]"
        places = []
        for a in arrays:
            w = a in written
            if a["ndim"] == 1:
                places.append(Place(a["name"] + own1, a["t"], a["shape"], w and not two_d))
                if not w:
                    places.append(Place(f"{a['name']}[(i + {rng.randint(1, N - 1)}) % {N}]", a["t"], a["shape"], False))
            elif two_d:
                places.append(Place(a["name"] + own, a["t"], a["shape"], w))
                if not w:
                    places.append(Place(a["name"] + other, a["t"], a["shape"], False))
            else:  # a 2-D array in a 1-D loop: row i, over an inner loop on its second axis
                places.append(Place(f"{a['name']}[i, {rng.randrange(M)}]", a["t"], a["shape"], False))
        for c in self.containers:  # a field beside the ndarrays, read only
            places.append(Place(c["access"][0].format(i=f"(i + {rng.randint(0, N - 1)}) % {N}"), c["t"], c["shape"], False))
        vg.places = places
        nst = rng.randint(2, 4) if g.small else rng.randint(3, 7)
        for _ in range(nst):
            self.statement(bg, vg, scope, out, [], 2)
        rows = [a for a in arrays if a["ndim"] == 2 and a in written and not two_d]
        if rows:
            a = rows[0]
            bg.emit(f"for j in range({a['name']}.shape[1]):")
            bg.indent += 1
            inner = Scope(scope)
            inner.add("j", I32)
            vg.places = places + [Place(f"{a['name']}[i, j]", a["t"], a["shape"], True)]
            for _ in range(rng.randint(1, 3)):
                self.statement(bg, vg, inner, out, [], 1)
            bg.indent -= 1
        g.defs += ["@qd.kernel", f"def {name}({', '.join(params)}):"] + bg.lines + [""]
        g.main.append(f"{name}({', '.join(call)})")
        for a in range(len(arrays)):
            g.main.append(f"out['{name}_a{a}'] = {name}_res_{a}()")
        if two_d:
            for tname, n in out.slots.items():
                o = f"o_{name}_{tname}"
                g.globals.append(f"{o} = qd.field(qd.{tname}, shape=({N * M}, {n}))")
                g.main.append(f"out[{o!r}] = {o}.to_numpy()")
        else:
            g.out_fields(out)

    # --- scalars of every width ---

    def scalar_kernel(self, k: int) -> None:
        """Stores across types (implicit casts), comparisons stored as integers, floats and u1,
        casts to and from u1."""
        from .program import N
        g, rng = self.g, self.rng
        name = f"k{k}"
        bg = BodyGen(rng, g.types, False, g.funcs)
        scope = Scope()
        out = Outputs(name)
        bg.emit(f"for i in range({N}):")
        bg.indent = 2
        g.loop_head(bg, scope)
        targets = g.types + [U1]
        for _ in range(rng.randint(3, 5) if g.small else rng.randint(5, 12)):
            r = rng.random()
            if r < 0.15:
                bg.statement(scope, 1, out, None)
                continue
            dst = rng.choice(targets)
            if r < 0.4:  # a comparison (or a u1 local) stored into any type
                c = bg.ex.cond(scope, 1)
                if rng.random() < 0.4:
                    b = bg.fresh("c")
                    bg.emit(f"{b} = {c}")
                    c = b
                rhs = c if rng.random() < 0.6 else f"qd.cast({c}, {dst.q})"
            elif r < 0.55 and dst is not U1:  # from u1
                rhs = f"qd.cast({self.to_u1(bg, scope, dst.name != 'u8')}, {dst.q})"
            else:  # an expression of another type, converted by the store (or a cast)
                # (a float converted to u1 aborts Quadrants 1.3.3: an LLVM icmp of a float, explain.py)
                # (and Quadrants 1.3.3 takes u1 and u8 for one type: see to_u1)
                src = rng.choice([t for t in g.types if dst is not U1 or (t.is_int and t.name != "u8")] or [I32])
                rhs = self.convertible(bg, scope, src, dst)
                if rng.random() < 0.3:
                    rhs = f"qd.cast({rhs}, {dst.q})"
            bg.emit(f"{out.slot(dst)} = {rhs}")
        g.defs += ["@qd.kernel", f"def {name}():"] + bg.lines + [""]
        g.main.append(f"{name}()")
        g.out_fields(out)
        g.features.append("scalar_store")

    def to_u1(self, bg: BodyGen, scope: Scope, cast: bool = True) -> str:
        """A u1 value: a comparison, or a cast to u1 of an integer (0 or not). Never a float: Quadrants
        1.3.3 aborts on that (explain.py). `cast` False (a u1 going on to u8): a comparison only, and no
        u8 operand: Quadrants 1.3.3 merges a cast to u1 with a cast between it and u8, as if they were one
        type (qd.cast(qd.cast(-1, qd.u1), qd.u8) is 255; qd.cast(256, qd.u8) stored into a u1 is True),
        tests/lang/test_difftest_findings.py. An operand read from `dz` keeps two casts from meeting."""
        rng = self.rng
        if rng.random() < 0.5 or not cast:
            return f"({bg.ex.cond(scope, 1)})"
        t = rng.choice([x for x in self.g.types if x.is_int and x.name != "u8"] or [I32])
        return f"qd.cast({bg.ex.expr(t, scope, 1)} + qd.cast(dz[None], {t.q}), qd.u1)"

    def convertible(self, bg: BodyGen, scope: Scope, src: T, dst: T) -> str:
        """An expression of type src whose conversion to dst is defined: a float going to an integer
        is guarded into an 8-bit range first (NaN fails the guard)."""
        e = bg.ex.expr(src, scope, 2)
        if dst is U1 and src.is_int:  # no cast right before the u1 one (see to_u1)
            return f"({e} + qd.cast(dz[None], {src.q}))"
        if src.is_int or not dst.is_int:
            return e
        v = bg.hoist(e, src)
        lo, cmp_lo, hi = ("-128.0", ">=", 128.0) if dst.signed else ("-1.0", ">", 256.0)
        if dst is U1:
            lo, cmp_lo, hi = "-1.0", ">", 2.0
        return f"({v} if {v} {cmp_lo} {lo} and {v} < {hi} else qd.cast(0, {src.q}))"

    def return_kernel(self, k: int) -> None:
        """A serialized loop whose result, of type src, is returned as another type (the return converts)."""
        from .program import N
        g, rng = self.g, self.rng
        name = f"k{k}"
        bg = BodyGen(rng, g.types, False, g.funcs)
        scope = Scope()
        out = Outputs(name)
        src = rng.choice(g.types)
        dst = rng.choice(g.types + ([U1, U1] if src.name != "u8" else []))
        bg.emit(f"r = {bg.ex.lit(src)}")
        bg.emit("qd.loop_config(serialize=True)")
        bg.emit(f"for i in range({N}):")
        bg.indent = 2
        g.loop_head(bg, scope)
        scope.add("r", src)
        bg.block(scope, rng.randint(1, 4), 2, out, None)
        bg.emit(f"r {'+=' if not src.is_int else rng.choice(['+=', '^=', '-='])} {bg.ex.expr(src, scope, 2)}")
        bg.indent = 1
        if dst is U1 and (rng.random() < 0.5 or not src.is_int):
            bg.emit(f"return r {rng.choice(['<', '>=', '=='])} {bg.ex.lit(src)}")
        elif not src.is_int and dst.is_int:  # the return converts a float: only values in range
            bg.emit(f"return {self.guard_r(src, dst)}")
        else:
            bg.emit("return r")
        g.defs += ["@qd.kernel", f"def {name}() -> {dst.q}:"] + bg.lines + [""]
        g.main.append(f"out['{name}'] = {name}()")
        g.out_fields(out)
        g.features.append("scalar_return")

    @staticmethod
    def guard_r(src: T, dst: T) -> str:
        lo, cmp_lo, hi = ("-128.0", ">=", 128.0) if dst.signed else ("-1.0", ">", 256.0)
        if dst is U1:
            lo, cmp_lo, hi = "-1.0", ">", 2.0
        return f"r if r {cmp_lo} {lo} and r < {hi} else qd.cast(0, {src.q})"

    # --- the whole ---

    def build(self) -> None:
        g, rng = self.g, self.rng
        n_kernels = 1 if g.small else rng.randint(1, 3)
        if self.cls == "scalar":
            for k in range(n_kernels):
                (self.scalar_kernel if rng.random() < 0.6 else self.return_kernel)(k)
            return
        if self.cls == "ndarray":
            if rng.random() < 0.4:
                self.vec_field(90)  # a field beside the ndarrays, read only
            for k in range(n_kernels):
                self.ndarray_kernel(k)
            return
        for c in range(rng.randint(1, 3)):
            if self.cls == "struct" and c == 0:
                self.struct_field(c)
            elif self.cls == "struct":
                (self.struct_field if rng.random() < 0.5 else self.vec_field)(c)
            else:
                self.vec_field(c)
        for k in range(n_kernels):
            if self.cls == "vector" and rng.random() < 0.15:
                self.vector_atomic_kernel(k)
            else:
                self.container_kernel(k)
        seen = set()
        for c in self.containers:
            if c["name"] not in seen:
                seen.add(c["name"])
                g.main.append(f"out['{c['name']}'] = {c['out'][0]}")


def _size(shape: tuple) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def pick_types(rng: Random, cls: str) -> list[T]:
    """The scalar types of a new-class program: every width for "scalar", fewer elsewhere."""
    if cls == "scalar":
        ints = rng.sample(INTS, rng.randint(2, 5))
        floats = rng.sample([BY_NAME["f16"], F32, BY_NAME["f64"]], rng.randint(1, 3))
        return ints + floats
    return [I32, F32] + ([BY_NAME["f64"]] if rng.random() < 0.5 else [])


__all__ = ["NEW_CLASSES", "CompoundGen", "pick_types", "value"]
