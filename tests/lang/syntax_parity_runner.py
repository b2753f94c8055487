"""Runs the syntax-parity cases (tests/lang/syntax_cases.py) under one implementation and returns
what each gave: its value, what its kernels printed, or the error it raised.

    python -m tests.lang.syntax_parity_runner quadrants   # all cases under real Quadrants 1.3.3,
                                                          # rewriting tests/lang/syntax_parity_quadrants.json
    python -m tests.lang.syntax_parity_runner quadrants --update   # only the cases it has no answer for

tests/lang/test_syntax_parity.py runs ours in-process and reads Quadrants' answers from that JSON
file, keyed by the hash of each case's text and Quadrants' version; a case whose text changed (or
is new) is run under Quadrants in one child process (`--stdin`) before the comparison, so the file
is a cache of real answers, never an expected value written by hand.

A case is a small module: it uses `qd` (the implementation, a global set before it runs) and
defines `run()`, whose value (numbers, lists, arrays) is the answer; `qd.init(arch=qd.cpu, **init)`
runs before it. Output written to the process's stdout while it runs (Quadrants' kernel `print`)
is captured at the file descriptor."""
from __future__ import annotations

import ctypes
import hashlib
import importlib
import importlib.util
import json
import os
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, "syntax_parity_quadrants.json")
_LIBC = ctypes.CDLL(None)


def key(case, version: str) -> str:
    text = json.dumps([case.src, case.init, version], sort_keys=True)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def plain(v):
    """The answer as JSON values: arrays and tuples as lists, NumPy scalars as Python ones."""
    import numpy as np
    if isinstance(v, np.ndarray):
        return plain(v.tolist())
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    if hasattr(v, "to_numpy"):
        return plain(v.to_numpy())
    if hasattr(v, "__len__") and hasattr(v, "__getitem__"):
        return [plain(v[i]) for i in range(len(v))]
    return repr(v)


class _Captured:
    """What is written to file descriptor 1 while the block runs (C printf included)."""

    def __enter__(self):
        sys.stdout.flush()
        _LIBC.fflush(None)
        self.tmp = tempfile.TemporaryFile()
        self.saved = os.dup(1)
        os.dup2(self.tmp.fileno(), 1)
        return self

    def __exit__(self, *exc):
        sys.stdout.flush()
        _LIBC.fflush(None)
        os.dup2(self.saved, 1)
        os.close(self.saved)
        self.tmp.seek(0)
        self.text = self.tmp.read().decode(errors="replace")
        self.tmp.close()
        return False


def run_case(qd, case, folder: str) -> dict:
    """{"value": ..., "out": printed text} or {"error": type name, "msg": its first line, "ours_clear": ...}."""
    path = os.path.join(folder, f"case_{case.name}.py")
    with open(path, "w") as f:
        f.write(case.src)
    spec = importlib.util.spec_from_file_location(f"syntax_case_{case.name}", path)
    mod = importlib.util.module_from_spec(spec)
    mod.qd = qd
    cap = _Captured()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            qd.init(arch=qd.cpu, **{k: getattr(qd, v[3:]) if isinstance(v, str) and v.startswith("qd.") else v
                                    for k, v in case.init.items()})
            with cap:
                try:
                    spec.loader.exec_module(mod)
                    value = plain(mod.run())
                    qd.sync()
                finally:
                    pass
        return {"value": value, "out": cap.text}
    except BaseException as e:  # noqa: BLE001 - a refusal is an answer too
        if isinstance(e, KeyboardInterrupt):
            raise
        lines = [x for x in str(e).strip().splitlines() if x.strip()] or [""]
        return {"error": type(e).__name__, "msg": lines[0][:300], "last": lines[-1][:300], "lines": len(lines),
                "clear": _clear(e),
                "mro": [c.__name__ for c in type(e).__mro__]}
    finally:
        try:
            qd.reset()
        except Exception:  # noqa: BLE001
            pass


