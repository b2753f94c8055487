"""`qd.cfg` (the current qd.init's settings), `qd.init(raise_on_templated_floats=True)` (a float
template argument is a ValueError, a float global read in a kernel a compile error), the bare
`qd.template` annotation and a `...` kernel body, as Quadrants. Each program runs under
qdexplorer.lang and, where installed, real Quadrants."""
import pytest

import qdexplorer.lang as ours

G_FLOAT = 1.25
G_INT = 7


def _implementations():
    yield ours
    try:
        import quadrants as real
    except ImportError:
        return
    yield real


@pytest.fixture(params=["ours", "real"])
def qd(request):
    impls = list(_implementations())
    if request.param == "real" and len(impls) < 2:
        pytest.skip("real Quadrants is not installed")
    qd = impls[0 if request.param == "ours" else 1]
    qd.init(arch=qd.cpu, debug=True)
    yield qd
    qd.reset()


def test_cfg_reads_the_current_init(qd):
    assert qd.cfg.arch.name == "x64" and getattr(qd, qd.cfg.arch.name) == qd.cpu and qd.cfg.debug
    qd.init(arch=getattr(qd, qd.cfg.arch.name), debug=False)
    assert not qd.cfg.debug


def test_templated_floats_are_refused_when_asked(qd):
    qd.init(arch=qd.cpu, raise_on_templated_floats=True)

    @qd.kernel
    def k(a: qd.Template, x: qd.types.NDArray[qd.f32, 1]) -> None:
        x[0] = a

    @qd.kernel
    def reads_float(x: qd.types.NDArray[qd.f32, 1]) -> None:
        x[0] = G_FLOAT

    @qd.kernel
    def reads_int(x: qd.types.NDArray[qd.f32, 1]) -> None:
        x[0] = G_INT

    x = qd.ndarray(qd.f32, shape=(1,))
    k(3, x)
    assert x[0] == 3
    with pytest.raises(ValueError, match="Floats not allowed as templated types"):
        k(1.5, x)
    with pytest.raises(qd.QuadrantsCompilationError):
        reads_float(x)
    reads_int(x)
    assert x[0] == 7
    qd.init(arch=qd.cpu)
    x = qd.ndarray(qd.f32, shape=(1,))  # (arrays do not outlive qd.init)
    k(1.5, x)
    reads_float(x)
    assert x[0] == 1.25


def test_bare_template_annotation_and_an_ellipsis_body(qd):
    @qd.func
    def sub(a: qd.template, b: qd.Template) -> None:
        a[None] = a[None] + b[None]

    @qd.kernel
    def k(a: qd.template, b: qd.Template) -> None:
        a[None] = b[None] + 2
        sub(a, b)

    @qd.kernel
    def nothing() -> None: ...

    a, b = qd.field(int, shape=()), qd.field(int, shape=())
    b[None] = 5
    k(a, b)
    nothing()
    assert a[None] == 12


def test_a_runtime_primitive_lifted_as_an_integer_refuses_a_float(qd):
    @qd.data_oriented(template_primitives=False)
    class Sim:
        def __init__(self):
            self.k = 2
            self.f = 1.0
            self.out = qd.field(qd.f32, shape=2)

    sim = Sim()

    @qd.kernel
    def step(s: qd.template()):
        s.out[0] = s.k
        s.out[1] = s.f

    step(sim)
    sim.f = 3  # int into a float member: lossless, taken
    step(sim)
    assert sim.out.to_numpy().tolist() == [2.0, 3.0]
    sim.k = 1.5
    with pytest.raises(TypeError, match="truncate"):
        step(sim)
