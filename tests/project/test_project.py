"""Project folders: manifest settings reach the engine."""
import shutil

from qdexplorer.engine import Engine
from qdexplorer.project.loader import bundled_demo, load_project


def test_manifest_settings(tmp_path):
    shutil.copy(bundled_demo() / "saxpy.py", tmp_path / "saxpy.py")
    (tmp_path / "unused.py").write_text("raise RuntimeError('not listed, never imported')\n")
    (tmp_path / "qdexplorer.toml").write_text(
        '[project]\nname = "mine"\nfiles = ["saxpy.py"]\narch = "sm_80"\nblock_dim = 64\n'
        'offline_cache = false\nbackend = "cpu"\n')
    proj = load_project(tmp_path)
    assert proj.name == "mine" and set(proj.kernels) == {"saxpy", "copy"}
    with Engine(proj, in_process=True, cache_dir=str(tmp_path / "cache")) as eng:
        assert eng.arch == "sm_80" and eng.backend == "cpu" and not eng.cache_info()["offline"]
        _, compiled = eng.compile(target="nvptx")
        assert {ct.spec.block_dim for ct in compiled} == {64}
        assert all(".target sm_80" in ct.ptx for ct in compiled)
        assert [r.status for r in eng.run()] == ["passed", "passed"]
    assert not (tmp_path / "cache").exists()


def test_single_file_project(tmp_path):
    f = tmp_path / "one.py"
    shutil.copy(bundled_demo() / "stencil.py", f)
    with Engine(f, in_process=True) as eng:
        assert eng.project.name == "one"
        assert [r.status for r in eng.run()] == ["passed"]


KERNEL_FILE = '''\
import numpy as np
import qdexplorer.lang as qd

@qd.kernel
def fill(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        x[i] = {value}

@qd.workload(fill)
def {workload}(rng):
    return dict(x=np.zeros(4, np.float32))
'''


def test_two_files_defining_a_kernel_of_one_name_are_refused_naming_both(tmp_path):
    """Tasks are named after the kernel: two kernels of one name would collapse into one task set,
    and the second file's workloads would run the first file's kernel (issue 21)."""
    import pytest

    from qdexplorer.project.loader import ProjectError
    (tmp_path / "a.py").write_text(KERNEL_FILE.format(value="1.0", workload="wa"))
    (tmp_path / "b.py").write_text("\n\n" + KERNEL_FILE.format(value="2.0", workload="wb"))
    with pytest.raises(ProjectError, match=r"kernel 'fill' is defined twice.*a\.py:4.*b\.py:6"):
        load_project(tmp_path)


def test_one_file_defining_two_kernels_of_one_name_is_refused(tmp_path):
    import pytest

    from qdexplorer.project.loader import ProjectError
    text = KERNEL_FILE.format(value="1.0", workload="wa") + KERNEL_FILE.format(value="2.0", workload="wb").replace(
        "def fill(", "def fill2(").replace("(fill)", "(fill2)") + "\nfill3 = fill\n"
    (tmp_path / "a.py").write_text(text)
    load_project(tmp_path)  # an alias of one kernel is the same kernel: fine
    (tmp_path / "a.py").write_text(text + "\ndef _make():\n    @qd.kernel\n    def fill(x: qd.types.ndarray("
                                   "dtype=qd.f32, ndim=1)):\n        for i in range(x.shape[0]):\n"
                                   "            x[i] = 3.0\n    return fill\nother = _make()\n")
    with pytest.raises(ProjectError, match=r"kernel 'fill' is defined twice.*a\.py:4.*a\.py:2\d"):
        load_project(tmp_path)


def test_keep_going_leaves_out_a_broken_file_and_says_why(tmp_path):
    """The window opens a project with one broken file (issue 22 #1): the rest loads, the file's
    message is kept; the CLI's strict load still refuses, and a partial project is never cached."""
    import pytest

    from qdexplorer.project.loader import ProjectError
    shutil.copytree(bundled_demo(), tmp_path / "p")
    bad = tmp_path / "p" / "saxpy.py"
    bad.write_text(bad.read_text() + "\ndef oops(:\n")
    with pytest.raises(ProjectError, match="saxpy.py:.*syntax error"):
        load_project(tmp_path / "p")
    proj = load_project(tmp_path / "p", keep_going=True)
    assert list(proj.broken) == [str(bad)] and "syntax error" in proj.broken[str(bad)]
    assert "saxpy" not in proj.kernels and "jacobi" in proj.kernels
    with pytest.raises(ProjectError, match="syntax error"):      # not served from the cache
        load_project(tmp_path / "p")
    for f in (tmp_path / "p").glob("*.py"):
        f.write_text("raise RuntimeError('broken')\n")
    with pytest.raises(ProjectError, match="RuntimeError: broken"):   # nothing left: the first message
        load_project(tmp_path / "p", keep_going=True)
