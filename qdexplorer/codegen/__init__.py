"""Task IR → one self-contained llvmlite module per task and target."""
from .task_module import TaskModule, build_task_module, CodegenOptions  # noqa: F401
