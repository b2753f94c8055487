"""Walk Quadrants 1.3.3's public names and set them against qdexplorer.lang; write docs/compatibility.md.

    python benchmarks/api_surface.py            # writes docs/compatibility.md, prints the counts as JSON
    python benchmarks/api_surface.py --check    # exits 1 if docs/compatibility.md differs from what it would write

Surfaces: the top-level module, its submodules (math, ad, linalg, types, lang, algorithms, ...),
and the attributes of instances made after `qd.init(arch=qd.cpu)` in both implementations: scalar,
vector, matrix and struct fields, ndarrays, Python-scope matrices and vectors, the `qd.Matrix` and
`qd.Vector` classes, SNodes, type objects and kernels. A name is *supported* when it resolves on the
qdexplorer side and `qdexplorer.lang.compat.surface` has no note for it, *partial* when it has a note, and
*refused* when it is listed in `compat.REFUSED`, whose entries are the one-line errors programs get.
A name neither resolving nor listed is *unlisted*: a bug this script reports (and the test fails on).
Swizzle properties (`.xy`, `.rgba`, `.stpq`, ... of two or more letters) count as one entry per
surface; modules of Quadrants' own implementation that `qd.lang` exposes (its AST transformer,
`impl`, `kernel_impl`, ...) are listed apart as internals and not counted.
"""

import argparse
import inspect
import json
import os
import re
import sys
import types
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
DOC = os.path.join(ROOT, "docs", "compatibility.md")
SINGLE = re.compile(r"^[xyzwrgbastpq]$")
SWIZZLE = re.compile(r"^([xyzw]{2,4}|[rgba]{2,4}|[stpq]{2,4})$")
SUBMODULES = ["math", "ad", "linalg", "types", "lang", "algorithms", "simt", "profiler", "tools", "graph",
              "experimental", "sparse", "interop"]


def public(obj) -> list[str]:
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def _is_foreign(value) -> bool:
    """Names a module has from elsewhere, not API: `from __future__ import annotations`, typing's
    TYPE_CHECKING, standard-library modules."""
    if isinstance(value, types.ModuleType):
        return not value.__name__.startswith("quadrants")
    mod = type(value).__module__
    return mod == "__future__" or (isinstance(value, bool) and value is False)


def _internal(prefix: str, value) -> bool:
    """A module of Quadrants' own implementation, reachable as `qd.lang.<file>` (or `qd.types.<file>`)."""
    return (prefix in ("qd.lang", "qd.types", "qd.linalg", "qd.math", "qd.simt", "qd.sparse", "qd.profiler", "qd.tools")
            and isinstance(value, types.ModuleType) and value.__name__.startswith("quadrants"))


def quadrants_surfaces(q) -> list[tuple[str, object]]:
    """(surface name, the Quadrants object whose attributes are walked)."""
    import numpy as np  # noqa: F401
    out: list[tuple[str, object]] = [("qd", q)] + [(f"qd.{m}", getattr(q, m)) for m in SUBMODULES]
    out += _instances(q)
    return out


def _instances(qd) -> list[tuple[str, object]]:
    """The same objects made the same way in either implementation."""
    @qd.kernel
    def k(a: qd.types.ndarray()):
        pass
    return [
        ("field", qd.field(qd.f32, shape=4, needs_grad=True, needs_dual=True)),
        ("vector_field", qd.Vector.field(3, qd.f32, shape=4, needs_grad=True, needs_dual=True)),
        ("matrix_field", qd.Matrix.field(2, 2, qd.f32, shape=4, needs_grad=True, needs_dual=True)),
        ("struct_field", qd.Struct.field({"a": qd.f32}, shape=4, needs_grad=True, needs_dual=True)),
        ("ndarray", qd.ndarray(qd.f32, shape=4, needs_grad=True)),
        ("vector_ndarray", qd.Vector.ndarray(3, qd.f32, shape=4, needs_grad=True)),
        ("matrix_ndarray", qd.Matrix.ndarray(2, 2, qd.f32, shape=4, needs_grad=True)),
        ("matrix", qd.Matrix([[1.0, 2.0], [3.0, 4.0]])),
        ("vector", qd.Vector([1.0, 2.0, 3.0])),
        ("qd.Matrix", qd.Matrix),
        ("qd.Vector", qd.Vector),
        ("snode", qd.root.dense(qd.i, 4)),
        ("vector_type", qd.types.vector(3, qd.f32)),
        ("matrix_type", qd.types.matrix(2, 2, qd.f32)),
        ("struct_type", qd.types.struct(a=qd.f32)),
        ("kernel", k),
    ]


