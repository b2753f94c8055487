"""Broken or hostile projects end in one message naming the file or setting, never a traceback."""
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from qdexplorer.project.loader import ProjectError, bundled_demo, load_project, read_config
from qdexplorer.project.trust import TrustStore, import_notice
from tests.cli.test_cli import ROOT, cli

INC = textwrap.dedent("""\
    import numpy as np
    import qdexplorer.lang as qd

    @qd.kernel
    def inc(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1.0

    @qd.workload(inc, check=lambda b, a: np.testing.assert_allclose(a["x"], b["x"] + 1.0))
    def w(rng):
        return dict(x=np.zeros(16, np.float32))
    """)


def one_liner(p):
    return p.returncode == 2 and "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) <= 2


@pytest.mark.parametrize("setting, value", [
    ("cache_dir", "7"), ("files", "[1]"), ("files", '"k.py"'), ("offline_cache", '"no"'),
    ("block_dim", '"big"'), ("block_dim", "-1"), ("block_dim", "true"), ("arch", '"sm_banana"'),
    ("arch", '"/some/dir"'), ("backend", '"tpu"'), ("name", "3"),
])
def test_wrong_toml_types_name_the_setting(tmp_path, setting, value):
    (tmp_path / "k.py").write_text(INC)
    (tmp_path / "qdexplorer.toml").write_text(f"[project]\n{setting} = {value}\n")
    with pytest.raises(ProjectError, match=f"qdexplorer.toml: {setting} must be"):
        read_config(tmp_path)
    if setting == "files":
        p = cli("compile", str(tmp_path))
        assert one_liner(p) and "files must be" in p.stderr


def test_toml_files_stay_inside_the_project(tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    (tmp_path / "outside.py").write_text("raise SystemExit('outside code ran')\n")
    (proj / "k.py").write_text(INC)
    for listed in ("../outside.py", str(tmp_path / "outside.py"), "../../../etc/passwd"):
        (proj / "qdexplorer.toml").write_text(f'[project]\nfiles = ["k.py", "{listed}"]\n')
        p = cli("compile", str(proj))
        assert one_liner(p) and "outside the project folder" in p.stderr, p.stderr
    os.symlink(tmp_path / "outside.py", proj / "link.py")  # a link inside that points out
    (proj / "qdexplorer.toml").write_text('[project]\nfiles = ["k.py", "link.py"]\n')
    p = cli("compile", str(proj))
    assert one_liner(p) and "outside the project folder" in p.stderr


def test_non_utf8_source_honours_its_coding_line(tmp_path):
    text = "# -*- coding: latin-1 -*-\n# café\n" + INC
    (tmp_path / "k.py").write_bytes(text.encode("latin-1"))
    p = cli("run", str(tmp_path))
    assert p.returncode == 0 and "PASSED" in p.stdout, p.stderr
    p = cli("compile", str(tmp_path))
    assert p.returncode == 0
    p = cli("show", str(tmp_path), "inc_kernel_0_range_for", "--what", "source",
            env={"PYTHONIOENCODING": "ascii"})
    assert p.returncode == 0 and "x[i] = x[i] + 1.0" in p.stdout
    (tmp_path / "k.py").write_bytes(("# café\n" + INC).encode("latin-1"))  # no coding line: not UTF-8
    p = cli("compile", str(tmp_path))
    assert one_liner(p) and "k.py: not valid utf-8 text" in p.stderr and "coding" in p.stderr


def test_binary_garbage_and_bad_coding_line(tmp_path):
    (tmp_path / "k.py").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00garbage\x00\x00")
    p = cli("compile", str(tmp_path))
    assert one_liner(p) and "k.py" in p.stderr
    (tmp_path / "k.py").write_bytes(b"# coding: no-such-codec\nx = 1\n")
    p = cli("compile", str(tmp_path))
    assert one_liner(p) and "k.py" in p.stderr


def test_non_utf8_toml(tmp_path):
    (tmp_path / "k.py").write_text(INC)
    (tmp_path / "qdexplorer.toml").write_bytes(b'[project]\nname = "caf\xe9"\n')
    p = cli("compile", str(tmp_path))
    assert one_liner(p) and "qdexplorer.toml: not UTF-8" in p.stderr


def _as_nobody(args, env):
    """Run the CLI as an unprivileged user (root reads everything, so permissions need another user)."""
    if os.geteuid() != 0:
        return cli(*args, env=env)
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: cannot test unreadable files")
    e = dict(os.environ, PYTHONPATH=ROOT, HOME="/tmp")
    e.update(env)
    return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                           sys.executable, "-m", "qdexplorer.cli", *args],
                          capture_output=True, text=True, env=e, timeout=300)


