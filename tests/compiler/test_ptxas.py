"""ptxas as checker and resource meter (real ptxas, real generated PTX), and the occupancy calculator."""
import os
import stat
import sys

import pytest

from qdexplorer.compiler import ptxas
from qdexplorer.compiler.occupancy import limits_for, occupancy
from tests._cli import run_cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
needs_ptxas = pytest.mark.skipif(ptxas.find_ptxas() is None, reason=ptxas.INSTALL_HINT)


def generated_ptx(task):
    out = run_cli("show", task, "--what", "ptx", cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.fixture(scope="module")
def saxpy_ptx():
    return generated_ptx("saxpy_kernel_0_range_for")


@needs_ptxas
def test_generated_ptx_is_valid_and_metered(saxpy_ptx):
    rep = ptxas.validate(saxpy_ptx)
    assert rep.ok and rep.errors == [] and rep.arch == "sm_90"
    res = rep.resources["saxpy_kernel_0_range_for"]
    assert 8 <= res.registers <= 64
    assert res.spills == 0 and res.shared_bytes == 0 and res.local_bytes == 0


@needs_ptxas
def test_errors_come_back_at_their_lines(saxpy_ptx):
    lines = saxpy_ptx.splitlines()
    n = next(i for i, ln in enumerate(lines) if "mad.lo.s32" in ln)
    lines[n] = lines[n].replace("mad.lo.s32", "madd.lo.s32")
    rep = ptxas.validate("\n".join(lines) + "\n")
    assert not rep.ok
    assert [(d.line, d.severity) for d in rep.errors] == [(n + 1, "error")]
    assert "madd" in rep.errors[0].message
    assert "task.ptx" not in rep.log and "/tmp" not in rep.log  # no temp paths in what the user reads


@needs_ptxas
def test_shared_memory_and_barriers_of_the_block_reduction():
    rep = ptxas.validate(generated_ptx("block_sum_kernel_1_range_for"))
    res = rep.resources["block_sum_kernel_1_range_for"]
    assert res.shared_bytes >= 128 * 4 and res.barriers >= 1


@needs_ptxas
def test_arch_below_the_target_is_a_clear_error(saxpy_ptx):
    rep = ptxas.validate(saxpy_ptx, arch="sm_75")
    assert not rep.ok and rep.errors and "SM version" in rep.errors[0].message


@needs_ptxas
def test_relocatable_cubin(saxpy_ptx):
    rep, cubin = ptxas.assemble_cubin(saxpy_ptx)
    assert rep.ok and cubin[:4] == b"\x7fELF"
    rep, cubin = ptxas.assemble_cubin(saxpy_ptx.replace(".entry", ".entryy"))
    assert not rep.ok and cubin is None and rep.errors


def test_missing_ptxas_says_how_to_get_it(monkeypatch, tmp_path):
    monkeypatch.setenv("QDEXPLORER_PTXAS", str(tmp_path / "nowhere"))
    assert ptxas.find_ptxas() is None
    with pytest.raises(ptxas.PtxasNotFound, match="nvidia-cuda-nvcc"):
        ptxas.validate(".version 8.5\n.target sm_90\n")


def test_finds_the_wheel_layout(monkeypatch, tmp_path):
    fake = tmp_path / "site" / "nvidia" / "cu13" / "bin" / "ptxas"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    for v in ("QDEXPLORER_PTXAS", "CUDA_HOME", "CUDA_PATH"):
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(sys, "path", [str(tmp_path / "site")])
    monkeypatch.setattr(ptxas, "TOOLKIT_GLOBS", [])
    assert ptxas.find_ptxas() == fake


def test_parses_older_and_newer_verbose_formats():
    log = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k' for 'sm_80'
ptxas info    : Function properties for k
    64 bytes stack frame, 40 bytes spill stores, 36 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 4096 bytes smem, 16 bytes lmem, 368 bytes cmem[0], 8 bytes cmem[2]
ptxas info    : Function properties for helper
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
"""
    res = ptxas.parse_resources(log)
    assert list(res) == ["k"]
    k = res["k"]
    assert (k.registers, k.barriers, k.shared_bytes, k.local_bytes, k.const_bytes) == (255, 1, 4096, 16, 376)
    assert (k.stack_bytes, k.spills, k.arch) == (64, 76, "sm_80")


@pytest.mark.parametrize("arch, regs, shared, block, blocks, frac, by", [
    ("sm_90", 24, 0, 128, 16, 1.0, "warps"),        # what the driver reports for saxpy on an H200
    ("sm_80", 64, 0, 256, 4, 0.5, "registers"),      # the classic "64 registers → 50%" on A100
    ("sm_90", 255, 0, 256, 1, 0.125, "registers"),
    ("sm_90", 16, 48 * 1024, 256, 4, 0.5, "shared"),
    ("sm_86", 32, 0, 128, 12, 1.0, "warps"),         # 1536 threads per SM
    ("sm_75", 32, 0, 32, 16, 0.5, "blocks"),         # 16 one-warp blocks fill half of 32 warps
    ("sm_89", 32, 0, 32, 24, 0.5, "blocks"),
    ("sm_120", 32, 0, 128, 12, 1.0, "warps"),
])
def test_occupancy_matches_the_calculator(arch, regs, shared, block, blocks, frac, by):
    occ = occupancy(arch, regs, shared, block)
    assert (occ.active_blocks, occ.fraction, occ.limited_by) == (blocks, frac, by)


def test_occupancy_edges():
    assert occupancy("sm_90", 16, 228 * 1024, 128).active_blocks == 0  # more shared than a block may have
    assert limits_for("sm_90a") == limits_for(90) and limits_for("sm_130") == limits_for(121)
    with pytest.raises(ValueError, match="block size"):
        occupancy("sm_90", 16, 0, 2048)
    with pytest.raises(ValueError, match="oldest known"):
        limits_for("sm_60")


def test_driver_jit_log_maps_to_lines_too():
    log = ("ptxas application ptx input, line 56; error   : Not a name of any known instruction: 'addx'\n"
           "ptxas fatal   : Ptx assembly aborted due to errors")
    assert [(d.line, d.severity) for d in ptxas.parse_diagnostics(log)] == [(56, "error")]


@needs_ptxas
def test_task_resources_for_the_tree(saxpy_ptx):
    res = ptxas.task_resources(saxpy_ptx, "saxpy_kernel_0_range_for", 128)
    assert res["source"] == "ptxas" and res["spill_bytes"] == 0 and 0 < res["occupancy"] <= 1
    assert res["occupancy"] == occupancy("sm_90", res["registers"], 0, 128).fraction
    bad = ptxas.task_resources(saxpy_ptx.replace("mad.lo.s32", "madd.lo.s32"), "saxpy_kernel_0_range_for", 128)
    assert "error" in bad and bad["diagnostics"][0].line


@pytest.mark.skipif(ptxas.find_tool("nvdisasm") is None and ptxas.find_tool("cuobjdump") is None,
                    reason="no nvdisasm or cuobjdump (CUDA toolkit) on this machine")
def test_sass(saxpy_ptx):
    import re
    sass = ptxas.disassemble_sass(saxpy_ptx)
    assert ".text.saxpy_kernel_0_range_for" in sass
    assert re.search(r"\b(FFMA|FMUL|FADD)\b", sass), sass  # real SASS float instructions, not PTX


def test_line_map_from_loc_directives():
    from qdexplorer.compiler.ptx_lines import line_map
    ptx = "\n".join([".version 8.5", ".target sm_90", '.file 1 "/p/saxpy.py"', ".visible .entry k(", ")", "{",
                     ".loc 1 9 5", "mov.u32 %r1, %tid.x;", "$L__BB0_1:", ".loc 1 10 9", "ld.global.f32 %f1, [%rd1];",
                     "fma.rn.f32 %f2, %f1, %f1, %f1;", ".loc 1 0 9", "ret;", "}"])
    m = line_map(ptx)
    assert m.source_line(8) == ("/p/saxpy.py", 9) and m.source_line(11) == ("/p/saxpy.py", 10)
    assert m.ptx_lines(10, "saxpy.py") == [11, 12] and m.ptx_lines(10, "other.py") == []
    assert m.source_line(9) is None and m.source_line(14) is None  # labels and line-0 code belong to no line
