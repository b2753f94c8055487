"""qd.graph.do_while / parallel_context / parallel as they run without a CUDA graph (Quadrants' host
fallback): a do-while over the body's loops, sections run in order; the flat spellings warn."""
import ast
import warnings

import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.lang.compat import graph_api


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_do_while_repeats_the_body_until_the_flag_is_zero():
    @qd.kernel(graph=True)
    def loop(x: qd.types.ndarray(qd.i32, ndim=1), counter: qd.types.ndarray(qd.i32, ndim=0)):
        while qd.graph.do_while(counter):
            for i in range(x.shape[0]):
                x[i] = x[i] + 1
            for i in range(1):
                counter[()] = counter[()] - 1

    x, counter = qd.ndarray(qd.i32, shape=(6,)), qd.ndarray(qd.i32, shape=())
    counter.from_numpy(np.array(5, dtype=np.int32))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the canonical spelling never warns
        loop(x, counter)
    assert int(counter.to_numpy()) == 0 and (x.to_numpy() == 5).all()
    counter.from_numpy(np.array(1, dtype=np.int32))
    loop(x, counter)  # the flag is read after the body: one pass
    assert int(counter.to_numpy()) == 0 and (x.to_numpy() == 6).all()


def test_parallel_sections_run_in_order_and_flat_names_warn():
    assert qd.graph.do_while is qd.graph_do_while and qd.graph.parallel is qd.graph_parallel

    @qd.kernel(graph=True)
    def k(x: qd.types.ndarray(qd.f32, ndim=1), y: qd.types.ndarray(qd.f32, ndim=1), z: qd.types.ndarray(qd.f32, ndim=1)):
        with qd.graph_parallel_context():
            with qd.graph.parallel():
                for i in range(x.shape[0]):
                    x[i] = x[i] + 1.0
            with qd.graph_parallel():
                for i in range(y.shape[0]):
                    y[i] = y[i] + 2.0
        for i in range(z.shape[0]):
            z[i] = x[i] + y[i]

    x, y, z = (qd.ndarray(qd.f32, shape=(8,)) for _ in range(3))
    with pytest.warns(DeprecationWarning) as rec:
        k(x, y, z)
    text = " ".join(str(w.message) for w in rec)
    assert "use qd.graph.parallel_context() instead" in text and "use qd.graph.parallel() instead" in text
    assert (z.to_numpy() == 3.0).all()
    assert len(k.tasks(k.spec_for((x, y, z)))) == 3  # the sections' loops stay parallel tasks


def test_spellings_are_recognised_from_the_source():
    def func(src):
        return ast.parse(src, mode="eval").body.func
    assert graph_api.matches(func("qd.graph.do_while(x)"), "do_while")
    assert graph_api.matches(func("qd.graph_do_while(x)"), "do_while")
    assert graph_api.is_deprecated_spelling(func("qd.graph_do_while(x)"), "do_while")
    assert not graph_api.matches(func("qd.graph.other(x)"), "do_while")


def test_do_while_outside_a_graph_kernel_is_refused_not_run():
    """Quadrants refuses `qd.graph.do_while` in a kernel without graph=True; running it instead looped
    forever when the body never cleared the flag (upstream test_graph_do_while_without_graph_raises hung)."""
    @qd.kernel
    def k(x: qd.types.ndarray(qd.i32, ndim=1), c: qd.types.ndarray(qd.i32, ndim=0)):
        while qd.graph.do_while(c):
            for i in range(x.shape[0]):
                x[i] = x[i] + 1

    x = qd.ndarray(qd.i32, shape=(4,))
    c = qd.ndarray(qd.i32, shape=())
    c.from_numpy(np.array(1, dtype=np.int32))
    with pytest.raises(qd.QuadrantsSyntaxError, match=r"requires @qd.kernel\(graph=True\)"):
        k(x, c)


def test_graph_region_grammar_is_checked_as_quadrants_checks_it():
    """A parallel_context region outside a graph kernel, a runtime loop in a region, a nested section and
    arguments to the constructs are Quadrants' QuadrantsSyntaxErrors (they ran as plain code before)."""
    x = qd.ndarray(qd.i32, shape=(4,))

    @qd.kernel
    def not_graph(a: qd.types.ndarray(qd.i32, ndim=1)):
        with qd.graph.parallel_context():
            with qd.graph.parallel():
                for i in range(4):
                    a[i] = 1

    @qd.kernel(graph=True)
    def runtime_loop(a: qd.types.ndarray(qd.i32, ndim=1)):
        with qd.graph.parallel_context():
            for i in range(4):
                a[i] = 1

    @qd.kernel(graph=True)
    def nested(a: qd.types.ndarray(qd.i32, ndim=1)):
        with qd.graph.parallel_context():
            with qd.graph.parallel():
                with qd.graph.parallel():
                    for i in range(4):
                        a[i] = 1

    @qd.kernel(graph=True)
    def with_args(a: qd.types.ndarray(qd.i32, ndim=1)):
        with qd.graph.parallel_context(1):
            with qd.graph.parallel():
                for i in range(4):
                    a[i] = 1

    for k, msg in ((not_graph, r"requires @qd.kernel\(graph=True\)"), (runtime_loop, "may contain only"),
                   (nested, "cannot be nested"), (with_args, "takes no arguments")):
        with pytest.raises(qd.QuadrantsSyntaxError, match=msg):
            k(x)
