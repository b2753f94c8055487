"""A user's program run as `__main__`, as `python SCRIPT ARGS` would run it, for both children:
`child.py` (under Quadrants) and `ours_child.py` (under qdexplorer.lang).

Standard library only, and imported by path from this folder (`child.py` may run under another
interpreter that has no qdexplorer). The `qdx_` prefix keeps it from shadowing a module of the
user's program, whose folder becomes `sys.path[0]`.
"""
import os
import runpy
import sys
import time
import traceback


def run_as_main(script: str, args: list, out: dict, child_file: str) -> None:
    """Fill `out` with `seconds`, `exit_code` and `error` (None, or the program's traceback from its
    own first frame: the frames of the child, of this file and of runpy are dropped)."""
    sys.argv = [script] + list(args)
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    ours = {os.path.abspath(child_file), os.path.abspath(__file__)}
    t0 = time.perf_counter()
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        code = e.code
        out["exit_code"] = code if isinstance(code, int) else (0 if code is None else 1)
        if out["exit_code"] and not isinstance(code, int):
            out["error"] = str(code)
    except BaseException as e:  # noqa: BLE001 - the program's own failure is the result
        keep = [f for f in traceback.extract_tb(e.__traceback__)
                if os.path.abspath(f.filename) not in ours and "runpy" not in os.path.basename(f.filename)]
        out["error"] = "".join(traceback.format_list(keep) + traceback.format_exception_only(type(e), e))
        out["exit_code"] = 1
    out["seconds"] = time.perf_counter() - t0
