"""SASS from pip alone: ptxas + nvdisasm from NVIDIA's wheels (`qdexplorer[sass]`), no toolkit, no GPU.

The toolkit this VM may have is hidden (PATH, CUDA_HOME, /usr/local/cuda*), so these tests prove
the wheels are enough; they skip when the wheels are not installed (`pip install 'qdexplorer[sass]'`;
the `[test]` extra brings them on Linux x86_64, so CI runs them).
"""
import glob
import os
import re
import sys

import pytest

from qdexplorer.compiler import ptxas, sass
from qdexplorer.compiler.ptx_lines import line_map
from tests._cli import run_cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _wheel_tool(name):
    return next((p for e in sys.path for p in sorted(glob.glob(os.path.join(e, "nvidia", "*", "bin", name)))
                 if os.access(p, os.X_OK)), None)


WHEEL_PTXAS, WHEEL_NVDISASM = _wheel_tool("ptxas"), _wheel_tool("nvdisasm")
needs_wheels = pytest.mark.skipif(WHEEL_PTXAS is None or WHEEL_NVDISASM is None,
                                  reason="no nvidia-cuda-nvcc / nvidia-cuda-nvdisasm wheels: "
                                         "pip install 'qdexplorer[sass]'")
NO_TOOLKIT_PATH = os.pathsep.join(p for p in ("/usr/bin", "/bin") if os.path.isdir(p))


@pytest.fixture
def wheels_only(monkeypatch):
    """No toolkit visible: only the wheels on sys.path can give ptxas and nvdisasm."""
    monkeypatch.setenv("PATH", NO_TOOLKIT_PATH)
    for v in ("CUDA_HOME", "CUDA_PATH", "QDEXPLORER_PTXAS"):
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setattr(ptxas, "TOOLKIT_GLOBS", [])
    assert ptxas.find_ptxas() is not None and "nvidia" in str(ptxas.find_ptxas())
    assert "nvidia" in str(ptxas.find_tool("nvdisasm"))


