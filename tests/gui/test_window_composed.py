"""The window is composed, not furnished from outside (napari's layer controls): helpers in gui/ and
its sub-packages build their widgets and actions and hand them back, and reach the window only through
the narrow `WindowServices` it gives them, whose members are parts (activity, messages, runs, project,
pages), not calls back into the window. None of them sets an attribute on the MainWindow, touches one of
its private members or walks through it to a part of a part (`win.views.ptx_panel`: the helper should
have been given the panel); only main_window.py (layout and wiring) does. The window stays a frame: at
most 35 methods."""
import ast
from pathlib import Path

GUI = Path(__file__).resolve().parents[2] / "qdexplorer" / "gui"
WINDOW_NAMES = {"win", "window", "main_window", "mainwindow"}


def _is_window(node) -> bool:
    """`win`, `window` (a parameter or local), or `self.win` / `self.window`."""
    if isinstance(node, ast.Name):
        return node.id.lower() in WINDOW_NAMES
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
        and node.attr.lower() in WINDOW_NAMES


def reaches_into_the_window(source: str, name: str = "<src>", chains: bool = True) -> list[str]:
    """`chains`: also refuse `win.a.b`, an attribute of one of the window's attributes."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            for el in (t.elts if isinstance(t, ast.Tuple) else [t]):
                if isinstance(el, ast.Attribute) and _is_window(el.value):
                    found.append(f"{name}:{node.lineno}: sets {ast.unparse(el)}")
        if isinstance(node, ast.Attribute) and _is_window(node.value) and node.attr.startswith("_") \
                and not node.attr.startswith("__"):
            found.append(f"{name}:{node.lineno}: reaches {ast.unparse(node)}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and node.args and _is_window(node.args[0]):
            found.append(f"{name}:{node.lineno}: setattr on {ast.unparse(node.args[0])}")
        if chains and isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) \
                and _is_window(node.value.value):
            found.append(f"{name}:{node.lineno}: walks through the window to {ast.unparse(node)}")
    return found


def test_the_check_sees_each_way_of_reaching_in():
    assert reaches_into_the_window("def f(win):\n    win.act = 1\n")
    assert reaches_into_the_window("def f(self):\n    self.win.engine_for = g\n")
    assert reaches_into_the_window("def f(self):\n    self.win._failed('x', e)\n")
    assert reaches_into_the_window("def f(window):\n    setattr(window, 'a', 1)\n")
    assert reaches_into_the_window("def f(win):\n    win.a, b = 1, 2\n")
    assert reaches_into_the_window("def f(win):\n    win.views.ptx_panel.validate()\n")
    assert reaches_into_the_window("def f(self):\n    return self.win.session.task_names()\n")
    assert reaches_into_the_window("def f(window):\n    x = window.plots.launches\n")
    assert not reaches_into_the_window("def f(win):\n    win.views.ptx_panel.validate()\n", chains=False)
    assert not reaches_into_the_window("def f(services):\n    services.messages.log('x')\n    x = services.bridge\n")
    assert not reaches_into_the_window("def f(self):\n    self.window.terminate()\n    self.win.show()\n")
    assert not reaches_into_the_window("def f(views):\n    views.ptx_panel.tabs.setCurrentIndex(1)\n")


# app.py builds the window and, for --screenshot, works it as a user would (compile, run, select the
# slowest task): it holds the window as the tests do, so it may walk through it; it still sets nothing
# on it and touches nothing private.
DRIVERS = {"app.py"}


def test_no_gui_helper_sets_an_attribute_on_or_reaches_into_the_main_window():
    found = []
    for path in sorted(GUI.rglob("*.py")):
        if path.name != "main_window.py":
            rel = str(path.relative_to(GUI))
            found += reaches_into_the_window(path.read_text(), rel, chains=rel not in DRIVERS)
    assert found == []


def test_the_window_is_a_frame_of_at_most_35_methods():
    tree = ast.parse((GUI / "main_window.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "MainWindow")
    methods = [n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    assert len(methods) <= 35, methods
