"""Two PTX edits with a known effect on the counters, for checking that the counters see edits.

`double_global_loads`: a second global load per element stored, of the very bytes the task is
about to overwrite, so each element costs two loads of distinct memory (for a copy: src, then
dst). The extra load is volatile (never merged, never served by L1) and feeds the stored value
through a compare with a NaN bit pattern the data does not hold, so the results do not change and
ptxas can remove nothing. What did not work, measured on the H200 (ncu 2025.3.1): a dead
volatile load (the JIT dropped it); a volatile load of the same address as the task's own load,
AND-ed into its value (both LDGs ran, +5 warp instructions per element, yet L2 saw the same
bytes, ×1.00: L1TEX merges the second request to a sector with the first still in flight).
`noop_edit`: a comment, which changes the text (and so the cache key) but not the code.
"""
from __future__ import annotations

import re

_STORE = re.compile(r"^(\s*)st\.global(\.v[24])?\.(b32|u32|s32|f32)\s+(\[[^\]]+\])\s*,\s*(\{[^}]*\}|%\w+)\s*;")
NEVER = "0x7fbfffff"   # a quiet-NaN payload the demo's data never holds


def double_global_loads(ptx: str) -> str:
    out, n, p = [], 0, 0
    for line in ptx.splitlines():
        m = _STORE.match(line)
        if not m:
            out.append(line)
            continue
        indent, vec, _ty, addr, vals = m.groups()
        regs = [r.strip() for r in vals.strip("{}").split(",")]
        tmp = [f"%qdxdbl{n + i}" for i in range(len(regs))]
        acc = f"%qdxdbl{n + len(regs)}"
        n += len(regs) + 1
        tdst = "{" + ", ".join(tmp) + "}" if vec else tmp[0]
        out.append(f"{indent}ld.volatile.global{vec or ''}.b32 \t{tdst}, {addr};")
        out.append(f"{indent}mov.b32 \t{acc}, {tmp[0]};")
        out += [f"{indent}or.b32 \t{acc}, {acc}, {t};" for t in tmp[1:]]
        out.append(f"{indent}setp.eq.b32 \t%qdxp{p}, {acc}, {NEVER};")
        out.append(f"{indent}@%qdxp{p} mov.b32 \t{regs[0]}, {acc};")
        out.append(line)
        p += 1
    if not n:
        raise ValueError("no 32-bit global store in this PTX to load the bytes of")
    text = "\n".join(out) + "\n"
    decl = f"\t.reg .b32 \t%qdxdbl<{n}>;\n\t.reg .pred \t%qdxp<{p}>;\n"
    return re.sub(r"(\)\s*\n\{\n)", lambda m: m.group(1) + decl, text)


def noop_edit(ptx: str) -> str:
    return ptx.replace("{\n", "{\n\t// a no-op edit: the same code\n", 1)
