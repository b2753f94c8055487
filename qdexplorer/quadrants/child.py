"""Runs inside the child interpreter: a Quadrants program with dumps on, caches off, profiler on.

This file is executed by path (`python child.py ...`), never imported by the app: it needs only
the standard library and Quadrants, so it also works under another interpreter (`--python`). It
forces the `qd.init` settings that make dumps and `QUADRANTS_LOAD_PTX` / `QD_LOAD_IR` trustworthy
(Quadrants lets `qd.init` arguments win over environment variables, so a program that passes
`offline_cache=True` would otherwise hide its kernels), records every kernel's source location,
keeps the profiler's per-launch records even when the program clears them or resets, and writes
one JSON result file whatever happens to the program.
"""
import importlib
import json
import os
import sys
import tempfile

from qdx_run_main import run_as_main  # beside this file: sys.path[0] while it starts

RESULT_VERSION = 1


def main(argv):
    result_path, arch, dump_dir, script, args = argv[0], argv[1], argv[2], argv[3], argv[4:]
    out = {"version": RESULT_VERSION, "script": script, "args": args, "error": None, "exit_code": 0,
           "quadrants_version": None, "arch": None, "init_calls": [], "kernels": [], "launches": [],
           "seconds": 0.0}

    def write():
        # compiler/safe_files.write_file's recipe (this file imports only the standard library):
        # a fresh mkstemp file beside the result, renamed over it; nothing predictable to plant
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(result_path) or ".", prefix=".qdx-result-")
        with os.fdopen(fd, "w") as fh:
            json.dump(out, fh)
        os.replace(tmp, result_path)

    try:
        # through importlib: the type checker sees modules of unknown content, with or without Quadrants
        qd = importlib.import_module("quadrants")
        core = importlib.import_module("quadrants._lib").core
        impl = importlib.import_module("quadrants.lang.impl")
        misc = importlib.import_module("quadrants.lang.misc")
        kernel_mod = sys.modules["quadrants.lang.kernel"]  # the attribute `kernel` is the decorator
        from quadrants.profiler import kernel_profiler
    except Exception as e:  # noqa: BLE001 - report any import failure, not only ImportError
        out["error"] = f"cannot import quadrants in {sys.executable}: {type(e).__name__}: {e}"
        out["exit_code"] = 3
        write()
        return 3
    out["quadrants_version"] = ".".join(map(str, qd.__version__))
    qd_root = os.path.dirname(os.path.abspath(qd.__file__ or ""))
    kernels, launches, taken = [], out["launches"], {"n": 0}

    def snapshot():
        """Append the profiler records not taken yet (the program may clear or reset later)."""
        rt = impl.get_runtime()
        prog = getattr(rt, "_prog", None)
        if prog is None or not kernel_profiler.get_default_kernel_profiler().get_kernel_profiler_mode():
            return
        try:
            prog.sync_kernel_profiler()
            prog.update_kernel_profiler()
            records = prog.get_kernel_profiler_records()
        except Exception:  # noqa: BLE001 - a dead program has nothing left to report
            return
        for r in records[taken["n"]:]:
            launches.append({"task": r.name, "ms": float(r.kernel_time)})
        taken["n"] = len(records)

    real_init = misc.init

    def init(*a, **kw):
        given = dict(kw, arch=a[0] if a else kw.get("arch"))
        out["init_calls"].append({k: repr(v) for k, v in given.items()})
        a = a[1:]
        if arch in ("cpu", "cuda"):
            given["arch"] = getattr(qd, arch)
        kw.update(arch=given["arch"], offline_cache=False, src_ll_cache=False, debug_dump_path=dump_dir,
                  kernel_profiler=os.environ.get("QDEXPLORER_KERNEL_PROFILER", "1") != "0")
        res = real_init(*a, **kw)
        taken["n"] = 0
        out["arch"] = core.arch_name(impl.current_cfg().arch)
        return res

    for mod in (qd, misc, sys.modules.get("quadrants.lang")):
        if mod is not None and getattr(mod, "init", None) is real_init:
            setattr(mod, "init", init)

    real_clear = type(impl.get_runtime()).clear

    def clear(self):
        snapshot()
        taken["n"] = 0
        return real_clear(self)
    type(impl.get_runtime()).clear = clear

    real_clear_info = kernel_profiler.KernelProfiler.clear_info

    def clear_info(self):
        snapshot()
        taken["n"] = 0
        return real_clear_info(self)
    kernel_profiler.KernelProfiler.clear_info = clear_info

    real_kernel_init = kernel_mod.Kernel.__init__

    def kernel_init(self, func, *a, **kw):
        real_kernel_init(self, func, *a, **kw)
        code = getattr(func, "__code__", None)
        path = os.path.abspath(code.co_filename) if code else ""
        kernels.append({"func": getattr(func, "__name__", "?"), "counter": self.kernel_counter, "file": path,
                        "line": code.co_firstlineno if code else 0,
                        "internal": path.startswith(qd_root + os.sep)})
    kernel_mod.Kernel.__init__ = kernel_init

    run_as_main(script, args, out, __file__)
    snapshot()
    out["kernels"] = kernels
    write()
    sys.stdout.flush()
    sys.stderr.flush()
    return out["exit_code"]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