def _resolve(obj, name: str):
    """(ok, error text) for getattr(obj, name) on the qdexplorer side."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            getattr(obj, name)
        return True, ""
    except Exception as e:  # noqa: BLE001 - any failure is "does not resolve"
        return False, f"{type(e).__name__}: {e}"


def walk() -> dict:
    import quadrants as q
    q.init(arch=q.cpu, log_level="error") if "log_level" in q.init.__code__.co_varnames else q.init(arch=q.cpu)
    import qdexplorer.lang as qd
    from qdexplorer.lang.compat import surface as compat
    qd.init(arch=qd.cpu)
    ours = dict([("qd", qd)] + [(f"qd.{m}", _sub(qd, m)) for m in SUBMODULES] + _instances(qd))
    ours["vector4"] = qd.Vector([1.0, 2.0, 3.0, 4.0])
    rows, internals = [], []
    top = {id(getattr(q, n)) for n in public(q) if not isinstance(getattr(q, n), (int, float, str, bool))}
    reexports = 0
    for surface, qobj in quadrants_surfaces(q):
        eobj = ours.get(surface)
        names = public(qobj)
        swz = [n for n in names if SWIZZLE.match(n)]
        klass = isinstance(qobj, type)
        for n in names:
            if n in swz or (klass and isinstance(inspect.getattr_static(qobj, n, None), property)):
                continue  # on a class, properties are the instances' (walked with the instances)
            try:
                value = getattr(qobj, n)
            except Exception:  # noqa: BLE001 - a property that needs a device etc.: still a name
                value = None
            if _is_foreign(value):
                continue
            full = f"{surface}.{n}"
            if surface == "qd.lang" and id(value) in top and hasattr(q, n):
                reexports += 1  # the same object as `qd.<name>`: listed (and counted) once, there
                continue
            if full in compat.INTERNAL:
                internals.append((full, False))
                continue
            if _internal(surface, value) and full not in compat.REFUSED:
                ok, _ = _resolve(eobj, n) if eobj is not None else (False, "")
                internals.append((full, ok))
                continue
            like = ours["vector4"] if surface in ("matrix", "vector") and SINGLE.match(n) else eobj  # .w: 4 parts
            rows.append(_classify(full, like, n, compat))
        if swz and not klass:
            eobj = ours["vector4"]
            ok = all(_resolve(eobj, s)[0] for s in swz)
            full = f"{surface}.<swizzles>"
            status = "refused" if full in compat.REFUSED else "supported" if ok else "unlisted"
            rows.append((full, status, compat.PARTIAL.get(full, f"{len(swz)} names: .xy, .xyz, .rgba, .stpq, ...")))
    return {"rows": rows, "internals": internals, "lang_reexports": reexports, "signatures": _signatures(q, qd, compat),
            "syntax_known": _syntax_known()}


def _syntax_known() -> dict:
    """The syntax-parity differences that remain (tests/lang/test_syntax_parity.py's KNOWN), read from its text
    (importing it would import pytest)."""
    import ast as _ast
    path = os.path.join(ROOT, "tests", "lang", "test_syntax_parity.py")
    tree = _ast.parse(open(path).read())
    for node in tree.body:
        if isinstance(node, _ast.AnnAssign) and getattr(node.target, "id", "") == "KNOWN":
            return eval(compile(_ast.Expression(node.value), path, "eval"), {})  # noqa: S307 - our own test file
    return {}


def _signatures(q, qd, compat) -> dict:
    """benchmarks/signature_parity.py's comparison, against Quadrants read now (not the snapshot)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("signature_parity", os.path.join(ROOT, "benchmarks",
                                                                                   "signature_parity.py"))
    sp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sp)
    res = sp.compare(sp.snapshot(), sp.our_surfaces(qd), compat.REFUSED)
    from tests.lang.signature_exceptions import EXCEPTIONS, MISSING
    res["reasons"] = {k: EXCEPTIONS.get(k, "NOT LISTED in tests/lang/signature_exceptions.py") for k in res["diffs"]}
    res["missing_reasons"] = {k: MISSING.get(k, "NOT LISTED in tests/lang/signature_exceptions.py")
                              for k in res["missing"]}
    return res


