"""Load folders (`QD_LOAD_IR`, `QUADRANTS_LOAD_PTX`, `--load-ptx`) get the cache's trust rules
(issue 21): code planted in a folder another user can write, or by another user, is never run,
a FIFO never hangs a compile, and every load says so on stderr."""
import contextlib
import os
import signal
from pathlib import Path

import pytest

from qdexplorer.compiler.dump import env_dump_dir, env_load_dir
from qdexplorer.compiler.overrides import OverrideStore
from qdexplorer.ir.errors import QdError
from tests._cli import run_cli

from .test_cache import write_project
from .test_ll_overrides import ONE, TASK, TWO

ROOT_USER = hasattr(os, "geteuid") and os.geteuid() == 0


class Hung(BaseException):
    """Not an OSError (as TimeoutError is): code under test that catches OSError cannot swallow it."""


@contextlib.contextmanager
def deadline(seconds):
    def fire(*_):
        raise Hung(f"hung for {seconds} s")
    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _folder(tmp_path, mode=0o700):
    d = tmp_path / "load"
    d.mkdir()
    d.chmod(mode)
    (d / f"{TASK}_before_ptx.ll").write_text(f"define void @{TASK}() {{ ret void }}\n")
    return d


def test_a_load_folder_others_can_write_is_refused(tmp_path):
    with pytest.raises(QdError, match="writable by other users"):
        OverrideStore(None, _folder(tmp_path, 0o777), ("ll",))


@pytest.mark.skipif(not ROOT_USER, reason="chown needs root")
def test_a_load_folder_of_another_user_is_refused(tmp_path):
    d = _folder(tmp_path)
    os.chown(d, 65534, 65534)
    with pytest.raises(QdError, match="belongs to another user"):
        OverrideStore(None, d, ("ll",))


def test_a_file_others_can_write_is_refused_never_loaded(tmp_path):
    d = _folder(tmp_path)
    (d / f"{TASK}_before_ptx.ll").chmod(0o666)
    ov = OverrideStore(None, d, ("ll",)).get(TASK, "ll")
    assert ov.status(None) == "refused" and "writable by other users" in ov.problem


@pytest.mark.skipif(not ROOT_USER, reason="chown needs root")
def test_a_file_of_another_user_is_refused_never_loaded(tmp_path):
    d = _folder(tmp_path)
    os.chown(d / f"{TASK}_before_ptx.ll", 65534, 65534)
    ov = OverrideStore(None, d, ("ll",)).get(TASK, "ll")
    assert ov.status(None) == "refused" and "belongs to another user" in ov.problem


def test_a_fifo_in_a_load_or_override_folder_is_refused_not_waited_on(tmp_path):
    d = tmp_path / "load"
    d.mkdir(mode=0o700)
    os.mkfifo(d / f"{TASK}.ptx")
    proj = tmp_path / "p"
    (proj / ".qdexplorer" / "overrides").mkdir(parents=True)
    os.mkfifo(proj / ".qdexplorer" / "overrides" / f"{TASK}.ptx")
    with deadline(10):
        ov = OverrideStore(None, d, ("ptx",)).get(TASK, "ptx")
        assert "not a regular file" in ov.problem
        ov = OverrideStore(proj).get(TASK, "ptx")
        assert "not a regular file" in ov.problem


def test_the_default_folder_is_per_user_not_tmp_ir(monkeypatch, tmp_path):
    monkeypatch.delenv("QD_DEBUG_DUMP_PATH", raising=False)
    monkeypatch.setenv("QD_LOAD_IR", "1")
    monkeypatch.setenv("QD_DUMP_IR", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    for d in (env_load_dir(), env_dump_dir()):
        assert not str(d).startswith("/tmp/ir") and Path(d).is_relative_to(tmp_path / "xdg")


def test_a_dumped_folder_round_trips_under_a_group_writable_umask_and_each_load_is_announced(tmp_path):
    proj = write_project(tmp_path / "p")
    dump = tmp_path / "dump"
    env = dict(QDEXPLORER_CACHE_DIR=str(tmp_path / "cache"))
    old = os.umask(0o002)  # the folder --dump creates must still be trusted by the load
    try:
        run_cli("compile", str(proj), "--target", "host", "--dump", str(dump), env=env, check=True)
    finally:
        os.umask(old)
    f = dump / f"{TASK}_before_ptx.ll"
    f.write_bytes(f.read_bytes().replace(ONE, TWO))
    p = run_cli("run", str(proj), env=dict(env, QD_LOAD_IR="1", QD_DEBUG_DUMP_PATH=str(dump)))
    assert p.returncode == 1 and "FAILED" in p.stdout, p.stdout + p.stderr  # the edited +2.0 ran
    lines = [ln for ln in p.stderr.splitlines() if "in place of the generated" in ln]
    assert any(TASK in ln and str(f) in ln and "LLVM IR" in ln for ln in lines), p.stderr
    assert len([ln for ln in lines if TASK in ln]) == 1  # one line per task, not one per stage look-up


def test_a_fifo_in_place_of_a_cache_entry_is_dropped_not_waited_on(tmp_path):
    from qdexplorer.compiler.cache import PtxCache
    cache = PtxCache(tmp_path / "cache")
    cache.put("ab" * 32, "sm_90", b"entry")
    p = cache.path("cd" * 32, "sm_90")
    p.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(p)
    with deadline(10):
        assert cache.get("cd" * 32, "sm_90")[0] is None
    assert not p.exists()
