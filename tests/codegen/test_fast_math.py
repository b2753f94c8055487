"""Fast math (Quadrants' default on CUDA): approximate f32 instructions when on, libdevice when off."""
import re

import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.codegen import CodegenOptions, build_task_module
from qdexplorer.codegen.math_lib import libdevice_path
from qdexplorer.compiler.stages import CompileRequest, compile_module

F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)
needs_libdevice = pytest.mark.skipif(libdevice_path() is None, reason="libdevice.10.bc not found (install "
                                     "nvidia-nvvm or a CUDA toolkit, or set QDEXPLORER_LIBDEVICE)")


@qd.kernel
def mix(x: F1, y: F1, out: F1):
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = qd.sin(v) * qd.exp(-v * v) + qd.cos(v) + qd.log(v) + qd.rsqrt(v) + qd.sqrt(v) + v / y[i] \
            + qd.tan(v)


def ptx(kernel, fast, libdevice=None):
    task = kernel.tasks()[0]
    tm = build_task_module(task, CodegenOptions("nvptx", libdevice, fast_math=fast))
    res = compile_module(CompileRequest(task.name, "nvptx", (tm.text,), (tm.entry,), libdevice=libdevice,
                                        fast_math=fast))
    assert res.ok, res.error
    return tm, res.output.decode()


@needs_libdevice
def test_fast_math_on_uses_the_approximate_instructions():
    tm, text = ptx(mix, True, libdevice_path())
    for insn in ("sin.approx.ftz.f32", "cos.approx.ftz.f32", "ex2.approx.ftz.f32", "lg2.approx.ftz.f32",
                 "rsqrt.approx.ftz.f32", "sqrt.approx.ftz.f32", "div.approx.ftz.f32"):
        assert insn in text, insn
    assert "cvt.rni.ftz.f32.f32" in text  # sin/cos range reduction: k = rint(x / 2pi)
    assert 'nvvm-reflect-ftz", i32 1' in tm.text and "preserve-sign" in tm.text
    # only tan is left to libdevice, as in Quadrants
    assert set(re.findall(r"@\"?(__nv_\w+)", tm.text)) == {"__nv_tanf"}
    assert any(line.startswith("fast math:") for line in tm.log)


@needs_libdevice
def test_fast_math_off_is_libdevice_and_ieee_division():
    tm, text = ptx(mix, False, libdevice_path())
    assert "sin.approx" not in text and "cos.approx" not in text and "div.approx" not in text
    assert "div.rn.f32" in text and "div.rn.ftz" not in text and "add.rn.ftz" not in text
    assert {"__nv_sinf", "__nv_cosf", "__nv_expf", "__nv_logf"} <= set(re.findall(r"@\"?(__nv_\w+)", tm.text))
    assert not any(line.startswith("fast math:") for line in tm.log)


def test_fast_math_changes_the_module_text_and_so_the_cache_key():
    task = mix.tasks()[0]
    on = build_task_module(task, CodegenOptions("nvptx", libdevice_path(), fast_math=True))
    off = build_task_module(task, CodegenOptions("nvptx", libdevice_path(), fast_math=False))
    assert on.text != off.text


