"""Running a real Quadrants program with its dumps, `QUADRANTS_LOAD_PTX` / `QD_LOAD_IR` and its profiler.

Quadrants itself only ever runs in a child process (`child.py`); nothing here imports it, so the
app works without the `quadrants' extra and says how to install it when asked to run a program.
"""
from .model import SCHEMA_VERSION, QuadrantsKernel, QuadrantsRun, QuadrantsTask
from .program import run_program

__all__ = ["SCHEMA_VERSION", "QuadrantsKernel", "QuadrantsRun", "QuadrantsTask", "run_program"]
