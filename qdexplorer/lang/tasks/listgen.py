"""Struct-fors over sparse SNodes visit active cells only, as Quadrants' listgen + struct-for do.

A struct-for over container `C` (a field's container, or an SNode) with a pointer, bitmasked or
dynamic container on its path becomes two tasks:

- a serial *listgen* task walks the tree from the root down to `C`'s parent `P`, visiting only the
  children of active cells, and writes each active cell of `P` (a *block*: one instance of `C`)
  into `C`'s block list, with the count and the cells per block;
- the parallel task runs over (blocks x cells per block), with one guard: `C`'s own activity (its
  mask; for a dynamic `C`, the position below its list's length).

So a loop costs the active part of the tree, not its capacity (a 4096^3 pointer grid, a dynamic
node of 2^20 cells per block), and cells are visited in Quadrants' CPU order: blocks in tree order
(each level's cells row-major), then each block's cells row-major. For a dynamic `C`, the cells per
block is the longest list's length (so `for p in x` over a `root.dynamic` runs `length` indices).
"""
from __future__ import annotations

import math

from ... import ir
from ...ir.dtypes import i32, i64, u1
from ..field import Field
from ..snode import SNode

I32_MAX = 2**31 - 1


def _c(v: int) -> ir.Const:
    return ir.Const(v, i32)


def _bin(op: str, a, b, dt=i32):
    return ir.BinOp(op, a, b, dt)


def buffers(c: SNode) -> tuple[Field, Field]:
    """`C`'s block list (one row per cell of its parent: that cell's index) and its counts
    ([blocks, cells per block, blocks x cells per block]); made on first use. The list is as long as
    the parent has cells, reserved lazily (lazy_storage.py): only its first rows are ever touched."""
    if c.block_list is None or c.block_count is None:
        p = c.parent()
        assert p is not None
        rows = max(1, math.prod(p.shape))
        c.block_list = Field(i32, (rows, max(1, len(p.shape))), name="block_list")
        c.block_count = Field(i32, (3,), name="block_count")
    return c.block_list, c.block_count


def _counted_loop(b, name: str, hi: ir.Expr, body_of) -> list:
    """`for v in range(hi): body_of(v)` as IR: the statements."""
    v = b.new_local(name, i32)
    ref = ir.LocalRef(v)
    body = [ir.If(ir.Compare(">=", ref, hi, u1), [ir.Break()], [])] + body_of(ref)
    return [ir.Assign(v, _c(0)), ir.Loop(body, [ir.Assign(v, _bin("+", ref, _c(1)))])]


def _cell(s: SNode, coords: dict) -> tuple:
    """The index of `s`'s cell from the per-axis coordinates reached at its level."""
    return tuple(coords[a] for a in s.split_axes) or (_c(0),)