def test_f64_math_keeps_ieee_on_cuda_and_the_host_takes_quadrants_flags():
    @qd.kernel
    def wide(x: qd.types.ndarray(dtype=qd.f64, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = qd.sqrt(x[i]) / x[i]  # a constant divisor is a multiply under fast math (test_fast_math_division)

    task = wide.tasks()[0]
    on = build_task_module(task, CodegenOptions("nvptx", None, fast_math=True))
    off = build_task_module(task, CodegenOptions("nvptx", None, fast_math=False))
    # f64 keeps IEEE math; only the f32 denormal mode and libdevice's reflect flag differ
    assert on.text.replace('ftz", i32 1', 'ftz", i32 0').replace(' "denormal-fp-math-f32"="preserve-sign"', "") \
        == off.text
    task = mix.tasks()[0]
    on = build_task_module(task, CodegenOptions("host", fast_math=True)).text
    off = build_task_module(task, CodegenOptions("host", fast_math=False)).text
    # the host's fast math is Quadrants' IR-builder flags on float arithmetic, and its locals' allocas
    # in reverse order (task_module.reverse_allocas), nothing else
    plain = on.replace("fmul ninf nsz reassoc afn ", "fmul ").replace("fadd ninf nsz reassoc afn ", "fadd ") \
        .replace("fsub ninf nsz reassoc afn ", "fsub ").replace("fdiv ninf nsz reassoc afn ", "fdiv ")
    assert sorted(plain.splitlines()) == sorted(off.splitlines())
    assert [x for x in plain.splitlines() if "alloca" not in x] == [x for x in off.splitlines() if "alloca" not in x]
    assert "fadd ninf nsz reassoc afn" in on and "reassoc" not in off


def test_floor_division_stays_exact_under_fast_math():
    @qd.kernel
    def fdiv(x: F1):
        for i in range(x.shape[0]):
            x[i] = x[i] // 3.0 + x[i] % 3.0

    _, text = ptx(fdiv, True)
    assert "div.approx" not in text  # floor(6/3) must be 2, not floor(1.9999999)


# ---- the setting: qdexplorer.toml per project, @qd.kernel(fast_math=...) per kernel, qd.init ----

PROJECT = """import qdexplorer.lang as qd
F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)


@qd.kernel
def wave(x: F1):
    for i in range(x.shape[0]):
        x[i] = qd.sin(x[i])


@qd.kernel{deco}
def exact(x: F1):
    for i in range(x.shape[0]):
        x[i] = qd.sin(x[i])
"""


def compile_project(tmp_path, toml, deco="", cache="cache"):
    from qdexplorer.engine import Engine
    proj = tmp_path / f"p{abs(hash((toml, deco)))}"
    proj.mkdir()
    (proj / "k.py").write_text(PROJECT.format(deco=deco))
    (proj / "qdexplorer.toml").write_text(toml)
    with Engine(proj, in_process=True, cache_dir=str(tmp_path / cache)) as eng:
        _, compiled = eng.compile(target="nvptx")
    return {ct.kernel: ct for ct in compiled}


def test_project_setting_kernel_override_and_cache_key(tmp_path):
    # one cache folder for all three: a key that ignored the setting would serve the wrong PTX
    on = compile_project(tmp_path, '[project]\nname = "a"\n')  # default: on, as in Quadrants
    assert "sin.approx" in on["wave"].ptx and on["wave"].module.fast_math
    off = compile_project(tmp_path, '[project]\nname = "b"\nfast_math = false\n')
    assert "sin.approx" not in off["wave"].ptx and not off["wave"].module.fast_math
    assert off["wave"].key != on["wave"].key
    mixed = compile_project(tmp_path, '[project]\nname = "c"\n', deco="(fast_math=False)")
    assert "sin.approx" in mixed["wave"].ptx and "sin.approx" not in mixed["exact"].ptx
    forced = compile_project(tmp_path, '[project]\nname = "d"\nfast_math = false\n', deco="(fast_math=True)")
    assert "sin.approx" in forced["exact"].ptx and "sin.approx" not in forced["wave"].ptx


def test_bad_settings_are_clear_errors(tmp_path):
    from qdexplorer.project.loader import ProjectError, load_project
    (tmp_path / "k.py").write_text(PROJECT.format(deco=""))
    (tmp_path / "qdexplorer.toml").write_text('fast_math = "yes"\n')
    with pytest.raises(ProjectError, match="fast_math must be true or false"):
        load_project(tmp_path)
    with pytest.raises(TypeError, match="takes True or False"):
        qd.kernel(fast_math=1)
    with pytest.raises(ValueError, match=r"qd.init\(fast_math=...\) takes True or False"):
        qd.init(arch=qd.cpu, fast_math="on")


def test_qd_init_setting_reaches_the_pipeline(cpu):
    from qdexplorer import script
    x = np.linspace(0.5, 1, 64).astype(np.float32)
    for fast, expect in ((None, True), (True, True), (False, False)):
        cpu.init(arch=cpu.cpu, **({} if fast is None else {"fast_math": fast}))
        out = np.zeros_like(x)
        mix(x, np.ones_like(x), out)  # the CPU ignores the setting: same libm result either way
        np.testing.assert_allclose(out[0], np.sin(0.5) * np.exp(-0.25) + np.cos(0.5) + np.log(0.5)
                                   + 0.5 ** -0.5 + 0.5 ** 0.5 + 0.5 + np.tan(0.5), rtol=1e-5)
        assert script._state["runner"].pipeline.fast_math is expect


def test_cli_flag_overrides_the_project(tmp_path, capsys):
    import json

    from qdexplorer.cli import main
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "k.py").write_text(PROJECT.format(deco=""))
    for flag, expect in ((["--fast-math", "off"], False), ([], True)):
        assert main(["compile", str(tmp_path / "p"), "--json", "--in-process", "--target", "nvptx",
                     "--cache-dir", str(tmp_path / "c"), *flag]) == 0
        rows = {r["kernel"]: r for r in json.loads(capsys.readouterr().out)["tasks"]}
        assert rows["wave"]["fast_math"] is expect and rows["exact"]["fast_math"] is expect
        # x[i] only: coarsened, unless libdevice's sinf is inlined (fast math off)
        assert rows["wave"]["vector"] == (4 if expect else 1)
