"""Every place the package writes a file or folder, or hands a path to another program to write
into, goes through the one guard, compiler/safe_files (issue 41). The test reads the package's
source (AST) and fails on a write primitive whose function calls no guard first, unless it is
listed below with the reason it needs none."""
from __future__ import annotations

import ast
from pathlib import Path

import qdexplorer

PACKAGE = Path(qdexplorer.__file__).parent
GUARD_MODULE = "compiler/safe_files.py"
# The guard's functions: calling one of them in a function is what makes its raw writes checked.
GUARDS = {"check_folder", "output_folder", "output_file", "write_file", "write_atomic", "copy_file",
          "private_temp_folder", "unlink_regular", "unsafe_owner"}
# Methods that write wherever their object points (Path.write_text, Path.mkdir...).
WRITE_METHODS = {"write_text", "write_bytes", "mkdir", "touch", "symlink_to", "hardlink_to", "rename", "replace"}
# module.function calls that write (or create) by name.
WRITE_CALLS = {("os", "replace"), ("os", "rename"), ("os", "makedirs"), ("os", "mkdir"), ("os", "symlink"),
               ("os", "link"), ("os", "mkfifo"), ("shutil", "copy"), ("shutil", "copy2"), ("shutil", "copyfile"),
               ("shutil", "copytree"), ("shutil", "move"), ("sqlite3", "connect")}
# tempfile makes a fresh file or folder (O_EXCL, 0600/0700): safe where it picks the folder itself.
TEMPFILE = {"mkstemp", "mkdtemp", "NamedTemporaryFile", "TemporaryDirectory", "TemporaryFile"}
# Options that make another program write to the path that follows.
OUTPUT_FLAGS = {"-o", "--output", "--export", "--dump", "--temp-dir", "--distpath", "--workpath", "--log-file"}
OUTPUT_KWARGS = {"_temp_dir", "temp_dir", "debug_dump_path"}

# "path:function" -> why it needs no guard. Keep it short: a new entry needs a reason a reviewer accepts.
ALLOWED = {
    "lang/tools/np2ply.py:print_header": "Quadrants' PLY writer (qd.tools.PLYWriter): writes where the user's own "
                                         "script says, as Quadrants does (lang/ sits below compiler/)",
    "lang/tools/np2ply.py:export": "as print_header",
    "lang/tools/np2ply.py:export_ascii": "as print_header",
    "quadrants/child.py:write": "runs in the Quadrants child: a mkstemp beside the result path, in the private "
                                "folder the parent made (program.run_program), renamed over it",
    "quadrants/child.py:init": "the child hands Quadrants the dump folder the parent checked (output_folder in "
                               "program.run_program) as debug_dump_path",
    "runtime/shared_arrays.py:create": "mkstemp (O_EXCL, 0600, a random name) in /dev/shm or the temp folder; "
                                       "runtime/ sits beside compiler/ and cannot import the guard",
}


def _mode_writes(call: ast.Call) -> bool:
    mode = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
    if mode is None:
        return False
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return any(c in mode.value for c in "wax+")
    return True   # a computed mode: assume it writes


def write_sites(tree: ast.AST):
    """(function name, line, what) for each raw write in `tree`, and the set of functions calling a guard."""
    sites, guarded = [], set()

    class V(ast.NodeVisitor):
        def __init__(self):
            self.stack = ["<module>"]

        def visit_FunctionDef(self, node):
            self.stack.append(node.name)
            self.generic_visit(node)
            self.stack.pop()

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_Call(self, node):
            fn, f = self.stack[-1], node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
            owner = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else None
            if name in GUARDS:
                guarded.add(fn)
            what = None
            if name == "open" and owner in (None, "io", "builtins") and _mode_writes(node):
                what = "open(..., write mode)"
            elif name == "open" and owner == "os" and any(
                    isinstance(n, ast.Attribute) and n.attr in ("O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC")
                    for n in ast.walk(node)):
                what = "os.open(for writing)"
            elif (owner, name) == ("sqlite3", "connect") and node.args and isinstance(node.args[0], ast.Constant) \
                    and node.args[0].value == ":memory:":
                pass   # a database in memory writes no file
            elif (owner, name) in WRITE_CALLS:
                what = f"{owner}.{name}"
            elif name in TEMPFILE and owner in ("tempfile", None):
                if any(k.arg == "dir" for k in node.keywords):
                    what = f"tempfile.{name}(dir=...)"
            elif isinstance(f, ast.Attribute) and name in WRITE_METHODS and owner not in ("os", "shutil", "str", "dataclasses", "copy") \
                    and not (name in ("replace", "rename") and (len(node.args) != 1 or node.keywords
                                                           or isinstance(node.args[0], ast.Starred))):  # str.replace
                what = f".{name}()"
            if any(k.arg in OUTPUT_KWARGS for k in node.keywords):
                what = "an output folder handed to another program"
            if what:
                sites.append((fn, node.lineno, what))
            self.generic_visit(node)

        def visit_List(self, node):
            for el in node.elts:
                if isinstance(el, ast.Constant) and el.value in OUTPUT_FLAGS:
                    sites.append((self.stack[-1], node.lineno, f"{el.value} handed to another program"))
            self.generic_visit(node)

        def visit_Dict(self, node):
            for k in node.keys:
                if isinstance(k, ast.Constant) and k.value in OUTPUT_KWARGS:
                    sites.append((self.stack[-1], node.lineno, f"{k.value!r} handed to another program"))
            self.generic_visit(node)

    V().visit(tree)
    return sites, guarded


def unguarded(root: Path = PACKAGE) -> list[str]:
    bad = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel == GUARD_MODULE:
            continue
        sites, guarded = write_sites(ast.parse(path.read_text(encoding="utf-8"), rel))
        for fn, line, what in sites:
            if fn not in guarded and f"{rel}:{fn}" not in ALLOWED:
                bad.append(f"{rel}:{line} {fn}: {what}")
    return bad


def test_every_write_site_goes_through_the_guard():
    bad = unguarded()
    assert not bad, "write sites that bypass compiler/safe_files:\n" + "\n".join(bad)


def test_the_scan_finds_each_kind_of_write(tmp_path):
    src = '''
import os, shutil, sqlite3, subprocess, tempfile
def a(p): open(p, "w").write("x")
def b(p): p.write_text("x")
def c(p, q): shutil.copyfile(p, q)
def d(p, q): os.replace(p, q)
def e(p): sqlite3.connect(p)
def f(p): p.mkdir()
def g(p): subprocess.run(["ncu", "-o", str(p)])
def h(p): tempfile.mkstemp(dir=p)
def i(p): ray.init(_temp_dir=p)
def ok(p): check_folder(p); p.mkdir()
def fine(s): return s.replace("a", "b") + open(s).read()
'''
    (tmp_path / "m.py").write_text(src)
    found = {line.split()[1].rstrip(":") for line in unguarded(tmp_path)}
    assert found == set("abcdefghi")
    assert set(ALLOWED) <= {f"{p}:{fn}" for p in {k.split(":")[0] for k in ALLOWED}
                            for fn, *_ in write_sites(ast.parse((PACKAGE / p).read_text()))[0]}, \
        "an ALLOWED entry names no write site any more: remove it"
