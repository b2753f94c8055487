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
        assert eng.arch == "sm_80" and eng.backend == "cpu" and not eng.cache.offline
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