def _sub(qd, m):
    try:
        return getattr(qd, m)
    except Exception:  # noqa: BLE001 - the whole submodule refused
        return None


def _classify(full: str, eobj, name: str, compat) -> tuple[str, str, str]:
    if full.startswith("qd.lang.") and "qd." + name in compat.REFUSED and full not in compat.REFUSED:
        full_key = "qd." + name  # qd.lang.X is refused as qd.X is
        return full, "refused", compat.REFUSED[full_key]
    parent_refused = any(full.startswith(p + ".") for p in compat.REFUSED)
    if full in compat.REFUSED or parent_refused:
        key = full if full in compat.REFUSED else next(p for p in compat.REFUSED if full.startswith(p + "."))
        return full, "refused", compat.REFUSED[key]
    ok, err = _resolve(eobj, name) if eobj is not None else (False, "no such surface")
    if not ok:
        return full, "unlisted", err.splitlines()[0][:160] if err else ""
    if full in compat.PARTIAL:
        return full, "partial", compat.PARTIAL[full]
    return full, "supported", ""


def render(result: dict) -> str:
    rows = result["rows"]
    counts = {s: sum(1 for r in rows if r[1] == s) for s in ("supported", "partial", "refused", "unlisted")}
    total = len(rows)
    lines = [
        "# Compatibility with Quadrants 1.3.3's public API",
        "",
        "Generated by `python benchmarks/api_surface.py` from real Quadrants 1.3.3 and",
        "`qdexplorer.lang.compat.surface`; do not edit by hand (`tests/lang/test_api_surface.py` checks it).",
        "",
        f"**{total} names: {counts['supported']} supported, {counts['partial']} partial, "
        f"{counts['refused']} refused ({100.0 * counts['refused'] / max(1, total):.1f}%)"
        + (f", {counts['unlisted']} unlisted" if counts["unlisted"] else "") + ".** "
        f"Counting the {len(result['internals'])} implementation names listed at the end as refused too: "
        f"{counts['refused'] + len(result['internals'])} of {total + len(result['internals'])} "
        f"({100.0 * (counts['refused'] + len(result['internals'])) / max(1, total + len(result['internals'])):.1f}%).",
        "",
        "A refused name fails where the program reaches for it, with one line: "
        "\"`qd.X` is not supported by qdexplorer.lang (file:line); what to do\".",
        "Swizzles (`.xy`, `.rgba`, ...) count once per surface. Instance surfaces are objects made the",
        "same way in both: `field` is `qd.field(qd.f32, shape=4, needs_grad=True, needs_dual=True)`,",
        "`vector_field` `qd.Vector.field(3, ...)`, `ndarray` `qd.ndarray(qd.f32, shape=4, needs_grad=True)`,",
        "`matrix` a Python-scope `qd.Matrix([[1, 2], [3, 4]])`, `snode` `qd.root.dense(qd.i, 4)`, ...",
        "",
    ]
    surface_of = {}
    for r in rows:
        surface_of.setdefault(r[0].rsplit(".", 1)[0] if not r[0].endswith("<swizzles>") else r[0][:-len(".<swizzles>")],
                              []).append(r)
    for surface, rs in surface_of.items():
        lines += [f"## `{surface}`", "", "| name | status | notes |", "| --- | --- | --- |"]
        for full, status, note in rs:
            lines.append(f"| `{full}` | {status} | {note.replace('|', '/')} |")
        lines.append("")
    lines += [f"`qd.lang` also re-exports {result['lang_reexports']} of the top-level names (the same objects); "
              "`qdexplorer.lang.lang` resolves them the same way, and they are counted once, under `qd`.", ""]
    sig = result.get("signatures")
    if sig:
        lines += ["## Signatures", "",
                  f"`inspect.signature` of each public callable, Quadrants' against ours "
                  f"(`benchmarks/signature_parity.py`, checked by `tests/lang/test_signature_parity.py`): "
                  f"**{sig['compared']} compared, {sig['compared'] - len(sig['diffs'])} accept every call that "
                  f"Quadrants' accepts** (same positional parameters in the same order, same keyword names, "
                  f"defaults where Quadrants has them; ours may take more), {len(sig['diffs'])} differ as listed "
                  f"below; {len(sig['no_signature'])} have no Python signature in Quadrants (C++ bindings, type "
                  f"objects) and {len(sig['refused'])} are refused names.", "",
                  "| callable | Quadrants | qdexplorer | why |", "| --- | --- | --- | --- |"]
        for k, (theirs, ours, _why) in sorted(sig["diffs"].items()):
            lines.append(f"| `{k}` | `{theirs}` | `{ours}` | {sig['reasons'][k].replace('|', '/')} |")
        for k, why in sorted(sig.get("missing_reasons", {}).items()):
            lines.append(f"| `{k}` | (a callable) | (none) | {why.replace('|', '/')} |")
        lines.append("")
    known = result.get("syntax_known")
    if known:
        lines += ["## Kernel syntax", "",
                  "`tests/lang/test_syntax_parity.py` runs each case of `tests/lang/syntax_cases.py` (one construct of "
                  "Quadrants' front end each: its AST transformer's `build_*` methods and their branches, and generated "
                  "families over every operator and operand type) under real Quadrants 1.3.3 and under qdexplorer.lang; "
                  "they agree (the same values and printed text, or both refuse) except for these:", "",
                  "| case | why |", "| --- | --- |"]
        lines += [f"| `{k}` | {v.replace('|', '/')} |" for k, v in sorted(known.items())]
        lines.append("")
    if result["internals"]:
        lines += ["## Quadrants' implementation, not counted", "",
                  "Modules of Quadrants' own implementation that its namespaces expose, and hooks its runtime",
                  "calls on instances (argument packing, C++ pointers, expression handles); programs do not",
                  "use them; qdexplorer answers each with a one-line error naming it and the program's line:", "",
                  ", ".join(f"`{n}`" for n, _ in result["internals"]), ""]
    return "\n".join(lines)


def counts(result: dict) -> dict:
    rows = result["rows"]
    c = {s: sum(1 for r in rows if r[1] == s) for s in ("supported", "partial", "refused", "unlisted")}
    c["total"] = len(rows)
    c["refused_pct"] = round(100.0 * c["refused"] / max(1, len(rows)), 2)
    c["internal_not_counted"] = len(result["internals"])
    c["qd_lang_reexports_counted_once"] = result["lang_reexports"]
    c["unlisted_names"] = [r[0] for r in rows if r[1] == "unlisted"]
    return c


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with docs/compatibility.md instead of writing it")
    ap.add_argument("--out", default=DOC)
    args = ap.parse_args()
    result = walk()
    text = render(result)
    if args.check:
        with open(args.out) as f:
            same = f.read() == text
        print(json.dumps({"up_to_date": same, **counts(result)}, indent=1))
        return 0 if same else 1
    with open(args.out, "w") as f:
        f.write(text)
    print(json.dumps(counts(result), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
