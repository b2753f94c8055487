"""The one error codegen raises: the task cannot be expressed for the chosen target."""


class CodegenError(Exception):
    """Codegen cannot express this task for the chosen target (reported against the task)."""
