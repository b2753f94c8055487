"""A symbolic link planted at each path qdexplorer writes is refused, never written through: every
writer goes through compiler/safe_files.write_file (issue 33). Each test puts a link to a guarded
file where the app is about to write and checks the guarded file is byte for byte unchanged."""
import json
import os
from pathlib import Path

import pytest

from qdexplorer.bench.context import RunContext
from qdexplorer.bench.export import write as export_run
from qdexplorer.bench.run import Launch, Run
from qdexplorer.cli import desktop, main
from qdexplorer.compiler.cache import PtxCache
from qdexplorer.compiler.dump import dump_artifact
from qdexplorer.compiler.overrides import OverrideStore
from qdexplorer.compiler.safe_files import UnsafePathError, write_file
from qdexplorer.ir.errors import QdError
from qdexplorer.project.trust import TrustStore

GUARDED = b"the victim's own bytes\n"


@pytest.fixture
def victim(tmp_path):
    p = tmp_path / "outside" / "victim"
    p.parent.mkdir()
    p.write_bytes(GUARDED)
    return p


def plant(at: Path, victim: Path) -> None:
    at.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(victim, at)


def test_write_file_refuses_a_link_and_writes_by_rename(tmp_path, victim):
    plant(tmp_path / "out.txt", victim)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        write_file(tmp_path / "out.txt", "x")
    assert victim.read_bytes() == GUARDED
    real = tmp_path / "real.txt"
    real.write_text("old")
    ino = real.stat().st_ino
    write_file(real, "new", mode=0o644)
    assert real.read_text() == "new" and real.stat().st_ino != ino and real.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("which", range(4))
def test_install_desktop_refuses_a_link_at_each_of_its_files(tmp_path, victim, capsys, which):
    home = tmp_path / "share"
    targets = [dst for _, dst in desktop.planned(home)]
    plant(targets[which], victim)   # the entry, the metainfo, the SVG icon, a PNG icon
    assert main(["install-desktop", "--data-home", str(home)]) == 2
    assert "symbolic link" in capsys.readouterr().err
    assert victim.read_bytes() == GUARDED and targets[which].is_symlink()


def test_install_desktop_writes_readable_files_and_uninstall_removes_a_link_not_its_target(tmp_path, victim):
    home = tmp_path / "share"
    written = desktop.install(home)
    assert all(p.stat().st_mode & 0o777 == 0o644 for p in written)
    entry = written[0]
    entry.unlink()
    plant(entry, victim)
    desktop.uninstall(home)
    assert not entry.is_symlink() and victim.read_bytes() == GUARDED


def test_export_refuses_a_link(tmp_path, victim):
    run = Run("r", RunContext(backend="cpu", device="x"), [Launch("t", "k", "w", 0, 1.0, 1, 1)])
    for kind in ("csv", "json", "perfetto"):
        at = tmp_path / f"run.{kind}"
        plant(at, victim)
        with pytest.raises(QdError, match="symbolic link"):
            export_run(run, at, kind)
    assert victim.read_bytes() == GUARDED


def test_trust_list_refuses_a_link(tmp_path, victim):
    store = TrustStore(tmp_path / "config" / "trusted_projects.json")
    plant(store.path, victim)
    with pytest.raises(UnsafePathError):
        store.remember(tmp_path, True)
    assert victim.read_bytes() == GUARDED


def test_cache_entry_at_a_link_is_skipped(tmp_path, victim):
    cache = PtxCache(tmp_path / "cache", offline=True)
    key = "ab" * 32
    at = cache.path(key, "sm_90")
    plant(at, victim)
    cache.put(key, "sm_90", b"PTX")
    assert victim.read_bytes() == GUARDED and cache.stats.skipped == 1


def test_dump_and_override_refuse_a_link(tmp_path, victim):
    plant(tmp_path / "dump" / "task_a.ptx", victim)
    with pytest.raises(UnsafePathError):
        dump_artifact(tmp_path / "dump", "task_a", ".ptx", b"x")
    proj = tmp_path / "proj"
    proj.mkdir()
    store = OverrideStore(proj)
    plant(proj / ".qdexplorer" / "overrides" / "task_a.ptx", victim)
    with pytest.raises(QdError):
        store.write("task_a", ".version 8.5\n", b"generated")
    assert victim.read_bytes() == GUARDED


def test_gui_exports_refuse_a_link(qtbot, tmp_path, victim):
    pytest.importorskip("PySide6")
    from qdexplorer.bench.compare import compare_runs
    from qdexplorer.gui.timing.compare_view import CompareView
    before = Run("a", RunContext(backend="cpu", device="x"), [Launch("t", "k", "w", r, 1.0, 1, 1, None, r // 5)
                                                              for r in range(40)])
    after = Run("b", RunContext(backend="cpu", device="x"), [Launch("t", "k", "w", r, 2.0, 1, 1, None, r // 5)
                                                             for r in range(40)])
    view = CompareView()
    qtbot.addWidget(view)
    view.show_comparison(compare_runs(before, after), before, after)
    for name, export in (("c.png", view.export_chart), ("c.svg", view.export_chart),
                         ("n.json", view.export_numbers), ("n.csv", view.export_numbers)):
        plant(tmp_path / name, victim)
        with pytest.raises(UnsafePathError):
            export(tmp_path / name)
    assert victim.read_bytes() == GUARDED
    assert json.loads(view.export_numbers(tmp_path / "fresh.json").read_text())["tasks"]
