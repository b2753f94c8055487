"""Accurate f32 sin/cos on CUDA: libdevice's body is inlined for |x| < 105615 only, and its
Payne-Hanek slow path (a loop over a local-memory array) is one out-of-line function that large
arguments call, so the kernel itself has no local memory. The results must stay libdevice's, bit
for bit, on both sides of the limit (the CUDA test)."""
import re

import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.codegen import CodegenOptions, build_task_module, math_lowering
from qdexplorer.codegen.math_lib import libdevice_path
from qdexplorer.compiler.stages import CompileRequest, compile_module

pytestmark = pytest.mark.skipif(libdevice_path() is None, reason="libdevice.10.bc not found (install "
                                "nvidia-nvvm or a CUDA toolkit, or set QDEXPLORER_LIBDEVICE)")
F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)


@qd.kernel
def trig(x: F1, s: F1, c: F1):
    for i in range(x.shape[0]):
        s[i] = qd.sin(x[i])
        c[i] = qd.cos(x[i]) * qd.exp(x[i] * 1e-6)


def ptx(kernel):
    task = kernel.tasks()[0]
    tm = build_task_module(task, CodegenOptions("nvptx", libdevice_path(), fast_math=False))
    res = compile_module(CompileRequest(task.name, "nvptx", (tm.text,), (tm.entry,), libdevice=libdevice_path()))
    assert res.ok, res.error
    return res.output.decode()


def entry_body(text):
    start = text.index(".entry")
    end = text.find(".func", start)
    return text[start:] if end < 0 else text[start:end]


def test_the_kernel_has_no_local_memory_and_calls_the_slow_path_out_of_line():
    text = ptx(trig)
    body = entry_body(text)
    assert "__local_depot" not in body and "st.local" not in body and "ld.local" not in body
    slow = set(re.findall(r"call\.uni \(retval0\), (\S+),", body))
    assert len(slow) == 2 and all("slow" in name for name in slow), slow  # one for sinf, one for cosf
    assert text.count(".local .align") == 2  # each slow function keeps its own 7-word array


def test_without_the_guard_the_slow_path_is_inlined(monkeypatch):
    monkeypatch.setattr(math_lowering, "OUTLINED", set())
    assert "__local_depot" in entry_body(ptx(trig))  # what the guard removes


@pytest.mark.cuda
def test_results_are_libdevice_bit_for_bit_on_both_sides_of_the_limit(monkeypatch):
    from qdexplorer.compiler.cache import PtxCache
    from qdexplorer.compiler.pipeline import Pipeline
    from qdexplorer.compiler.pool import InlineCompiler
    from qdexplorer.lang.calls.bounds import trip_counts
    from qdexplorer.runtime.cuda.backend import CudaBackend
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-4, 4, 1 << 16), rng.uniform(-1e6, 1e6, 1 << 16),
                        [105614.99, 105615.0, 105615.01, -105615.0, 3e38, -3e38, np.inf, -np.inf, np.nan, 0.0, -0.0,
                         1e-40]]).astype(np.float32)
    outs, ptxs = [], []
    for outlined in (math_lowering.OUTLINED, set()):  # a backend each: one kernel name, two modules
        monkeypatch.setattr(math_lowering, "OUTLINED", outlined)
        be = CudaBackend()
        try:
            args = dict(x=x, s=np.zeros_like(x), c=np.zeros_like(x))
            tasks = trig.tasks(trig.spec_for(tuple(args[n] for n in trig.arg_names)))
            (ct,) = Pipeline(InlineCompiler(), PtxCache(offline=False), be.ctx.info()["arch"],
                             fast_math=False).compile(tasks, "nvptx")
            assert ct.ok, ct.error
            ptxs.append(ct.output)
            be.modules.load(ct.spec, ct.output, ct.load_hash)
            prep = be.prepare(args, trip_counts(tasks, args))
            be.launch(ct.task, prep)
            out = {k: np.empty_like(x) for k in ("s", "c")}
            be.fetch(prep, out)
            outs.append(out)
        finally:
            be.close()
    assert ptxs[0] != ptxs[1]  # two builds really ran
    for k in ("s", "c"):
        np.testing.assert_array_equal(outs[0][k].view(np.uint32), outs[1][k].view(np.uint32))
