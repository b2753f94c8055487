"""Docs and docstrings name only code that exists: a renamed module or function breaks this test,
not a reader's trust.

The convention (docs/architecture.md, "Naming code in prose"): code is named in backticks, in one
of these forms, and each form is checked:
- a file: `runtime/worker.py`, `qdexplorer/cli/arg_types.py`, `worker.py`: the tail of a file in
  the repository (a bare name: some file of that name), unless it is another project's (OTHERS);
  a data file (`.md`, `.png`, `.toml`...) only where it starts with a folder of the repository
  (`benchmarks/README.md`; a user's `qdexplorer.toml` is not ours), and a pattern with a
  placeholder (`icons/qdexplorer-N.png`) is not a name;
- a module path: `qdexplorer.lang.calls.bounds`, `qdexplorer.launcher.main`: importable, attribute included;
- a name in a module: `serve.serve_forever`, `runtime/cuda/mirror.DeviceMirror`,
  `lang.field.Storage`: the module (its dotted tail or path in the package) defines it; where the
  head is one word that is also an object's name (`tensor.cpu()`, `kernel.grad()`), a method of a
  class of the package will do;
- a method: `Engine.run()`, `Pipeline.optimised_ll(ct)`: a class of the package of that name
  defines it (a method, or an attribute it sets);
- the language: `qd.init()`, `qd.simt.block.sync()`: `qdexplorer.lang` has it, or the real
  Quadrants does (the docs name its API where ours refuses it), or the docs' shorthand for one of
  its names is listed (QUADRANTS_ONLY).
Anything else in backticks (a user's `saxpy()`, `np.asarray()`, a shell command) is not a name of
this code and is left alone.
"""
import ast
import importlib
import json
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from tests import _source_cache

ROOT = Path(__file__).resolve().parent.parent
TICKS = re.compile(r"`([^`\n]+)`")
# other projects' files and functions the docs compare us with
OTHERS = {"ops_cuda.py", "compiler.py", "qdexplorer_app.py", "x.py", "random.py", "triton_key",
          "cuda.bindings", "cuda.pathfinder", "cuda.core", "quadrants.math", "quadrants.lang", "tensor.contiguous"}
# Quadrants API the docs name as what this language does not have
QUADRANTS_ONLY = {"qd.block.sync"}
# a data file's name (a user's qdexplorer.toml, a screenshot): a file of the repository only with a folder of it
DATA = re.compile(r"[\w./-]+\.(toml|spec|sqlite|png|svg|json|csv|txt|ll|ptx|desktop|xml|sh|md|log)")
PLACEHOLDER = re.compile(r"(^|[-/_.])([A-Z]|NAME|TASK|DIR|OUTDIR|PATH)([-/_.(]|$)")   # a pattern of names, not one
QUADRANTS_FILES = ("quadrants/", "python/quadrants/")   # files of Quadrants' own tree
# Quadrants' own API, listed from Quadrants by benchmarks/api_surface.py: its names are Quadrants'
NOT_OURS = {"docs/compatibility.md"}
FOLDERS = ("qdexplorer/", "docs/", "benchmarks/", "packaging/", "tests/", "examples/", "resources/")


@pytest.fixture(autouse=True, scope="module")
def _one_parse_a_file():
    yield
    _source_cache.clear()


@cache
def _tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT, check=True).stdout.split()
    return [f for f in out if (ROOT / f).exists()] + [str(p.relative_to(ROOT)) for p in ROOT.glob("qdexplorer/**/*.py")]


def _sources():
    """(where, text) of every user doc and every docstring of the package."""
    for f in sorted(set(_tracked())):
        if f in NOT_OURS:
            continue
        if f.endswith(".md") and (f.startswith(("docs/", "benchmarks/", "packaging/")) or f == "README.md"):
            yield f, _source_cache.text(ROOT / f)
        elif f.startswith("qdexplorer/") and f.endswith(".py"):
            for node in ast.walk(_source_cache.tree(ROOT / f)):
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                    doc = ast.get_docstring(node, clean=False)
                    if doc:
                        yield f"{f}:{getattr(node, 'lineno', 1)}", doc


@cache
def _modules() -> dict[str, Path]:
    """Every module of the package by its dotted name below `qdexplorer` ('runtime.cuda.mirror')."""
    out = {}
    for p in (ROOT / "qdexplorer").rglob("*.py"):
        rel = p.relative_to(ROOT / "qdexplorer").with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        out[".".join(parts)] = p
    return out


@cache
def _defined(path: Path) -> frozenset[str]:
    """The names a module defines at its top level (imports included: it has them)."""
    names = set()
    for node in _source_cache.tree(path).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return frozenset(names)


@cache
def _classes() -> dict[str, set[str]]:
    """Every class of the package by name: the methods and attributes any class of that name has."""
    out: dict[str, set[str]] = {}
    for path in _modules().values():
        for node in ast.walk(_source_cache.tree(path)):
            if not isinstance(node, ast.ClassDef):
                continue
            members = out.setdefault(node.name, set())
            for item in ast.walk(node):
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    members.add(item.name)
                elif isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) and item.value.id == "self":
                    members.add(item.attr)
                elif isinstance(item, (ast.AnnAssign, ast.Assign)):
                    for t in item.targets if isinstance(item, ast.Assign) else [item.target]:
                        if isinstance(t, ast.Name):
                            members.add(t.id)
    return out


def _module_named(head: str) -> list[Path]:
    """Modules whose dotted name ends with `head` ('serve', 'cuda.mirror', 'runtime/cuda/mirror')."""
    head = head.replace("/", ".").removeprefix("qdexplorer.")
    return [p for name, p in _modules().items() if name == head or name.endswith("." + head)]


