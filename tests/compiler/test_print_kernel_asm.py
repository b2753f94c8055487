"""`print_kernel_asm`: every task's PTX as `<task>.ptx`, without the NUL byte ptxas stops at."""
import os
import subprocess
import sys
import textwrap

import pytest

from qdexplorer.engine import Engine
from qdexplorer.project.loader import ProjectError, load_project

from .test_cache import ROOT, write_project

TASKS = [f"three_kernel_{i}_range_for" for i in range(3)]

SCRIPT = textwrap.dedent("""\
    import numpy as np
    import qdexplorer.lang as qd

    qd.init(arch=qd.cpu, print_kernel_asm=True)

    @qd.kernel
    def twice(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] * 2.0
        for i in range(x.shape[0]):
            x[i] = x[i] + 0.5

    x = np.ones(10, np.float32)
    twice(x)
    assert (x == 2.5).all(), x
    """)


def _check_ptx(path, task):
    data = path.read_bytes()
    assert b"\x00" not in data
    assert f".entry {task}" in data.decode() and data.decode().lstrip().startswith("//")


def test_script_writes_each_tasks_ptx_in_the_working_folder(tmp_path):
    (tmp_path / "s.py").write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=ROOT, QDEXPLORER_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.run([sys.executable, "s.py"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    written = sorted(f.name for f in tmp_path.glob("*.ptx"))
    assert written == ["twice_kernel_0_range_for.ptx", "twice_kernel_1_range_for.ptx"]
    for f in tmp_path.glob("*.ptx"):
        _check_ptx(f, f.name[:-4])


def test_project_setting_writes_the_ptx_that_runs(tmp_path):
    proj = write_project(tmp_path / "p")
    (proj / "qdexplorer.toml").write_text("print_kernel_asm = true\n")
    # an override file saved by some editor with a trailing NUL: what is printed is what runs, NUL-free
    task = TASKS[1]
    with Engine(proj, in_process=True, cache_dir=str(tmp_path / "cache")) as eng:
        _, compiled = eng.compile(target="nvptx")
        for t in TASKS:
            _check_ptx(proj / f"{t}.ptx", t)
        gen = {ct.task: ct for ct in compiled}[task].generated
        path = eng.set_override(task, gen)
        path.write_bytes(gen + b"// edited\n\x00")
        assert eng.run()[0].status == "passed"   # a CPU run still prints the PTX
    printed = (proj / f"{task}.ptx").read_bytes()
    assert printed == gen + b"// edited\n"
    _check_ptx(proj / f"{task}.ptx", task)


def test_off_by_default_and_validated(tmp_path):
    proj = write_project(tmp_path / "p")
    with Engine(proj, in_process=True, cache_dir=str(tmp_path / "cache")) as eng:
        eng.compile(target="nvptx")
    assert not list(proj.glob("*.ptx"))
    (proj / "qdexplorer.toml").write_text('print_kernel_asm = "yes"\n')
    with pytest.raises(ProjectError, match="print_kernel_asm must be true or false"):
        load_project(proj, reload=True)