def test_unreadable_file_and_folder():
    base = Path(tempfile.mkdtemp(prefix="qdx-unreadable-"))
    try:
        base.chmod(0o755)
        cache = base / "cache"
        cache.mkdir()
        os.chown(cache, 65534, 65534) if os.geteuid() == 0 else None
        proj = base / "p"
        proj.mkdir()
        (proj / "k.py").write_text(INC)
        (proj / "k.py").chmod(0o000)
        p = _as_nobody(["compile", str(proj)], {"QDEXPLORER_CACHE_DIR": str(cache)})
        assert one_liner(p) and "k.py: cannot read it" in p.stderr, p.stderr
        (proj / "k.py").chmod(0o644)
        proj.chmod(0o311)  # can enter, cannot list
        p = _as_nobody(["compile", str(proj)], {"QDEXPLORER_CACHE_DIR": str(cache)})
        assert one_liner(p) and "cannot read project folder" in p.stderr, p.stderr
        for mode in (0o700, 0o000):   # issue 41: cannot enter it: was "qdexplorer.toml: Permission denied"
            proj.chmod(mode)
            for cmd in ("compile", "runs"):
                p = _as_nobody([cmd, str(proj)], {"QDEXPLORER_CACHE_DIR": str(cache), "QDEXPLORER_DATA_DIR": str(cache)})
                assert p.returncode == 2 and one_liner(p) and f"cannot read project folder {proj}" in p.stderr, \
                    (cmd, oct(mode), p.stderr)
    finally:
        (base / "p").chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)


def test_an_import_that_never_returns_is_interrupted(tmp_path):
    (tmp_path / "k.py").write_text(INC + "\nwhile True:\n    pass\n")
    p = cli("compile", str(tmp_path), env={"QDEXPLORER_IMPORT_TIMEOUT": "1"}, subprocess=True)   # a hang: the real process
    assert one_liner(p) and "did not finish within 1 s" in p.stderr and "k.py:13" in p.stderr, p.stderr


def test_an_import_timeout_interrupts_a_background_thread_too(tmp_path, monkeypatch):
    import threading
    (tmp_path / "k.py").write_text(INC + "\nx = 0\nwhile True:\n    x += 1\n")
    monkeypatch.setenv("QDEXPLORER_IMPORT_TIMEOUT", "0.5")
    errors = []
    t = threading.Thread(target=lambda: errors.append(_load_error(tmp_path)))
    t.start()
    t.join(30)
    assert not t.is_alive() and "did not finish within 0.5 s" in errors[0]


def _load_error(path):
    try:
        load_project(path, reload=True)
    except Exception as e:  # noqa: BLE001
        return str(e)
    return ""


def test_cli_says_it_imports_the_projects_python(tmp_path):
    (tmp_path / "k.py").write_text(INC)
    p = cli("compile", str(tmp_path))
    assert p.returncode == 0
    assert [ln for ln in p.stderr.splitlines() if "importing the Python files of" in ln] and "runs" in p.stderr
    assert import_notice(None) is None and import_notice(bundled_demo()) is None


def test_trust_store_remembers_answers(tmp_path):
    store = TrustStore(tmp_path / "cfg" / "trusted.json")
    proj = tmp_path / "p"
    proj.mkdir()
    assert store.answer(proj) is None and store.is_trusted(bundled_demo())
    store.remember(proj, False)
    assert store.answer(proj) is False
    store.remember(proj / ".", True)
    assert TrustStore(tmp_path / "cfg" / "trusted.json").is_trusted(proj)
    (tmp_path / "cfg" / "trusted.json").write_text("{garbled")
    assert store.answer(proj) is None  # a damaged store asks again, never trusts


@pytest.mark.parametrize("args, what", [
    (["--arch", "/tmp/x"], "expected an SM architecture"), (["--arch", "sm_banana"], "expected an SM"),
])
def test_arch_is_checked(tmp_path, args, what):
    p = cli("compile", *args, "--cache-dir", str(tmp_path / "c"))
    assert p.returncode == 2 and what in p.stderr and not (tmp_path / "c").exists()


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_timeout_must_be_positive(value):
    p = cli("run", "--timeout", value)
    assert p.returncode == 2 and "argument --timeout" in p.stderr, p.stderr
    assert "must be a number of seconds greater than 0" in p.stderr or "expected a number" in p.stderr, p.stderr
