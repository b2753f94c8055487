"""Signature parity with Quadrants 1.3.3: every public callable's `inspect.signature`, theirs against ours.

    python benchmarks/signature_parity.py            # rewrites tests/lang/quadrants_signatures.json from real
                                                     # Quadrants, prints the differences that remain (JSON)
    python benchmarks/signature_parity.py --check    # exits 1 if the snapshot differs from what it would write

The callables are those `benchmarks/api_surface.py` walks (the top-level module, its submodules, the
methods of fields, ndarrays, matrices, vectors, structs, SNodes, type objects and kernels made under
`qd.init(arch=qd.cpu)`); Quadrants' side is kept as a snapshot (tests/lang/quadrants_signatures.json)
so that tests/lang/test_signature_parity.py compares ours without importing Quadrants.

Ours "accepts every call theirs accepts" when, for each of their parameters:
  - a positional one (positional-only or positional-or-keyword) is at the same place in ours, positional,
    under the same name when theirs may be passed by keyword;
  - a keyword one (positional-or-keyword or keyword-only) is a keyword name of ours;
  - one with a default has a default in ours;
  - their *args / **kwargs are ours too;
and ours has no required parameter that theirs lacks. Ours may have more (optional) parameters, and
a `**kwargs` of ours takes the place of their keyword only where theirs has one too, and a `*args`
of ours never takes the place of a named positional of theirs (a wrapper written `(*args, **kwargs)`
hides the names: a call by keyword fails, and it counts as a difference).
The differences that remain are listed with a reason in tests/lang/signature_exceptions.py.
"""
from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import os
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
SNAPSHOT = os.path.join(ROOT, "tests", "lang", "quadrants_signatures.json")
POSITIONAL = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")