def _check_file(ref: str) -> str | None:
    if ref in OTHERS or PLACEHOLDER.search(ref) or ref.startswith(QUADRANTS_FILES):
        return None
    tail = ref.removeprefix("./")
    if any(f == tail or f.endswith("/" + tail) for f in _tracked()):
        return None
    return f"no file {ref}"


def _check_dotted(ref: str) -> str | None:
    parts = ref.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return f"{'.'.join(parts[:i])} has no {'.'.join(parts[i:])}"
            obj = getattr(obj, attr)
        return None
    return f"no module {ref}"


def _check_name(ref: str) -> str | None:
    """`module.Name[.member]` or `Class.member`; None also where the head names nothing of ours.
    An object named after its class (`kernel.grad()`, `snode.parent()`) may name the class's member."""
    if ref in OTHERS:
        return None
    head, _, rest = ref.rpartition(".")
    if "/" in head or head in _modules() or _module_named(head):
        mods = _module_named(head)
        if not mods:
            return f"no module {head}"
        if any(rest in _defined(p) for p in mods) or _module_named(f"{head}.{rest}"):
            return None
        if "." not in head and "/" not in head and any(rest in m for m in _classes().values()):
            return None   # an object that shares a module's name (`tensor.cpu()`, `kernel.grad()`): a method of ours
        return f"{head} defines no {rest}"
    cls, _, member = ref.partition(".")
    if "." not in member and cls in _classes():
        return None if member in _classes()[cls] else f"class {cls} has no {member}"
    if head in {m.rpartition(".")[2] for m in _modules()} or "/" in head:
        return f"no module {head}"
    return None


def _check_language(ref: str) -> str | None:
    if ref in QUADRANTS_ONLY:
        return None
    obj = importlib.import_module("qdexplorer.lang")
    for attr in ref.split(".")[1:]:
        if not hasattr(obj, attr):
            return f"qdexplorer.lang has no {ref.removeprefix('qd.')}"
        obj = getattr(obj, attr)
    return None


def check(ref: str) -> str | None:
    """What is wrong with one backticked reference, or None (also for what names no code of ours)."""
    ref = ref.strip()
    if PLACEHOLDER.search(ref) or ref.startswith(QUADRANTS_FILES):
        return None
    if re.fullmatch(r"[\w./-]+\.py", ref):
        return _check_file(ref)
    if DATA.fullmatch(ref):
        return _check_file(ref) if ref.startswith(FOLDERS) else None
    if re.search(r"\w/\.?\w", ref) and not re.fullmatch(r"[\w/]+\.\w+", ref):
        return None  # alternatives (`qd.min/qd.max`, `atomic_add/sub`), not one name
    name = re.fullmatch(r"([A-Za-z_][\w./]*)(\(.*\))?", ref)
    if name is None or name.group(1).endswith("."):
        return None
    dotted = name.group(1)
    if dotted.startswith("qdexplorer."):
        return _check_dotted(dotted)
    if dotted.startswith("qd."):
        return _check_language(dotted)
    if "." in dotted and not dotted.startswith(("/", ".")):
        return _check_name(dotted)
    return None


def test_the_checker_catches_each_form_of_a_wrong_name():
    for wrong in ("runtime/nowhere.py", "cli_args.py", "qdexplorer.bench.location", "serve.no_such_loop",
                  "runtime/cuda/mirror.NoMirror", "Engine.no_such_method()", "qd.no_such_builtin()"):
        assert check(wrong) is not None, wrong
    for right in ("runtime/worker.py", "qdexplorer/cli/arg_types.py", "qdexplorer.lang.calls.bounds", "serve.serve_forever",
                  "runtime/cuda/mirror.DeviceMirror", "Engine.run()", "qd.init()", "saxpy()", "np.asarray(x)"):
        assert check(right) is None, (right, check(right))


def _in_quadrants(refs: set[str]) -> set[str]:
    """Which `qd.X` names the real Quadrants has (the docs name its API where ours refuses it); all of
    them where Quadrants is not installed, as there is nothing to check them against. A child
    process: Quadrants is never imported into this one."""
    probe = ("import json, sys\ntry:\n    import quadrants as qd\nexcept ImportError:\n    print('null'); sys.exit()\n"
             "def has(ref):\n    obj = qd\n    for a in ref.split('.')[1:]:\n        try:\n            obj = getattr(obj, a)\n"
             "        except Exception:\n            return False\n    return True\n"
             "print(json.dumps([r for r in json.loads(sys.argv[1]) if has(r)]))\n")
    out = subprocess.run([sys.executable, "-c", probe, json.dumps(sorted(refs))], capture_output=True, text=True,
                         timeout=120)
    found = json.loads(out.stdout.strip().splitlines()[-1]) if out.stdout.strip() else None
    return set(refs) if found is None else set(found)


def test_every_doc_and_docstring_names_code_that_exists():
    wrong, language = [], {}
    for where, text in _sources():
        for ref in TICKS.findall(text):
            problem = check(ref)
            if problem and ref.strip().startswith("qd.") and "qdexplorer.lang has no" in problem:
                language.setdefault(re.match(r"[\w.]+", ref.strip()).group().rstrip("."), []).append(where)
            elif problem:
                wrong.append(f"{where}: `{ref}`: {problem}")
    theirs = _in_quadrants(set(language)) if language else set()
    wrong += [f"{where}: `{ref}`: neither qdexplorer.lang nor Quadrants has it"
              for ref, places in language.items() if ref not in theirs for where in places]
    assert wrong == [], "\n".join(wrong)