def _clear(e: BaseException) -> bool:
    """A refusal a user can act on: qdexplorer's own error classes (Quadrants' names), not an
    exception escaping from inside the implementation (KeyError, AttributeError, ...)."""
    try:
        from qdexplorer.ir.errors import QdError
    except ImportError:
        return False
    if isinstance(e, QdError):
        return True
    tb = e.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    # raised on purpose by a check of ours (a TypeError/ValueError of the Python-scope API) and not a
    # failure of the implementation's own code: counted as clear when its type is a plain one
    return isinstance(e, (TypeError, ValueError, NotImplementedError)) and "qdexplorer" in str(last)


def run_all(impl: str, cases, emit=None) -> tuple[str, dict]:
    qd = importlib.import_module("quadrants" if impl == "quadrants" else "qdexplorer.lang")
    version = _version(impl)
    out = {}
    with tempfile.TemporaryDirectory(prefix=f"syntax-{impl}-") as folder:
        for case in cases:
            if emit is not None:
                emit({"start": case.name})
            out[case.name] = run_case(qd, case, folder)
            if emit is not None:
                emit({"name": case.name, "result": out[case.name]})
    return version, out


def quadrants_answers(cases, timeout: float = 600.0) -> tuple[str, dict]:
    """Each case run under real Quadrants in a child process (one for all of them; a case that
    crashes the interpreter, as a segfault in Quadrants' compiler does, is answered
    {"error": "crash"} and a new child takes the cases after it)."""
    import subprocess
    todo = [c.name for c in cases]
    results: dict = {}
    version = quadrants_version() or "?"
    root = os.path.dirname(os.path.dirname(HERE))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    while todo:
        p = subprocess.run([sys.executable, "-m", "tests.lang.syntax_parity_runner", "quadrants", "--stdin"],
                           input=json.dumps(todo), capture_output=True, text=True, timeout=timeout, cwd=root, env=env)
        started = None
        for line in p.stdout.splitlines():
            if not line.startswith("{"):
                continue
            msg = json.loads(line)
            if "start" in msg:
                started = msg["start"]
            else:
                results[msg["name"]] = msg["result"]
                started = None
        if started is not None:
            results[started] = {"error": "crash", "msg": f"the interpreter died (exit code {p.returncode})",
                                "lines": 1, "clear": False, "mro": []}
        elif p.returncode != 0 and not any(n in results for n in todo):
            raise RuntimeError(f"the Quadrants child failed: {p.stderr[-2000:]}")
        todo = [n for n in todo if n not in results]
    return version, results


def _version(impl: str) -> str:
    if impl != "quadrants":
        return "ours"
    import importlib.metadata
    return importlib.metadata.version("quadrants")


def quadrants_version() -> str | None:
    try:
        import importlib.metadata
        return importlib.metadata.version("quadrants")
    except Exception:  # noqa: BLE001
        return None


def load_cache() -> dict:
    if not os.path.exists(CACHE):
        return {}
    with open(CACHE) as f:
        return json.load(f)


def main() -> int:
    from tests.lang.syntax_cases import CASES
    impl = sys.argv[1]
    if "--stdin" in sys.argv:  # the names of the cases to run, as JSON; the answers, as JSON, on stdout
        names = set(json.load(sys.stdin))
        cases = [c for c in CASES if c.name in names]
        real_out = os.dup(1)
        os.dup2(2, 1)  # what the runtime prints outside a case goes to stderr

        def emit(msg):
            os.write(real_out, (json.dumps(msg) + "\n").encode())
        run_all(impl, cases, emit)
        return 0
    update = "--update" in sys.argv  # only the cases with no recorded answer; the others kept
    old = load_cache() if update else {}
    todo = [c for c in CASES if not update or key(c, quadrants_version() or "?") not in old]
    version, res = quadrants_answers(todo) if impl == "quadrants" else run_all(impl, todo)
    if impl == "quadrants":
        keep = {key(c, version) for c in CASES}
        cache = {k: v for k, v in old.items() if k in keep}
        cache.update({key(c, version): {"name": c.name, **res[c.name]} for c in todo})
        with open(CACHE, "w") as f:
            json.dump(dict(sorted(cache.items(), key=lambda kv: kv[1]["name"])), f, indent=0, sort_keys=True)
            f.write("\n")
    print(json.dumps({"cases": len(res), "errors": sum(1 for r in res.values() if "error" in r)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
