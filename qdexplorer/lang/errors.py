"""Errors that point at the user's source, never at the compiler's own frames."""
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

    def __str__(self) -> str:
        head = f"{self.file}:{self.line}:{self.col + 1}: error: {self.message}"
        if self.source_line:
            text = self.source_line.rstrip("\n")
            stripped = text.lstrip()
            caret = " " * max(0, self.col - (len(text) - len(stripped)))
            return f"{head}\n    {stripped}\n    {caret}^"
        return head

    def __reduce__(self):
        return (QdCompileError, (self.message, self.file, self.line, self.col, self.source_line))


class QdRuntimeError(QdError):
    """A launch, load or check failure, reported against the task or workload that caused it."""
