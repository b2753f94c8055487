"""Reading a Quadrants dump folder (`QD_DUMP_IR=1`, `debug_dump_path`) into kernels, tasks and stages.

Quadrants 1.3.3 writes, per kernel instance `<func>_c<counter>_<instance>`, one file per CHI IR
stage (`<kernel>_from_ast.ll`, `_quadrants1`, `_before_simplify_I`, `_after_simplify_I`,
`_after_offload`, `_after_simplify_III`: the order of `compile_to_offloads.cpp`), and per
offloaded task `<kernel>_kernel_<i>_[<loop_name>_]<type>_llvm.ll`; on CUDA also
`<task>_before_ptx.ll` and `<task>.ptx`. `struct_<n>_llvm.ll` (the SNode tree) belongs to no kernel.
"""
from __future__ import annotations

import re
from pathlib import Path

from .model import QuadrantsKernel, QuadrantsTask

STAGE_ORDER = ["from_ast", "quadrants1", "before_simplify_I", "after_simplify_I", "after_offload",
               "after_simplify_III"]
TASK_TYPES = ["range_for", "struct_for", "mesh_for", "serial", "listgen", "gc_rc", "gc"]
TASK_SUFFIXES = {"_before_ptx.ll": "before_ptx", "_llvm.ll": "llvm", ".ptx": "ptx"}
_KERNEL = re.compile(r"^(?P<func>.+?)_c(?P<counter>\d+)_(?P<instance>\d+)_(?P<tail>.+)$")
_TASK = re.compile(r"^kernel_(?P<index>\d+)_(?P<rest>.+)$")


def split_task(rest: str) -> tuple[str, str]:
    """'bounce_range_for' -> ('bounce', 'range_for')."""
    for ty in TASK_TYPES:
        if rest == ty:
            return "", ty
        if rest.endswith("_" + ty):
            return rest[: -len(ty) - 1], ty
    return "", rest


def stable_task_name(func: str, instance: int, index: int, rest: str) -> str:
    """Quadrants' task name without its per-process kernel counter, so it survives added kernels."""
    return f"{func}{f'_i{instance}' if instance else ''}_kernel_{index}_{rest}"


def parse_dump(folder: str | Path, known: list[dict] | None = None) -> list[QuadrantsKernel]:
    """Kernels with their stages and tasks, in kernel-counter order. `known`: the child's kernel records
    (func, counter, file, line, internal); kernels it did not see were defined when Quadrants was
    imported, before the program ran, so they are Quadrants' own."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    by_counter = {k["counter"]: k for k in known or []}
    kernels: dict[str, QuadrantsKernel] = {}
    extra_stages: dict[str, list] = {}
    for p in sorted(folder.iterdir()):
        if not p.is_file():
            continue
        m = _KERNEL.match(p.name)
        if m is None:
            continue
        func, counter, instance, tail = m["func"], int(m["counter"]), int(m["instance"]), m["tail"]
        kname = f"{func}_c{counter}_{instance}"
        k = kernels.get(kname)
        if k is None:
            rec = by_counter.get(counter)
            k = kernels[kname] = QuadrantsKernel(kname, func, counter, instance,
                                                 rec["file"] if rec else "", rec["line"] if rec else 0,
                                                 internal=rec["internal"] if rec else known is not None)
        kind = next((kd for sfx, kd in TASK_SUFFIXES.items() if tail.endswith(sfx)), None)
        tm = _TASK.match(tail)
        if tm is not None and kind is not None:
            rest = tail[: -len(next(s for s, kd in TASK_SUFFIXES.items() if kd == kind))][len(f"kernel_{tm['index']}_"):]
            tname = f"{kname}_kernel_{tm['index']}_{rest}"
            t = next((t for t in k.tasks if t.name == tname), None)
            if t is None:
                loop, ty = split_task(rest)
                t = QuadrantsTask(tname, kname, int(tm["index"]), ty, loop,
                                  stable_task_name(func, instance, int(tm["index"]), rest))
                k.tasks.append(t)
            t.files[kind] = str(p)
        elif p.suffix == ".ll":
            extra_stages.setdefault(kname, []).append((tail[:-3], p))
    for kname, stages in extra_stages.items():
        order = {s: i for i, s in enumerate(STAGE_ORDER)}
        stages.sort(key=lambda sp: (order.get(sp[0], len(order)), sp[1].stat().st_mtime_ns))
        kernels[kname].stages = [(s, str(p)) for s, p in stages]
    for k in kernels.values():
        k.tasks.sort(key=lambda t: t.index)
        _share_module_files(k)
    return sorted(kernels.values(), key=lambda k: (k.counter, k.instance))


def _share_module_files(kernel):
    """When one CUDA module holds several tasks (Quadrants' whole-module path names its dump after the
    first function), the other tasks point at that file too; an edit then replaces the whole module."""
    for kind, marker in (("ptx", ".entry {}("), ("before_ptx", "@{}(")):
        owners = [t for t in kernel.tasks if kind in t.files]
        for t in kernel.tasks:
            if kind in t.files:
                continue
            for o in owners:
                if marker.format(t.name) in Path(o.files[kind]).read_text(errors="replace"):
                    t.files[kind] = o.files[kind]
                    break


def offloaded_blocks(after_offload: str) -> list[str]:
    """The body text of each top-level `offloaded` statement of an `after_offload` dump, in task order."""
    blocks, cur, depth = [], None, 0
    for line in after_offload.splitlines():
        s = line.strip()
        if cur is None:
            if re.match(r"^\$\d+ = offloaded\b", s) and line.startswith("  $"):
                cur, depth = [line], 0
            continue
        cur.append(line)
        depth += s.count("{") - s.count("}")
        if depth == 0 and s == "}":
            blocks.append("\n".join(cur))
            cur = None
    return blocks


def is_bound_setup(block: str) -> bool:
    """A serial task that only computes loop bounds into Quadrants' global temporaries (`tmp(offset=..)`)
    for the next range_for: our own language computes those bounds at launch, so it has no such task."""
    if not re.match(r"^\s*\$\d+ = offloaded\s*$", block.splitlines()[0]):
        return False
    tmp_vars = set(re.findall(r"(\$\d+) = global tmp var", block))
    stores = re.findall(r"global store \[(\$\d+) <-", block)
    side_effects = re.search(r"\b(atomic|print|assert|external_func|rand)\b", block)
    return bool(stores) and all(s in tmp_vars for s in stores) and not side_effects
