"""A real, non-editable install: `override set` on the bundled demo writes into the user data folder
and leaves every file under site-packages as it was (the rule lives in project/data_folder.py and
every Engine and command applies it)."""
import fcntl
import hashlib
import os
import site
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TASK = "saxpy_kernel_0_range_for"


def _tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    # a PYTHONPATH that names a checkout (a developer's, a worktree's) would answer `import qdexplorer`
    # in the venv before the wheel, and make pip call the wheel installed already
    saved = os.environ.pop("PYTHONPATH", None)
    try:
        yield _shared_install(tmp_path_factory)
    finally:
        if saved is not None:
            os.environ["PYTHONPATH"] = saved


def _shared_install(tmp_path_factory):
    """One wheel and venv a run: xdist's workers of one run share their basetemp's parent, and the first to take
    the lock builds there while the other waits (each built its own before: 9 s of CPU twice)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return _install(tmp_path_factory.mktemp("wheel"))
    tmp = tmp_path_factory.getbasetemp().parent / "installed-wheel"
    with open(tmp.parent / "installed-wheel.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = tmp / "done"
        if done.exists():
            reason = done.read_text()
            if reason:
                pytest.skip(reason)
            return tmp / "venv" / "bin" / "python", Path((tmp / "site_dir").read_text()), tmp
        tmp.mkdir(exist_ok=True)
        try:
            py, site_dir, _ = _install(tmp)
        except pytest.skip.Exception as s:
            done.write_text(str(s.msg) or "skipped")
            raise
        (tmp / "site_dir").write_text(str(site_dir))
        done.write_text("")
        return py, site_dir, tmp


def _install(tmp: Path):
    # built from a copy of the package's sources: setuptools builds in the source folder's build/, which
    # a checkout may hold stale (a wheel without qdexplorer/resources was built from one) and which two
    # test processes building at once would share
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "tests", "benchmarks", "docs", ".*"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp / "dist"),
                            str(src)], capture_output=True, text=True, timeout=600)
    if built.returncode != 0 and "No matching distribution" in built.stderr:
        pytest.skip("cannot fetch the build backend (offline)")
    assert built.returncode == 0, built.stderr[-3000:]
    wheel, = (tmp / "dist").glob("qdexplorer-*.whl")
    env_dir = tmp / "venv"
    # no pip of its own (ensurepip's install of pip cost more than the rest of the venv): the test
    # environment's pip installs the wheel into the venv's site-packages, run by the venv's interpreter
    venv.create(env_dir, with_pip=False)
    py = env_dir / "bin" / "python"
    site_dir = Path(subprocess.check_output([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                            text=True).strip())
    inst = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps",
                           "--disable-pip-version-check", str(wheel)], capture_output=True, text=True, timeout=300)
    assert inst.returncode == 0, inst.stderr[-3000:]
    # the dependencies come from the environment the tests run in; qdexplorer itself only from the wheel. The
    # path file goes in after the install: written before, pip sees the test environment's own non-editable
    # qdexplorer (CI installs '.[test]' that way), calls the wheel "already satisfied" and installs nothing.
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (site_dir / "test_deps.pth").write_text("\n".join(deps) + "\n")
    return py, site_dir, tmp


def test_override_set_on_the_bundled_demo_never_writes_into_site_packages(installed, tmp_path):
    py, site_dir, _ = installed
    pkg = site_dir / "qdexplorer"
    assert (pkg / "resources" / "demo").is_dir() and not (pkg.parent / "__editable__").exists()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(QDEXPLORER_DATA_DIR=str(tmp_path / "data"), QDEXPLORER_CACHE_DIR=str(tmp_path / "cache"),
               QDEXPLORER_DISABLE_CUDA="1")
    where = subprocess.check_output([str(py), "-c", "import qdexplorer; print(qdexplorer.__file__)"], env=env,
                                    cwd=tmp_path, text=True).strip()
    assert Path(where).resolve().is_relative_to(site_dir.resolve())   # the wheel's copy, not the checkout
    before = _tree(pkg)

    def cli(*args):
        return subprocess.run([str(py), "-m", "qdexplorer.cli", *args], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=600)
    shown = cli("show", TASK, "--what", "ptx")
    assert shown.returncode == 0, shown.stderr
    edited = tmp_path / "edited.ptx"
    edited.write_text(shown.stdout.replace("ret;", "membar.gl;\n\tret;", 1))
    done = cli("override", "set", "", TASK, str(edited))
    assert done.returncode == 0, done.stderr
    written = Path(done.stdout.strip().splitlines()[-1])
    assert written.is_file() and written.resolve().is_relative_to((tmp_path / "data").resolve())
    assert "membar.gl" in cli("show", TASK, "--what", "ptx").stdout            # the override is the one in use
    listed = cli("override", "list")
    assert TASK in listed.stdout, listed.stdout + listed.stderr
    assert _tree(pkg) == before                                                # nothing under site-packages changed
    assert cli("override", "revert", "", TASK).returncode == 0 and not written.exists()
    assert _tree(pkg) == before


def test_a_pip_install_carries_the_desktop_entry_and_installs_it_for_the_user(installed, tmp_path):
    """Issue 22 #14: the package-data pattern matched nothing, so a pip user got no menu entry."""
    py, site_dir, _ = installed
    desk = site_dir / "qdexplorer" / "resources" / "desktop"
    assert (desk / "io.github.qdexplorer.qdexplorer.desktop").is_file()
    assert (desk / "io.github.qdexplorer.qdexplorer.metainfo.xml").is_file()
    assert len(list((desk / "icons").glob("qdexplorer-*.png"))) == 8
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    home = tmp_path / "share"
    r = subprocess.run([str(py), "-m", "qdexplorer.cli", "install-desktop", "--data-home", str(home)],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    entry = (home / "applications" / "io.github.qdexplorer.qdexplorer.desktop").read_text()
    exec_line = next(ln for ln in entry.splitlines() if ln.startswith("Exec="))
    assert str(py.parent) in exec_line and exec_line.endswith(" gui %f")    # this install, not any qdexplorer
    assert (home / "icons" / "hicolor" / "256x256" / "apps" / "io.github.qdexplorer.qdexplorer.png").is_file()
    assert (home / "metainfo" / "io.github.qdexplorer.qdexplorer.metainfo.xml").is_file()
    r = subprocess.run([str(py), "-m", "qdexplorer.cli", "install-desktop", "--data-home", str(home), "--uninstall"],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert r.returncode == 0 and not any(p.is_file() for p in home.rglob("*"))