@pytest.fixture(scope="module")
def saxpy_ptx():
    out = run_cli("show", "saxpy_kernel_0_range_for", "--what", "ptx", cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _source_line(pattern):
    """The 1-based line of the bundled saxpy.py that matches `pattern` (the kernel's body line)."""
    src = open(os.path.join(ROOT, "qdexplorer", "resources", "demo", "saxpy.py")).read().splitlines()
    return next(i for i, t in enumerate(src, start=1) if re.search(pattern, t))


def test_retarget_sets_the_target_and_raises_the_version_only_where_needed():
    ptx = ".version 8.5\n.target sm_90\n.address_size 64\n"
    assert ".target sm_80" in sass.retarget(ptx, "sm_80") and ".version 8.5" in sass.retarget(ptx, "sm_80")
    assert ".version 8.7" in sass.retarget(ptx, "sm_120") and ".target sm_120" in sass.retarget(ptx, "sm_120")
    assert ".version 8.6" in sass.retarget(ptx, "sm_100a")
    assert ".version 9.0" in sass.retarget(ptx.replace("8.5", "9.0"), "sm_100")   # never lowered


def test_parse_nvdisasm_maps_lines_through_the_ptx_to_the_source():
    ptx = "\n".join([".version 8.5", ".target sm_90", ".visible .entry k()", "{", ".loc 1 7 0",
                     "mov.u32 %r1, %tid.x;", ".loc 1 8 0", "ret;", "}", '.file 1 "/home/me/k.py"'])
    out = "\n".join(["k:", '\t//## File "task.ptx", line 6', "        /*0000*/  S2R R0, SR_TID.X ;",
                     '\t//## File "task.ptx", line 8', "        /*0010*/  EXIT ;", "        /*0020*/  BRA `(.L_x_0) ;"])
    got = sass.parse_nvdisasm(out, ptx, "sm_90")
    assert got.text.splitlines() == ["k:", "/*0000*/       S2R R0, SR_TID.X ;", "/*0010*/       EXIT ;",
                                     "/*0020*/       BRA `(.L_x_0) ;"]
    assert got.to_ptx == {2: 6, 3: 8, 4: 8}
    assert got.to_source == {2: ("/home/me/k.py", 7), 3: ("/home/me/k.py", 8), 4: ("/home/me/k.py", 8)}
    assert got.sass_lines_of_ptx([8]) == [3, 4] and got.sass_lines_of_source(7, "k.py") == [2]
    assert got.gutter()[2] == "ptx 6 · py 7"
    assert got.instructions() == ["S2R R0, SR_TID.X ;", "EXIT ;", "BRA `(.L_x_0) ;"]


@needs_wheels
def test_ptx_to_sass_line_mapping_on_saxpy(wheels_only, saxpy_ptx):
    """The known kernel: y[i] = a * x[i] + y[i]. Its FFMAs come from PTX fma lines, its global loads
    and stores from ld.global / st.global lines, all of them from the body's Python line."""
    got = sass.disassemble(saxpy_ptx, "sm_90")
    ptx_lines = saxpy_ptx.splitlines()
    body = _source_line(r"y\[i\]\s*=")
    sass_lines = got.text.splitlines()
    insn = [i for i, t in enumerate(sass_lines, start=1) if re.search(r"/\*[0-9a-f]{4}\*/", t)]
    assert len(insn) > 20 and set(insn) <= set(got.to_ptx), "every instruction has a PTX line"
    checked = {"FFMA": 0, "LDG": 0, "STG": 0}
    for i in insn:
        op = re.search(r"\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+)", sass_lines[i - 1])[1]
        ptx = ptx_lines[got.to_ptx[i] - 1]
        want = {"FFMA": r"\bfma\.", "LDG": r"\bld\.global", "STG": r"\bst\.global"}.get(op)
        if want:
            assert re.search(want, ptx), (sass_lines[i - 1], ptx)
            assert got.to_source[i] == (got.to_source[i][0], body) and got.to_source[i][0].endswith("saxpy.py")
            checked[op] += 1
    assert checked["FFMA"] >= 4 and checked["LDG"] >= 2 and checked["STG"] >= 1, checked
    # the map agrees with the PTX's own line table: each SASS line's source is its PTX line's source
    lm = line_map(saxpy_ptx)
    assert all(got.to_source.get(s) == lm.source_line(p) for s, p in got.to_ptx.items())


@needs_wheels
@pytest.mark.parametrize("arch", ["sm_75", "sm_80", "sm_90", "sm_100", "sm_120"])
def test_any_sm_the_user_picks(wheels_only, saxpy_ptx, arch):
    got = sass.disassemble(saxpy_ptx, arch)
    assert got.arch == arch and re.search(r"\bFFMA\b", got.text) and got.to_ptx
    assert f".target\t{arch}" in got.text or arch in got.text


@needs_wheels
def test_a_bad_arch_says_why(wheels_only, saxpy_ptx):
    with pytest.raises(ValueError, match="sm_50"):
        sass.disassemble(saxpy_ptx, "sm_50")


def test_without_the_tools_it_says_how_to_get_them(monkeypatch, saxpy_ptx):
    monkeypatch.setattr(ptxas, "find_ptxas", lambda: None)
    with pytest.raises(sass.SassNotAvailable, match=r"qdexplorer\[sass\]"):
        sass.disassemble(saxpy_ptx)


@needs_wheels
def test_sass_for_every_demo_task_with_no_toolkit_and_no_gpu(wheels_only, demo_path, tmp_path):
    from qdexplorer.engine import Engine
    with Engine(demo_path, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c")) as eng:
        compiled = eng.compile(target="nvptx")
        names = [ct.task for ct in compiled.tasks]
        assert len(names) >= 15
        for task in names:
            got = eng.code.sass(task)
            assert isinstance(got, sass.SassListing), f"{task}: {got}"
            assert got.instructions() and got.to_ptx and got.to_source, task
            assert re.search(rf"\.text\.{task}\b", got.text), task


@needs_wheels
def test_show_what_sass_cli(saxpy_ptx):
    env = {"PATH": NO_TOOLKIT_PATH + os.pathsep + os.path.dirname(sys.executable), "CUDA_HOME": None}   # None: unset
    out = run_cli("show", "saxpy_kernel_0_range_for", "--what", "sass", "--sm", "sm_80", cwd=ROOT, env=env)
    assert out.returncode == 0, out.stderr
    assert re.search(r"FFMA.*// ptx \d+ · saxpy\.py:\d+", out.stdout), out.stdout[:2000]
    js = run_cli("show", "saxpy_kernel_0_range_for", "--what", "sass", "--json", cwd=ROOT, env=env)
    import json
    d = json.loads(js.stdout)
    assert d["arch"] == "sm_90" and d["to_ptx"] and all(v[0] == "saxpy.py" for v in d["to_source"].values())