def _api_surface():
    spec = importlib.util.spec_from_file_location("api_surface", os.path.join(ROOT, "benchmarks", "api_surface.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def describe(obj) -> list[list] | None:
    """[[name, kind, has_default], ...] of `inspect.signature(obj)`, or None where it has none
    (a C++ binding, a type object)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return [[p.name, p.kind.name, p.default is not inspect.Parameter.empty] for p in sig.parameters.values()]


def _callable_names(surface: str, obj, api) -> list[tuple[str, object]]:
    out = []
    klass = isinstance(obj, type)
    for n in api.public(obj):
        if api.SWIZZLE.match(n) or (klass and isinstance(inspect.getattr_static(obj, n, None), property)):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = getattr(obj, n)
        except Exception:  # noqa: BLE001 - a property that needs a device: not a callable here
            continue
        if api._is_foreign(value) or not callable(value) or api._internal(surface, value):
            continue
        if surface == "qd.lang":
            continue  # qd.lang's callables are the top-level ones (api_surface counts them once, under qd)
        out.append((n, value))
    return out


def extra_instances(qd) -> list[tuple[str, object]]:
    """Objects beyond api_surface's whose methods programs call: a struct value, SNodes of the other
    kinds, an ndarray annotation, a field's SNode."""
    s = qd.types.struct(a=qd.f32, b=qd.i32)
    f = qd.field(qd.f32)
    ptr = qd.root.pointer(qd.i, 4)
    ptr.dense(qd.j, 2).place(f)
    return [("struct", s(a=1.0, b=2)), ("snode_pointer", ptr), ("snode_bitmasked", qd.root.bitmasked(qd.i, 4)),
            ("ndarray_type", qd.types.ndarray(qd.f32, 1)), ("field_snode", f.snode)]


def snapshot() -> dict:
    """{"surface.name": signature or None} for every public callable of real Quadrants."""
    import quadrants as q
    q.init(arch=q.cpu)
    api = _api_surface()
    out: dict = {}
    for surface, obj in api.quadrants_surfaces(q) + extra_instances(q):
        for n, value in _callable_names(surface, obj, api):
            out[f"{surface}.{n}"] = describe(value)
    return dict(sorted(out.items()))


def our_surfaces(qd) -> dict:
    api = _api_surface()
    return dict([("qd", qd)] + [(f"qd.{m}", api._sub(qd, m)) for m in api.SUBMODULES] + api._instances(qd)
                + extra_instances(qd))


def _fmt(sig: list[list]) -> str:
    parts, star = [], False
    for name, kind, dflt in sig:
        if kind == "KEYWORD_ONLY" and not star:
            parts.append("*")
            star = True
        pre = {"VAR_POSITIONAL": "*", "VAR_KEYWORD": "**"}.get(kind, "")
        star = star or kind == "VAR_POSITIONAL"
        parts.append(pre + name + ("=…" if dflt else ""))
    return "(" + ", ".join(parts) + ")"


def differences(theirs: list[list], ours: list[list]) -> list[str]:
    """Why a call that `theirs` accepts may fail with `ours` (empty: ours accepts every such call)."""
    out = []
    t_pos = [p for p in theirs if p[1] in POSITIONAL]
    o_pos = [p for p in ours if p[1] in POSITIONAL]
    o_kw = {p[0]: p for p in ours if p[1] in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY")}
    t_var = {p[1] for p in theirs if p[1].startswith("VAR_")}
    o_var = {p[1] for p in ours if p[1].startswith("VAR_")}
    for i, (name, kind, dflt) in enumerate(t_pos):
        o = o_pos[i] if i < len(o_pos) else None
        if o is None:
            out.append(f"positional {i} `{name}` missing")
            continue
        if kind == "POSITIONAL_OR_KEYWORD" and o[0] != name:
            out.append(f"positional {i} is `{o[0]}`, theirs `{name}`")
        if dflt and not o[2]:
            out.append(f"`{o[0]}` has no default")
    for name, kind, dflt in theirs:
        if kind == "KEYWORD_ONLY" or (kind == "POSITIONAL_OR_KEYWORD" and name not in o_kw):
            o = o_kw.get(name)
            if o is None:
                if "VAR_KEYWORD" not in o_var or "VAR_KEYWORD" not in t_var:
                    out.append(f"keyword `{name}` missing")
            elif dflt and not o[2]:
                out.append(f"`{name}` has no default")
    for v in t_var - o_var:
        out.append(f"no {'*args' if v == 'VAR_POSITIONAL' else '**kwargs'}")
    t_names = {p[0] for p in theirs}
    t_npos = len(t_pos)
    for i, (name, kind, dflt) in enumerate(ours):
        if dflt or kind.startswith("VAR_"):
            continue
        if kind in POSITIONAL and o_pos.index([name, kind, dflt]) < t_npos:
            continue
        if kind == "KEYWORD_ONLY" and name in t_names:
            continue
        out.append(f"`{name}` required (theirs has no such parameter)")
    return sorted(set(out), key=out.index)


def compare(snap: dict, ours: dict, refused) -> dict:
    """{"compared": n, "no_signature": [...], "refused": [...], "diffs": {name: (theirs, ours, [why])}}."""
    res: dict = {"compared": 0, "no_signature": [], "refused": [], "missing": [], "diffs": {}}
    for full, theirs in snap.items():
        surface, name = full.rsplit(".", 1)
        if full in refused or any(full.startswith(p + ".") for p in refused) or \
                (surface == "qd.lang" and f"qd.{name}" in refused):
            res["refused"].append(full)
            continue
        obj = ours.get(surface)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = getattr(obj, name)
        except Exception:  # noqa: BLE001 - api_surface reports names that do not resolve
            res["missing"].append(full)
            continue
        if theirs is None:
            res["no_signature"].append(full)
            continue
        mine = describe(value)
        res["compared"] += 1
        if mine is None:
            res["diffs"][full] = (_fmt(theirs), "(no signature)", ["ours has no signature"])
            continue
        why = differences(theirs, mine)
        if why:
            res["diffs"][full] = (_fmt(theirs), _fmt(mine), why)
    return res


def load_snapshot() -> dict:
    with open(SNAPSHOT) as f:
        return json.load(f)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--diffs", action="store_true", help="print ours against the snapshot instead")
    a = ap.parse_args()
    if a.diffs:
        import qdexplorer.lang as qd
        from qdexplorer.lang.compat import surface as compat
        qd.init(arch=qd.cpu)
        res = compare(load_snapshot(), our_surfaces(qd), compat.REFUSED)
        print(json.dumps({k: (v if k != "diffs" else {n: list(d) for n, d in v.items()}) for k, v in res.items()},
                         indent=1))
        return 0
    snap = snapshot()
    text = json.dumps(snap, indent=0) + "\n"
    if a.check:
        with open(SNAPSHOT) as f:
            same = f.read() == text
        print(json.dumps({"up_to_date": same, "callables": len(snap)}))
        return 0 if same else 1
    with open(SNAPSHOT, "w") as f:
        f.write(text)
    print(json.dumps({"callables": len(snap), "with_signature": sum(1 for v in snap.values() if v is not None)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
