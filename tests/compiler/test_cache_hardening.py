"""The disk cache is not a way in: key-bound entries, owner checks, one bad entry skipped, no temp left."""
import dataclasses
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from qdexplorer.compiler.cache import CacheStats, PtxCache
from qdexplorer.engine import Engine
from tests.compiler.test_cache import ROOT, write_project

NOBODY = 65534


class CacheSeen:
    """The engine's cache as a test sees it: its counters and state (`cache_info`), and where an
    entry lives (the layout alone: a memory-only PtxCache reads and writes nothing)."""

    def __init__(self, info):
        self.offline = info["offline"]
        self.stats = CacheStats(**{f.name: info[f.name] for f in dataclasses.fields(CacheStats)})
        self._layout = PtxCache(info["folder"], offline=False)

    def path(self, key, ns):
        return self._layout.path(key, ns)


def host_compile(proj, cache, **kw):
    with Engine(proj, in_process=True, cache_dir=str(cache), **kw) as eng:
        _, compiled = eng.compile(target="host")
        return {ct.task: ct for ct in compiled}, CacheSeen(eng.cache_info())


def test_an_entry_planted_under_another_key_is_rejected(tmp_path):
    proj = write_project(tmp_path / "p")
    cache = tmp_path / "cache"
    first, c = host_compile(proj, cache)
    a, b = first["three_kernel_0_range_for"], first["three_kernel_1_range_for"]
    pa, pb = c.path(a.key, "host"), c.path(b.key, "host")
    shutil.copy(pa, pb)  # a perfectly valid entry, for the wrong key: task 0's code would run as task 1
    again, c2 = host_compile(proj, cache)
    assert again["three_kernel_1_range_for"].tier == "miss" and c2.stats.corrupt == 1
    assert again["three_kernel_1_range_for"].generated == b.generated
    assert again["three_kernel_0_range_for"].tier == "disk"


def _compile_warned(proj, cache, match):
    """host_compile, which must warn with `match` (the cache folder it was given is refused)."""
    with pytest.warns(UserWarning, match=match):
        return host_compile(proj, cache)


def test_a_cache_folder_others_can_write_is_not_loaded_from(tmp_path):
    proj = write_project(tmp_path / "p")
    cache = tmp_path / "cache"
    host_compile(proj, cache)
    cache.chmod(0o777)
    tiers, c = _compile_warned(proj, cache, "writable by other users")
    assert not c.offline and {ct.tier for ct in tiers.values()} == {"miss"}  # memory only: nothing read


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root")
def test_a_cache_folder_of_another_user_is_not_loaded_from(tmp_path):
    proj = write_project(tmp_path / "p")
    cache = tmp_path / "cache"
    host_compile(proj, cache)
    os.chown(cache, NOBODY, NOBODY)
    tiers, c = _compile_warned(proj, cache, "belongs to another user")
    assert not c.offline and {ct.tier for ct in tiers.values()} == {"miss"}  # memory only: nothing read


def test_an_entry_others_can_write_is_not_loaded(tmp_path):
    proj = write_project(tmp_path / "p")
    cache = tmp_path / "cache"
    first, c = host_compile(proj, cache)
    entry = c.path(first["three_kernel_0_range_for"].key, "host")
    entry.chmod(0o666)
    again, c2 = host_compile(proj, cache)
    assert again["three_kernel_0_range_for"].tier == "miss" and c2.stats.corrupt == 1


def test_a_symlinked_entry_is_not_followed(tmp_path):
    proj = write_project(tmp_path / "p")
    cache = tmp_path / "cache"
    first, c = host_compile(proj, cache)
    a, b = (first[f"three_kernel_{i}_range_for"] for i in (0, 1))
    pb = c.path(b.key, "host")
    elsewhere = tmp_path / "elsewhere.o"
    shutil.copy(pb, elsewhere)
    pb.unlink()
    os.symlink(elsewhere, pb)
    again, c2 = host_compile(proj, cache)
    assert again["three_kernel_1_range_for"].tier == "miss" and c2.stats.corrupt == 1
    assert elsewhere.exists()  # the link is dropped, its target never touched


def test_one_blocked_entry_does_not_switch_the_disk_tier_off(tmp_path):
    proj = write_project(tmp_path / "p")
    probe = tmp_path / "probe"
    first, c = host_compile(proj, probe)
    cache = tmp_path / "cache"
    blocked = PtxCache(cache).path(first["three_kernel_0_range_for"].key, "host")
    blocked.mkdir(parents=True)  # a folder where the first task's entry goes
    tiers, c2 = host_compile(proj, cache)
    assert c2.offline and c2.stats.skipped == 1 and c2.stats.writes == 2
    again, c3 = host_compile(proj, cache)
    assert again["three_kernel_0_range_for"].tier == "miss"
    assert {again[f"three_kernel_{i}_range_for"].tier for i in (1, 2)} == {"disk"}


FULL_DISK = textwrap.dedent("""\
    import resource, signal, sys, warnings
    from qdexplorer.compiler.cache import CacheStats, PtxCache
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # writes past the limit fail with EFBIG instead
    c = PtxCache(sys.argv[1], offline=True)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c.put("ab" * 32, "sm_90", b"x" * 100_000)
    print(c.stats.writes, c.stats.skipped, c.offline)
    """)


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_write_that_runs_out_of_space_leaves_no_temporary_file(tmp_path):
    p = subprocess.run([sys.executable, "-c", FULL_DISK, str(tmp_path)], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT), timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[0] == "0"
    assert not [f for f in tmp_path.rglob("*") if f.is_file()], list(tmp_path.rglob("*"))


def test_a_bad_arch_never_becomes_a_cache_path(tmp_path):
    from qdexplorer.compiler.safe_files import UnsafePathError
    c = PtxCache(tmp_path, offline=True)
    with pytest.raises(UnsafePathError):
        c.path("ab" * 32, "../../escape")
    with pytest.raises(UnsafePathError):
        c.path("../x", "sm_90")


def _slow_tasks(n, sins=4):
    body = "\n".join(f"    for i in range(x.shape[0]):\n        x[i] = "
                     + "qd.sin(" * sins + f"x[i] * {k}.5" + ")" * sins for k in range(n))
    return "import qdexplorer.lang as qd\n\n@qd.kernel\ndef slow(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n" + body + "\n"


def test_a_killed_compile_keeps_the_entries_it_finished(tmp_path):
    import time
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "k.py").write_text(_slow_tasks(40))
    cache = tmp_path / "cache"
    p = subprocess.Popen([sys.executable, "-m", "qdexplorer.cli", "compile", str(tmp_path / "p")],
                         env=dict(os.environ, PYTHONPATH=ROOT, QDEXPLORER_CACHE_DIR=str(cache)),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 240
        while not list(cache.glob("sm_*/*/*.ptx")) and p.poll() is None and time.monotonic() < end:
            time.sleep(0.05)
        assert p.poll() is None, "the first entry reached the disk only when the whole compile had ended"
        p.kill()
        p.wait(10)
    finally:
        p.kill()
    entries = list(cache.glob("sm_*/*/*.ptx"))
    assert 1 <= len(entries) < 40
    c = PtxCache(cache)
    assert all(c._read(e, e.stem) is not None for e in entries)
