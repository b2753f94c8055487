"""What keeps a compile of many tasks linear and its memory bounded: pool workers replaced after
their share of requests (with the same results, in order), one parse and walk of a file for all
its kernels, the LLVM text held once, and a fresh LLVM context per request."""
import ast
import os
import subprocess
import sys

from qdexplorer.compiler.cache import PtxCache
from qdexplorer.compiler.pipeline import Pipeline
from qdexplorer.compiler.pool import CompilePool, InlineCompiler
from qdexplorer.compiler.stages import CompileRequest, run_stage
from qdexplorer.lang.tasks import source
from qdexplorer.lang.tasks.fingerprint import TaskMemo
from qdexplorer.project.loader import load_project

KERNEL = """
@qd.kernel
def k{i}(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for j in range(x.shape[0]):
        x[j] = x[j] * {i}.0 + 1.0
"""


def _project(tmp_path, n):
    (tmp_path / "p").mkdir()
    text = "import qdexplorer.lang as qd\n" + "".join(KERNEL.format(i=i) for i in range(n))
    (tmp_path / "p" / "k.py").write_text(text)
    return load_project(tmp_path / "p")


def _requests(tmp_path, n):
    tasks = [t for k in _project(tmp_path, n).kernels.values() for t in k.tasks()]
    pipe = Pipeline(InlineCompiler(), PtxCache(offline=False), memo=False)
    cts = pipe.compile(tasks, "nvptx")
    return [CompileRequest(ct.task, "nvptx", (ct.used["ll"].text,), (ct.module.entry,)) for ct in cts]


def test_pool_replaces_its_workers_and_keeps_results_in_order(tmp_path):
    reqs = _requests(tmp_path, 7)
    pool = CompilePool(1, recycle_after=2)
    pids, seen = set(), []
    try:
        pool.warm()
        pids |= {p.pid for p in pool._ex._processes.values()}
        first = pool._ex
        out = pool.compile(reqs, on_done=lambda i, r: seen.append(i))
        assert pool._ex is not first   # 7 requests at 2 a worker: replaced three times
        pids |= {p.pid for p in pool._ex._processes.values()}
    finally:
        pool.close()
    assert len(pids) >= 2
    assert sorted(seen) == list(range(7))
    assert [r.task for r in out] == [q.task for q in reqs]
    assert [r.output for r in out] == [run_stage(q).output for q in reqs]   # as compiled in this process
    assert all(r.ok and b".entry" in r.output for r in out)


def test_a_request_compiles_the_same_whatever_came_before(tmp_path):
    """Each request parses into its own LLVM context, disposed with it: the output of a module
    does not depend on what the process compiled before (nor does its memory keep growing)."""
    a, b = _requests(tmp_path, 2)
    alone = run_stage(b).output
    run_stage(a)
    assert run_stage(b).output == alone and run_stage(a).ok


def test_a_file_is_parsed_and_walked_once_for_all_its_kernels(tmp_path, monkeypatch):
    kernels = list(_project(tmp_path, 30).kernels.values())
    walks = []
    real_walk = ast.walk
    monkeypatch.setattr(source.ast, "walk", lambda node: (walks.append(type(node).__name__), real_walk(node))[1])
    source._FILE_DEFS.clear()
    source._LINES_KEY.clear()
    for k in kernels:
        k._source = None
        assert k.source.fdef.name == k.name
    assert walks == ["Module"]
    tasks = [t for k in kernels for t in k.tasks()]
    assert len(tasks) == 30 and len({t.name for t in tasks}) == 30


def test_a_changed_file_is_parsed_again(tmp_path):
    assert _project(tmp_path, 2).kernels["k1"].source.fdef.lineno == 9
    path = tmp_path / "p" / "k.py"
    path.write_text("import qdexplorer.lang as qd\n\n\n" + path.read_text().split("\n", 1)[1])
    fresh = load_project(tmp_path / "p").kernels["k1"]
    assert fresh.source.fdef.lineno == 11 and fresh.source.raw_lines[10].startswith("def k1")


def test_the_llvm_text_is_held_once(tmp_path):
    memo = TaskMemo()   # lowered with a memo, tasks carry the fingerprint the codegen memo is keyed on
    tasks = [t for k in _project(tmp_path, 2).kernels.values() for t in k.tasks(memo=memo)]
    pipe = Pipeline(InlineCompiler(), PtxCache(offline=False))
    cts = pipe.compile(tasks, "host")
    again = pipe.compile(tasks, "host")   # from the codegen memo: the same bytes, not a copy
    for ct, ct2 in zip(cts, again):
        assert ct.module.text == "" and b"define" in ct.produced["ll"].data
        assert ct2.produced["ll"].tier == "memo" and ct2.produced["ll"].data is ct.produced["ll"].data
        assert ct.ok and ct.output


def test_the_cli_does_not_import_scipy_until_it_compares():
    """SciPy is 70 MB and seconds of import; `compile` (every command) paid it for one quantile."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = ("import sys, qdexplorer.cli, qdexplorer.bench.compare; "
            "print(sorted(m for m in sys.modules if m.startswith('scipy')))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=root))
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"
