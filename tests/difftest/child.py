"""One long-lived interpreter of one implementation (Quadrants or qdexplorer.lang) that runs many
programs: `python -m tests.difftest.child quadrants|ours cpu|cuda`.

Quadrants' init costs a fraction of a second; a child inits once per option set and resets every
RESET_EVERY programs (each program's fields are a new SNode tree, of which Quadrants keeps a
bounded number). Requests and replies are length-prefixed pickles on the original stdout; anything
a program or the runtime prints goes to stderr. A program is written to a file and imported from
there, since both languages read a kernel's source text."""
from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import pickle
import struct
import sys
import tempfile
import time
import traceback

RESET_EVERY = 40


def read_msg(f):
    head = f.read(4)
    if len(head) < 4:
        return None
    (n,) = struct.unpack("<I", head)
    return pickle.loads(f.read(n))


def write_msg(f, obj) -> None:
    data = pickle.dumps(obj, protocol=4)
    f.write(struct.pack("<I", len(data)) + data)
    f.flush()


def plain(v):
    """Results as NumPy arrays and Python scalars (a 0-d field read is an array too)."""
    import numpy as np
    if isinstance(v, np.ndarray):
        return v.copy()
    if isinstance(v, (bool, int, float)) or v is None:
        return v
    if isinstance(v, np.generic):
        return v.item()
    return repr(v)


def main() -> None:
    impl, arch = sys.argv[1], sys.argv[2]
    proto = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    inp = sys.stdin.buffer
    qd = importlib.import_module("quadrants" if impl == "quadrants" else "qdexplorer.lang")
    folder = tempfile.mkdtemp(prefix=f"difftest-{impl}-")
    # Quadrants' offline cache, private to this child: every program's fields are new, and Quadrants
    # compiles a from_numpy/to_numpy kernel for each; those of the same dtype and shape come from the
    # cache (about 1.5x faster per program here). The programs' own kernels are new text each time.
    extra = {"offline_cache": True, "offline_cache_file_path": os.path.join(folder, "cache"),
             "log_level": "error"} if impl == "quadrants" else {}
    current, count, ran_on = None, 0, ""
    if impl == "quadrants":
        version = importlib.metadata.version("quadrants")
    else:
        version = str(getattr(importlib.import_module("qdexplorer"), "__version__", ""))
    write_msg(proto, {"ready": True, "version": version, "folder": folder})
    while True:
        job = read_msg(inp)
        if job is None:
            return
        init = job.get("init", {})
        t0 = time.perf_counter()
        try:
            if init != current or count >= RESET_EVERY:
                if current is not None:
                    qd.reset()
                got = qd.init(arch=getattr(qd, arch), **init, **extra)
                # the backend really used: both languages fall back to the CPU when CUDA is absent
                ran_on = str(qd.lang.impl.current_cfg().arch if impl == "quadrants" else got)
                current, count = init, 0
            count += 1
            path = os.path.join(folder, f"{job['name']}.py")
            with open(path, "w") as f:
                f.write(job["source"])
            spec = importlib.util.spec_from_file_location(job["name"], path)
            mod = importlib.util.module_from_spec(spec)
            mod._DIFFTEST_CHILD = True  # the program skips its own qd.init
            spec.loader.exec_module(mod)
            result = {k: plain(v) for k, v in mod.main().items()}
            reply = {"ok": True, "result": result, "ran_on": ran_on}
        except BaseException as e:  # noqa: BLE001 - every failure is a result to compare
            if isinstance(e, KeyboardInterrupt):
                raise
            msg = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
            reply = {"ok": False, "error": msg, "traceback": traceback.format_exc(limit=-8)}
            current = None  # a failed program may leave the runtime half-built: start afresh
        reply["seconds"] = time.perf_counter() - t0
        write_msg(proto, reply)


if __name__ == "__main__":
    main()
