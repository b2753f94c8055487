"""The window is composed, not furnished from outside (napari's layer controls): helpers in gui/
build their widgets and actions and hand them back, and reach the window only through the narrow
`WindowServices` it gives them. None of them sets an attribute on the MainWindow or touches one of
its private members; only main_window.py (layout and wiring) does."""
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


def reaches_into_the_window(source: str, name: str = "<src>") -> list[str]:
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
    return found


def test_the_check_sees_each_way_of_reaching_in():
    assert reaches_into_the_window("def f(win):\n    win.act = 1\n")
    assert reaches_into_the_window("def f(self):\n    self.win.engine_for = g\n")
    assert reaches_into_the_window("def f(self):\n    self.win._failed('x', e)\n")
    assert reaches_into_the_window("def f(window):\n    setattr(window, 'a', 1)\n")
    assert reaches_into_the_window("def f(win):\n    win.a, b = 1, 2\n")
    assert not reaches_into_the_window("def f(services):\n    services.log('x')\n    x = services.bridge\n")


def test_no_gui_helper_sets_an_attribute_on_or_reaches_into_the_main_window():
    found = []
    for path in sorted(GUI.glob("*.py")):
        if path.name != "main_window.py":
            found += reaches_into_the_window(path.read_text(), path.name)
    assert found == []
