"""Python AST of one task → Task IR. `TaskBuilder` (builder.py) combines one mixin per family of
constructs; `values.py` holds the value rules they share."""
from .builder import TaskBuilder  # noqa: F401
from .values import Py, ShapeTuple, Vec, cast, is_number, literal, py_value, truthy  # noqa: F401
