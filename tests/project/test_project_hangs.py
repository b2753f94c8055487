"""Opening a project never hangs and never reads what is not a kernel file (issue 21): FIFOs,
devices and folders named `*.py` are refused by name, a link leaving the project is refused as in
`files = [...]`, a sleeping or stdin-reading import is interrupted, an oversized file is refused
before Python compiles it, and nesting too deep for the frontend is one message, not a traceback."""
import os
import subprocess
import sys
import threading

import pytest

from qdexplorer.project.loader import ProjectError, load_project
from tests.project.test_bad_projects import INC, one_liner
from tests.cli.test_cli import ROOT, cli


def _raised(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except Exception as e:  # noqa: BLE001 - handed to the test's thread to assert on
        return e
    return None


@pytest.mark.parametrize("kind", ["fifo", "devzero", "folder"])
def test_a_non_regular_py_is_refused_by_name_without_a_toml(tmp_path, kind):
    (tmp_path / "k.py").write_text(INC)
    odd = tmp_path / "odd.py"
    {"fifo": os.mkfifo, "devzero": lambda p: os.symlink("/dev/zero", p), "folder": os.mkdir}[kind](odd)
    got = []
    loader = threading.Thread(target=lambda: got.append(_raised(load_project, tmp_path, reload=True)), daemon=True)
    loader.start()
    loader.join(120)   # a hang guard: reading the FIFO or /dev/zero would never return
    assert not loader.is_alive(), "load_project waited on a non-regular file"
    assert isinstance(got[0], ProjectError), got
    msg = str(got[0])
    assert "odd.py" in msg and "listed file not found" not in msg
    assert "not a regular file" in msg or (kind == "devzero" and "outside the project folder" in msg)


def test_a_fifo_toml_is_refused_not_waited_on(tmp_path):
    (tmp_path / "k.py").write_text(INC)
    os.mkfifo(tmp_path / "qdexplorer.toml")
    with pytest.raises(ProjectError, match="qdexplorer.toml.*not a regular file"):
        load_project(tmp_path, reload=True)


def test_a_py_link_leaving_the_project_is_refused_by_default_discovery(tmp_path):
    proj, outside = tmp_path / "p", tmp_path / "outside"
    proj.mkdir()
    outside.mkdir()
    (outside / "evil.py").write_text("open(__file__ + '.ran', 'w').write('ran')\n")
    (proj / "k.py").write_text(INC)
    os.symlink(outside / "evil.py", proj / "link.py")
    with pytest.raises(ProjectError, match="link.py.*outside the project folder"):
        load_project(proj, reload=True)
    assert not (outside / "evil.py.ran").exists()


@pytest.mark.parametrize("tail", ["import time\ntime.sleep(600)\n", "import sys\nsys.stdin.read()\n",
                                  "import os\nos.read(0, 10)\n"])
def test_a_blocking_import_is_interrupted(tmp_path, tail):
    (tmp_path / "k.py").write_text(INC + "\n" + tail)
    env = dict(os.environ, PYTHONPATH=ROOT, QDEXPLORER_IMPORT_TIMEOUT="2")
    r, w = os.pipe()  # a stdin that never gives EOF, like a terminal nobody types into
    try:
        p = subprocess.run([sys.executable, "-m", "qdexplorer.cli", "compile", str(tmp_path)], stdin=r,
                           capture_output=True, text=True, env=env, timeout=120)
    finally:
        os.close(r)
        os.close(w)
    assert "Traceback" not in p.stderr
    if "sys.stdin" in tail:  # standard input reads as empty while a project imports
        assert p.returncode == 0, p.stderr
    else:
        assert p.returncode == 2 and "did not finish within 2 s" in p.stderr and "k.py:1" in p.stderr, p.stderr


def test_an_oversized_kernel_file_is_refused_before_it_is_compiled(tmp_path):
    (tmp_path / "k.py").write_text(INC + ("#" + "x" * 1023 + "\n") * (9 << 10))  # 9 MiB (of comments: fast to compile)
    p = cli("compile", str(tmp_path))
    assert one_liner(p) and "k.py" in p.stderr and "QDEXPLORER_MAX_FILE_MB" in p.stderr, p.stderr
    p = cli("compile", str(tmp_path), env={"QDEXPLORER_MAX_FILE_MB": "64"})
    assert p.returncode == 0, p.stderr


def test_a_deep_func_chain_and_a_huge_expression_are_one_message(tmp_path):
    chain = ["import numpy as np", "import qdexplorer.lang as qd", "", "@qd.func", "def f0(v):", "    return v + 1.0"]
    for i in range(1, 1500):
        chain += ["@qd.func", f"def f{i}(v):", f"    return f{i - 1}(v)"]
    chain += ["", "@qd.kernel", "def deep(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):",
              "    for i in range(x.shape[0]):", "        x[i] = f1499(x[i])", ""]
    (tmp_path / "deep.py").write_text("\n".join(chain))
    terms = " + ".join(["x[i]"] * 20000)
    (tmp_path / "wide.py").write_text("import qdexplorer.lang as qd\n\n@qd.kernel\n"
                                      "def wide(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
                                      "    for i in range(x.shape[0]):\n"
                                      f"        x[i] = {terms}\n")
    for name in ("deep.py", "wide.py"):
        d = tmp_path / name.removesuffix(".py")
        d.mkdir()
        os.replace(tmp_path / name, d / name)
        p = cli("compile", str(d), subprocess=True)   # how deep Python nests is the process's (its stack)
        assert p.returncode in (1, 2) and "Traceback" not in p.stderr + p.stdout, p.stderr[-2000:]
        text = p.stderr + p.stdout
        assert name in text and "nest" in text, text[-2000:]
