"""Two PTX edits with a known effect on the counters, for checking that the counters see edits.

`double_global_loads`: before each global load, a volatile load of the same address, whose value
is AND-ed into the original's (the same bits, so the task's results do not change; the volatile
load can be neither merged with the other nor removed, which a dead or plain duplicate load is:
ptxas drops both). The original becomes `ld.global.cg` (cached in L2 only): on the H200 a plain
or `.nc` load after the volatile one was served by L1, and L2 saw the same bytes as before (seen:
+40960 warp instructions, L2 bytes read ×1.00). So both loads reach L2: the L2 bytes read double. `noop_edit`: a
comment, which changes the text (and so the cache key) but not the code.
"""
from __future__ import annotations

import re

_LOAD = re.compile(r"^(\s*)ld\.global(?:\.nc)?(\.v[24])?\.(b32|u32|s32|f32)\s+(\{[^}]*\}|%\w+)\s*,\s*(\[[^\]]+\])\s*;")


def double_global_loads(ptx: str) -> str:
    out, n = [], 0
    for line in ptx.splitlines():
        m = _LOAD.match(line)
        if not m:
            out.append(line)
            continue
        indent, vec, _ty, dst, addr = m.groups()
        regs = [r.strip() for r in dst.strip("{}").split(",")]
        tmp = [f"%qdxdbl{n + i}" for i in range(len(regs))]
        n += len(regs)
        tdst = "{" + ", ".join(tmp) + "}" if vec else tmp[0]
        out.append(f"{indent}ld.volatile.global{vec or ''}.b32 \t{tdst}, {addr};")
        out.append(f"{indent}ld.global.cg{vec or ''}.{_ty} \t{dst}, {addr};")
        out += [f"{indent}and.b32 \t{r}, {r}, {t};" for r, t in zip(regs, tmp)]
    if not n:
        raise ValueError("no 32-bit global load to double in this PTX")
    text = "\n".join(out) + "\n"
    # declare the temporaries at the top of each function body
    return re.sub(r"(\)\s*\n\{\n)", lambda m: m.group(1) + f"\t.reg .b32 \t%qdxdbl<{n}>;\n", text, count=0)


def noop_edit(ptx: str) -> str:
    return ptx.replace("{\n", "{\n\t// a no-op edit: the same code\n", 1)
