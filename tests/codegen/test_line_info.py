"""PTX carries `.loc` line tables: a PTX line maps to the kernel's source line and back."""
from pathlib import Path

from qdexplorer.compiler.pipeline import Pipeline
from qdexplorer.compiler.pool import InlineCompiler
from qdexplorer.compiler.ptx_lines import line_map
from qdexplorer.project.loader import load_project


def test_saxpy_ptx_lines_map_to_its_source_line(tmp_path):
    demo = load_project(None)
    saxpy = demo.kernels["saxpy"]
    src = Path(saxpy.file).read_text().splitlines()
    line = next(i for i, text in enumerate(src, 1) if "y[i] = a * x[i] + y[i]" in text)
    (ct,) = Pipeline(InlineCompiler()).compile(saxpy.tasks(), "nvptx")
    assert ".file" in ct.ptx and ".loc" in ct.ptx
    m = line_map(ct.ptx)
    ptx_lines = m.ptx_lines(line, "saxpy.py")
    assert ptx_lines, "no PTX instruction is attributed to the store's source line"
    assert all(m.source_line(n)[1] == line for n in ptx_lines)
    text = ct.ptx.splitlines()
    assert any("st.global" in text[n - 1] for n in ptx_lines)  # the store itself lands on that line
