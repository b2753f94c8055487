"""Errors that point at the user's source, never at the compiler's own frames.

Quadrants' users catch `qd.QuadrantsCompilationError`, `QuadrantsSyntaxError`, `QuadrantsTypeError`,
`QuadrantsRuntimeError` and the rest of that family; they are the same classes here (the compile
ones are `QdCompileError` and its subclasses), with the same Python bases (`SyntaxError`,
`TypeError`, ...), so a ported `pytest.raises(...)` keeps working.
"""
from __future__ import annotations


class QdError(Exception):
    """Base of every error qdexplorer reports to a user as one clear message."""


class QdCompileError(QdError):
    """A construct outside the kernel-language subset, or a type error, at file:line:col."""

    def __init__(self, message: str, file: str = "<unknown>", line: int = 0, col: int = 0,
                 source_line: str = ""):
        self.message, self.file, self.line, self.col = message, file, line, col
        self.source_line = source_line
        super().__init__(str(self))

    trace = ""  # Quadrants' form of where it happened: `File "f.py", line 7, in foo:` with the line and carets,
    # one block per function the kernel went through (frontend/base/diagnostics.py); then the message again

    def __str__(self) -> str:
        head = f"{self.file}:{self.line}:{self.col + 1}: error: {self.message}"
        if self.trace:
            return f"{head}\n{self.trace}{self.message}"
        if self.source_line:
            text = self.source_line.rstrip("\n")
            stripped = text.lstrip()
            caret = " " * max(0, self.col - (len(text) - len(stripped)))
            return f"{head}\n    {stripped}\n    {caret}^"
        return head

    def __reduce__(self):
        return (type(self), (self.message, self.file, self.line, self.col, self.source_line))


class QdRuntimeError(QdError, RuntimeError):
    """A launch, load or check failure, reported against the task or workload that caused it (a
    `RuntimeError` too, as Quadrants' `QuadrantsRuntimeError` is)."""


# Quadrants' names (quadrants/lang/exception.py), with the same standard-library bases.
QuadrantsCompilationError = QdCompileError


class QuadrantsSyntaxError(QdCompileError, SyntaxError):
    """Code Quadrants refuses to compile: assigning to an argument, re-annotating a local, ..."""

    __str__ = QdCompileError.__str__


class QuadrantsNameError(QdCompileError, NameError):
    """A name that is not defined where the kernel uses it."""


class QuadrantsIndexError(QdCompileError, IndexError):
    """Indexing with the wrong number of indices."""


class QuadrantsTypeError(QdCompileError, TypeError):
    """An operation on the wrong type (`qd.floor` of an integer, a float index, ...)."""


QuadrantsRuntimeError = QdRuntimeError


class QuadrantsAssertionError(QdRuntimeError, AssertionError):
    """An `assert` in a kernel failed (debug mode)."""


class OutOfBoundsAccess(QuadrantsAssertionError, IndexError):
    """A field or ndarray element read or written from Python outside its index range: Quadrants'
    debug-mode `QuadrantsAssertionError` ("Accessing field ... with indices ..."), an `IndexError`
    too (without debug mode Quadrants reads or writes past the array; here it is always refused)."""


class QuadrantsRuntimeTypeError(QdRuntimeError, TypeError):
    """A kernel called with an argument of the wrong type."""


class QuadrantsArgumentError(QuadrantsSyntaxError, TypeError):
    """A kernel or func called with missing, extra or duplicated arguments. Quadrants raises a
    QuadrantsSyntaxError with the same words; it is a TypeError too, as Python's own binding error is."""

    __str__ = QdCompileError.__str__


class QuadrantsValueError(QdCompileError, ValueError):
    """A compile-time value of the wrong kind (a generator given as `*args` of qd.ndrange), where
    Quadrants raises a ValueError."""

    __str__ = QdCompileError.__str__
