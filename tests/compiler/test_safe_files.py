"""Paths built from input stay where they belong: task names, symlinks, --arch, override contents."""
import json
import os
import shutil
import textwrap

import pytest

from qdexplorer.compiler.overrides import OverrideStore
from qdexplorer.compiler.safe_files import UnsafePathError, check_task_name
from qdexplorer.engine import Engine
from qdexplorer.project.loader import bundled_demo
from tests.cli.test_cli import cli

TASK = "saxpy_kernel_0_range_for"

ESCAPING = textwrap.dedent("""\
    import qdexplorer.lang as qd

    def k(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = 1.0
    k.__name__ = {name!r}
    k = qd.kernel(k)
    """)


def demo_copy(tmp_path):
    proj = tmp_path / "proj"
    shutil.copytree(bundled_demo(), proj)
    return proj


@pytest.mark.parametrize("name", ["../ESC", "a/b", "x\x00y", "k" * 201, "", "..", "1abc"])
def test_unsafe_task_names_are_refused(name):
    with pytest.raises(UnsafePathError):
        check_task_name(name)
    assert check_task_name("ядро_kernel_0_range_for")  # identifiers in any script are fine


def test_a_kernel_named_dotdot_cannot_dump_outside_the_folder(tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "k.py").write_text(ESCAPING.format(name="../ESC"))
    dump = tmp_path / "dump" / "inner"
    p = cli("compile", str(proj), "--dump", str(dump))
    assert p.returncode == 2 and "not an identifier" in p.stderr and "Traceback" not in p.stderr
    assert not list((tmp_path / "dump").glob("ESC*")) and not list(tmp_path.glob("ESC*"))


def test_symlink_in_dump_folder_is_refused_and_its_target_untouched(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    dump = tmp_path / "dump"
    dump.mkdir()
    os.symlink(victim, dump / f"{TASK}.ptx")
    p = cli("compile", "--dump", str(dump))
    assert p.returncode == 2 and "symbolic link" in p.stderr and "Traceback" not in p.stderr
    assert victim.read_text() == "precious"


def test_dump_path_that_is_a_file(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    p = cli("compile", "--dump", str(f))
    assert p.returncode == 2 and "not a folder" in p.stderr and "Traceback" not in p.stderr


def test_override_revert_cannot_delete_outside_the_project(tmp_path):
    proj = demo_copy(tmp_path)
    for suffix in (".ptx", ".json"):
        (tmp_path / f"victim{suffix}").write_text("keep me")
    (proj / ".qdexplorer" / "overrides").mkdir(parents=True)
    p = cli("override", "revert", str(proj), "../../../victim")
    assert p.returncode == 2 and "not an identifier" in p.stderr
    assert (tmp_path / "victim.ptx").exists() and (tmp_path / "victim.json").exists()


def _ptx_for(task):
    return f".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry {task}(\n)\n{{\nret;\n}}\n"


def test_symlinked_override_file_and_folder_are_refused(tmp_path):
    proj = demo_copy(tmp_path)
    secret = tmp_path / "secret.ptx"
    secret.write_text(_ptx_for(TASK))
    folder = proj / ".qdexplorer" / "overrides"
    folder.mkdir(parents=True)
    os.symlink(secret, folder / f"{TASK}.ptx")
    with Engine(proj, in_process=True) as eng:
        _, compiled = eng.compile(["saxpy"], target="nvptx")
    ct = {c.task: c for c in compiled}[TASK]
    assert ct.override == "refused" and "symbolic link" in ct.error and ct.output == b""
    shutil.rmtree(proj / ".qdexplorer")
    outside = tmp_path / "outside"
    outside.mkdir()
    (proj / ".qdexplorer").mkdir()
    os.symlink(outside, proj / ".qdexplorer" / "overrides")
    store = OverrideStore(proj)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        store.write(TASK, _ptx_for(TASK), b"generated")
    (outside / f"{TASK}.ptx").write_text("x")
    with pytest.raises(UnsafePathError, match="symbolic link"):
        store.revert(TASK)
    assert list(outside.iterdir()) == [outside / f"{TASK}.ptx"]


@pytest.mark.parametrize("content, why", [
    (b"\xff\xfe binary \x00\x01", "not UTF-8"),
    (b"hello, not ptx\n", "does not look like PTX"),
    (_ptx_for("copy_kernel_0_range_for").encode(), "no '.entry saxpy_kernel_0_range_for("),
])
def test_an_override_must_be_this_tasks_ptx(tmp_path, content, why):
    proj = demo_copy(tmp_path)
    f = tmp_path / "edit.ptx"
    f.write_bytes(content)
    assert cli("compile", str(proj)).returncode == 0
    p = cli("override", "set", str(proj), TASK, str(f))
    assert p.returncode == 2 and why in p.stderr and "Traceback" not in p.stderr
    assert not (proj / ".qdexplorer" / "overrides" / f"{TASK}.ptx").exists()
    # and a bad file placed by hand is refused at compile time, never loaded
    (proj / ".qdexplorer" / "overrides").mkdir(parents=True)
    (proj / ".qdexplorer" / "overrides" / f"{TASK}.ptx").write_bytes(content)
    out = json.loads(cli("compile", str(proj), "--json").stdout)
    row = {t["task"]: t for t in out["tasks"]}[TASK]
    assert row["override"] == "refused" and why in row["error"]


def test_orphaned_and_unknown_overrides(tmp_path):
    proj = demo_copy(tmp_path)
    assert cli("compile", str(proj)).returncode == 0
    generated = cli("show", str(proj), TASK).stdout
    f = tmp_path / "edit.ptx"
    f.write_text(generated + "// edited\n")
    assert cli("override", "set", str(proj), TASK, str(f)).returncode == 0
    (proj / ".qdexplorer" / "overrides" / f"{TASK}.json").unlink()  # sidecar lost
    out = json.loads(cli("compile", str(proj), "--json").stdout)
    assert {t["task"]: t["override"] for t in out["tasks"]}[TASK] == "unknown"
    assert f"{TASK}  unknown" in cli("override", "list", str(proj)).stdout
    (proj / "saxpy.py").write_text((proj / "saxpy.py").read_text().replace("def saxpy(", "def saxpy2(")
                                   .replace("(saxpy,", "(saxpy2,"))
    assert cli("compile", str(proj)).returncode == 0
    listing = cli("override", "list", str(proj)).stdout
    assert f"{TASK}  orphaned" in listing


def test_load_ptx_folder_missing_or_matching_nothing(tmp_path):
    p = cli("compile", "--load-ptx", str(tmp_path / "nope"))
    assert p.returncode == 2 and "does not exist" in p.stderr and "Traceback" not in p.stderr
    (tmp_path / "load").mkdir()
    (tmp_path / "load" / "other_task.ptx").write_text(_ptx_for("other_task"))
    p = cli("compile", "--load-ptx", str(tmp_path / "load"))
    assert p.returncode == 0 and "no <task>.ptx file there matches a task" in p.stderr
