"""Entry point of the frozen app: the launcher's `main` (no arguments opens the window on the bundled demo).

PyInstaller needs a script, not a console_scripts entry; multiprocessing's freeze_support lets the
spawned compile-pool and device-worker processes start from the frozen executable.

In a frozen app `sys.executable` is the app itself, not a Python, yet the code starts children as
`[sys.executable, "-c", CODE]` (the CUDA probe, the isolated compile of a task that aborts LLVM) and
`[sys.executable, SCRIPT.py, ...]` (the Quadrants children, bundled as source). `as_python` makes
the app answer those as the interpreter would, so every child starts the same frozen or not;
anything else goes to the CLI.
"""
import multiprocessing
import runpy
import sys
from pathlib import Path


def _bundle() -> Path:
    """The folder whose scripts the app may run: the unpacked bundle, or this checkout when not frozen."""
    return Path(getattr(sys, "_MEIPASS", Path(__file__).resolve().parents[1])).resolve()


# Interpreter options a child may be started with that change nothing a frozen app can honour, or
# that it honours here (-u: unbuffered). Ray starts its log monitor, dashboard agent and autoscaler
# as `python -u SCRIPT.py ...` and its workers as `python setup_worker.py [-S|-s] default_worker.py ...`.
_FLAGS = {"-u", "-S", "-s", "-B", "-E"}


def as_python(argv: list[str]) -> bool:
    """Run `argv` as `python [-u] -c CODE ARGS` or `python [-u] SCRIPT.py ARGS` would (True), else False.
    Only scripts inside the bundle run this way: a project file given to the CLI is never executed
    by its name alone."""
    flags = 0
    while len(argv) > flags + 1 and argv[flags + 1] in _FLAGS:
        flags += 1
    if flags:
        if "-u" in argv[1:flags + 1]:
            for stream in (sys.stdout, sys.stderr):
                stream.reconfigure(write_through=True)
        return as_python([argv[0], *argv[flags + 1:]])
    if len(argv) >= 3 and argv[1] == "-c":
        sys.argv = ["-c", *argv[3:]]
        exec(compile(argv[2], "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})  # noqa: S102
        return True
    if len(argv) >= 2 and argv[1].endswith(".py"):
        script = Path(argv[1]).resolve()
        if script.is_file() and script.is_relative_to(_bundle()):
            sys.argv = [str(script), *argv[2:]]
            runpy.run_path(str(script), run_name="__main__")
            return True
    return False


if __name__ == "__main__":
    multiprocessing.freeze_support()
    if as_python(sys.argv):
        sys.exit(0)
    from qdexplorer.launcher import main
    sys.exit(main())