def listgen_body(b, c: SNode) -> list:
    """The serial task's statements: list the active cells of `c`'s parent."""
    blist, bcount = buffers(c)
    la, ca = b.kscope.field_arg(blist, "block_list"), b.kscope.field_arg(bcount, "block_count")
    p = c.parent()
    assert p is not None
    path = [s for s in p.path() if s.kind != "root"]
    cnt = b.new_local("blocks", i32)
    mx = b.new_local("longest", i32)
    cref, mref = ir.LocalRef(cnt), ir.LocalRef(mx)

    def entry(coords: dict) -> list:
        cell = _cell(p, coords)
        out: list = [ir.Store(la, (cref, _c(d)), e) for d, e in enumerate(cell)]
        out.append(ir.Assign(cnt, _bin("+", cref, _c(1))))
        if c.kind == "dynamic":  # an empty list is no block
            n = ir.Load(b.mask_arr(c), cell)
            out = [ir.If(ir.Compare(">", n, _c(0), u1), out + [ir.Assign(mx, _bin("max", mref, n))], [])]
        return out

    def level(i: int, coords: dict) -> list:
        if i == len(path):
            return entry(coords)
        s = path[i]
        axes = sorted(s.splits)

        def nest(k: int, here: dict) -> list:
            if k == len(axes):
                inner = level(i + 1, here)
                if s.kind in ("pointer", "bitmasked"):
                    on = ir.Compare("!=", ir.Load(b.mask_arr(s), _cell(s, here)), _c(0), u1)
                    inner = [ir.If(on, inner, [])]
                return inner
            a, n = axes[k], s.splits[axes[k]]
            hi: ir.Expr = _c(n)
            if s.kind == "dynamic":  # a list above `c`: its length, at most its capacity
                owner = s.parent()
                assert owner is not None
                hi = _bin("min", ir.Load(b.mask_arr(s), _cell(owner, coords)), hi)

            def body(v):
                nxt = dict(here)
                nxt[a] = _bin("+", _bin("*", here[a], _c(n)), v) if a in here else v
                return nest(k + 1, nxt)
            return _counted_loop(b, f"lg{i}_{a}", hi, body)
        return nest(0, coords)

    out: list = [ir.Assign(cnt, _c(0)), ir.Assign(mx, _c(0))] + level(0, {})
    per = mref if c.kind == "dynamic" else _c(max(1, math.prod(c.splits.values())))
    total = _bin("min", _bin("*", ir.Cast(cref, i64), ir.Cast(per, i64), i64), ir.Const(I32_MAX, i64), i64)
    out += [ir.Store(ca, (_c(0),), cref), ir.Store(ca, (_c(1),), _bin("max", per, _c(1))),
            ir.Store(ca, (_c(2),), ir.Cast(total, i32))]
    return out


def struct_for(b, c: SNode, t: ir.Expr) -> tuple[list, dict, ir.Expr | None]:
    """For index `t` of the parallel task over `c`'s listed cells: (statements computing the cell,
    its storage index per axis of `c`, the guard of `c`'s own activity or None)."""
    blist, bcount = buffers(c)
    la, ca = b.kscope.field_arg(blist, "block_list"), b.kscope.field_arg(bcount, "block_count")
    p = c.parent()
    assert p is not None
    per = b.new_local("per_block", i32)
    blk, loc = b.new_local("block", i32), b.new_local("in_block", i32)
    pref = ir.LocalRef(per)
    pre: list = [ir.Assign(per, ir.Load(ca, (_c(1),)) if c.kind == "dynamic"
                           else _c(max(1, math.prod(c.splits.values())))),
                 ir.Assign(blk, _bin("//", t, pref)), ir.Assign(loc, _bin("%", t, pref))]
    up: dict = {}
    for d, a in enumerate(p.split_axes):
        v = b.new_local(f"block_{a}", i32)
        pre.append(ir.Assign(v, ir.Load(la, (ir.LocalRef(blk), _c(d)))))
        up[a] = ir.LocalRef(v)
    local: dict = {}
    rem: ir.Expr = ir.LocalRef(loc)
    axes = sorted(c.splits)
    for k, a in enumerate(axes):  # row-major inside the block: the first axis slowest
        stride = math.prod(c.splits[x] for x in axes[k + 1:])
        local[a] = rem if k == 0 and c.kind == "dynamic" else \
            _bin("%", _bin("//", rem, _c(stride)), _c(c.splits[a])) if stride > 1 else \
            _bin("%", rem, _c(c.splits[a]))
    coords = {a: (_bin("+", _bin("*", up[a], _c(c.splits[a])), local[a]) if a in up and a in local
                  else up[a] if a in up else local[a]) for a in c.split_axes}
    guard: ir.Expr | None = None
    if c.kind == "dynamic":  # below the list's length (and the cells stored for it, snode.py: stored_shape)
        n = ir.Load(b.mask_arr(c), _cell(p, up))
        if c.stored_capacity is not None:
            n = _bin("min", n, _c(c.stored_capacity))
        guard = ir.Compare("<", local[axes[0]], n, u1)
    elif c.kind in ("pointer", "bitmasked"):
        guard = ir.Compare("!=", ir.Load(b.mask_arr(c), _cell(c, coords)), _c(0), u1)
    return pre, coords, guard


def count_arg(b, c: SNode) -> ir.ArrayArg:
    return b.kscope.field_arg(buffers(c)[1], "block_count")
