"""Unchanged tasks skip lowering and codegen on a warm edit; anything they depend on invalidates them."""
import textwrap

from qdexplorer.engine import Engine

SRC = textwrap.dedent("""\
    import qdexplorer.lang as qd
    SCALE = {scale}

    @qd.func
    def f(v: qd.f32) -> qd.f32:
        return v * {fbody}

    @qd.kernel
    def k(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] + {a}
        for i in range(x.shape[0]):
            x[i] = f(x[i])
        for i in range(x.shape[0]):
            x[i] = x[i] * SCALE
    """)


def lowered(eng):
    eng.refresh()
    before = eng.cache_info()["memo"]
    _, compiled = eng.compile(target="nvptx")
    after = eng.cache_info()["memo"]
    return after["hits"] - before["hits"], after["misses"] - before["misses"], {c.task: c for c in compiled}


def test_memo_follows_source_funcs_and_globals(tmp_path):
    f = tmp_path / "k.py"
    f.write_text(SRC.format(scale=2.0, fbody=3.0, a=1.0))
    with Engine(tmp_path, in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        assert lowered(eng)[:2] == (0, 3)
        assert lowered(eng)[:2] == (0, 0)  # same project object: kernel keeps its lowered tasks
        f.write_text(SRC.format(scale=2.0, fbody=3.0, a=5.0))
        hits, misses, c = lowered(eng)
        assert (hits, misses) == (2, 1)
        assert c["k_kernel_0_range_for"].tier == "miss" and c["k_kernel_1_range_for"].tier == "memory"
        f.write_text(SRC.format(scale=2.0, fbody=4.0, a=5.0))  # a @qd.func body changes
        assert lowered(eng)[:2] == (0, 3)  # f is a global of the kernel: every task re-lowers ...
        f.write_text("# a comment moves everything down\n" + SRC.format(scale=2.0, fbody=4.0, a=5.0))
        hits, misses, c = lowered(eng)
        assert (hits, misses) == (3, 0)
        t = eng.session.kernels["k"].tasks[2]
        assert t.lines == (15, 16)  # ... and reused tasks still point at the right lines
        f.write_text(SRC.format(scale=7.0, fbody=4.0, a=5.0))  # a global constant changes
        hits, misses, c = lowered(eng)
        assert misses == 3
        assert {ct.tier for ct in c.values()} >= {"miss"}
