"""SNode activation programs: a field under pointer, bitmasked or dense SNodes, written (which
activates), deactivated per cell in a kernel and all at once from Python, activated explicitly,
and read back after each step with a struct-for, `qd.is_active` and plain reads.

Each step is its own kernel, and deactivation loops over the SNode's own cells, so no two
iterations of one loop touch the same cell in different ways: the result is order-free."""
from __future__ import annotations

from random import Random
from typing import TYPE_CHECKING

from .body import BodyGen
from .exprs import Scope

if TYPE_CHECKING:
    from .program import ProgramGen

# layout: (lines declaring it, the SNode that activation acts on, its cell count, index of element i)
LAYOUTS = {
    "pointer_dense": (["{h} = qd.root.pointer(qd.i, 4)", "{h}.dense(qd.i, 4).place({x})"], 4, "i // 4"),
    "pointer_bitmasked": (["{h} = qd.root.pointer(qd.i, 4)", "{h}.bitmasked(qd.i, 4).place({x})"], 4, "i // 4"),
    "bitmasked": (["{h} = qd.root.bitmasked(qd.i, 16)", "{h}.place({x})"], 16, "i"),
    "dense_pointer": (["{h} = qd.root.dense(qd.i, 4).pointer(qd.i, 4)", "{h}.place({x})"], 16, "i"),
    "dense": (["{h} = qd.root.dense(qd.i, 16)", "{h}.place({x})"], 16, "i"),
}


def sparse_block(g: "ProgramGen", k: int) -> None:
    from .program import N
    rng = g.rng
    layout = rng.choice(sorted(LAYOUTS))
    decl, cells, index = LAYOUTS[layout]
    t = rng.choice(g.types)
    x, h = f"sp{k}", f"h{k}"
    g.globals.append(f"{x} = qd.field({t.q})")
    g.globals += [d.format(h=h, x=x) for d in decl]
    g.globals += [f"rd{k} = qd.field({t.q}, shape={N})", f"pl{k} = qd.field({t.q}, shape={N})",
                  f"act{k} = qd.field(qd.i32, shape={N})", f"cnt{k} = qd.field(qd.i32, shape=())"]
    g.features.append(f"snode_{layout}")
    # the field reached as a global, or given to the kernels as a qd.template() argument: a template
    # field must keep its SNode tree (a struct-for over it visits active cells only, writes activate),
    # which one passed by shape alone lost (a game of life grew into inactive blocks)
    templ = Random(g.seed * 7919 + k).random() < 0.5  # its own stream: the seeds of earlier runs keep their programs
    if templ:
        g.features.append("snode_template")
    f = "f" if templ else x
    fparam = "f: qd.template()" if templ else ""
    farg = x if templ else ""

    def kernel(name: str, lines: list[str], params: str = "") -> None:
        g.defs += ["@qd.kernel", f"def {name}({params}):"] + lines + [""]

    def writer(name: str) -> None:
        bg = BodyGen(rng, g.types, g.trans, g.funcs)
        scope = Scope()
        bg.emit(f"for i in range({N}):")
        bg.indent = 2
        g.loop_head(bg, scope)
        bg.block(scope, rng.randint(0, 2), 1, None, None)
        bg.emit(f"if {bg.ex.cond(scope, 1)}:")
        bg.indent = 3
        bg.emit(f"{f}[i] = {bg.ex.expr(t, scope, 2)}")
        kernel(name, bg.lines, fparam)

    writer(f"kw{k}")
    writer(f"kv{k}")
    hidx = f"qd.rescale_index({x}, {h}, [i])" if rng.random() < 0.5 else f"[{index}]"
    kernel(f"kr{k}", [f"    for i in {f}:",
                      f"        rd{k}[i] = {f}[i]",
                      f"        cnt{k}[None] += 1",
                      f"    for i in range({N}):",
                      f"        act{k}[i] = qd.cast(qd.is_active({h}, {hidx}), qd.i32)" if layout != "dense"
                      else f"        act{k}[i] = 1",
                      f"        pl{k}[i] = {f}[i]"], fparam)
    sparse = layout != "dense"
    if sparse:
        mod, rem = rng.randint(2, 3), rng.randint(0, 1)
        kernel(f"kd{k}", [f"    for c in range({cells}):",
                          f"        if c % {mod} == {rem}:",
                          f"            qd.deactivate({h}, [c])"])
        kernel(f"ka{k}", [f"    for c in range({cells}):",
                          f"        if c % {mod} != {rem}:",
                          f"            qd.activate({h}, [c])"])
    g.defs += [f"def snap{k}(out, step):",
               f"    cnt{k}[None] = 0",
               f"    rd{k}.fill(0)",
               f"    kr{k}({farg})",
               f"    for name, f in (('rd', rd{k}), ('act', act{k}), ('pl', pl{k}), ('cnt', cnt{k}), ('x', {x})):",
               f"        out[f'{x}_{{name}}_{{step}}'] = f.to_numpy()", ""]
    steps = [f"kw{k}({farg})"]
    if sparse:
        steps += [f"kd{k}()", f"kv{k}({farg})", f"ka{k}()", f"{h}.deactivate_all()", f"kv{k}({farg})"]
    else:
        steps += [f"kv{k}({farg})"]
    for n, s in enumerate(steps):
        g.main += [s, f"snap{k}(out, {n})"]
