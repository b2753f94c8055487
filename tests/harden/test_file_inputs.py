"""Files are input (issue 41): a counters cache entry that is a JSON list, a link to /dev/zero, a
FIFO, a huge file or a record of the wrong shape is a miss with one line naming the file, read in
bounded time and memory, never a traceback or a hang."""
import json
import os
import time

import pytest

from qdexplorer.counters.cache import CountersCache
from qdexplorer.counters.record import TaskCounters, RECORD_VERSION

KEY = "ab" * 32


def _entry(cache: CountersCache):
    p = cache._dir(KEY) / f"{KEY}.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    return p


GOOD = TaskCounters("t", "quick", figures={"duration_ns": 1.0}).to_json()
BAD = {
    "a JSON list": lambda p: p.write_text("[1, 2]"),
    "a link to /dev/zero": lambda p: os.symlink("/dev/zero", p),
    "a FIFO": lambda p: os.mkfifo(p),
    "a huge sparse file": lambda p: os.truncate(p.open("wb").name, 1 << 30),
    "not UTF-8": lambda p: p.write_bytes(b"\xff\xfe{"),
    "figures of text": lambda p: p.write_text(json.dumps(GOOD | {"figures": {"x": "abc"}})),
    "passes nan": lambda p: p.write_text(json.dumps(GOOD).replace('"passes": 0', '"passes": NaN')),
    "sass of numbers": lambda p: p.write_text(json.dumps(GOOD | {"sass": [1]})),
    "ptx_lines keyed by text": lambda p: p.write_text(json.dumps(GOOD | {"ptx_lines": {
        "x": {"inst_executed": 1, "samples": 1, "stalls": {}}}})),
}


@pytest.mark.parametrize("case", BAD)
def test_a_bad_counters_cache_entry_is_a_miss_said_once(tmp_path, case):
    cache = CountersCache(tmp_path / "counters")
    p = _entry(cache)
    BAD[case](p)
    t0 = time.monotonic()
    assert cache.get(KEY) is None
    assert time.monotonic() - t0 < 2
    assert len(cache.problems) == 1 and str(p) in cache.problems[0] and "\n" not in cache.problems[0]


def test_a_good_entry_reads_back(tmp_path):
    cache = CountersCache(tmp_path / "counters")
    cache.put(KEY, TaskCounters("t", "quick", figures={"duration_ns": 1.0}))
    rec = cache.get(KEY)
    assert rec is not None and rec.cached and rec.figures == {"duration_ns": 1.0} and rec.version == RECORD_VERSION
    assert not cache.problems


@pytest.mark.parametrize("make", ["zero", "fifo", "huge"])
def test_settings_and_compared_ptx_are_read_bounded(tmp_path, make, capsys):
    from qdexplorer.cli import main
    from qdexplorer.ir.errors import QdError
    from qdexplorer.project.loader import read_config
    proj = tmp_path / "p"
    proj.mkdir()
    toml, ptx = proj / "qdexplorer.toml", tmp_path / "edited.ptx"
    for p in (toml, ptx):
        if make == "zero":
            os.symlink("/dev/zero", p)
        elif make == "fifo":
            os.mkfifo(p)
        else:
            with open(p, "wb") as f:
                f.truncate(1 << 30)
    t0 = time.monotonic()
    with pytest.raises(QdError) as e:
        read_config(proj)
    assert str(toml) in str(e.value) and "\n" not in str(e.value)
    rc = main(["counters", "--task", "saxpy_kernel_0_range_for", "--in-process", "--compare", "generated", str(ptx)])
    assert rc == 2 and str(ptx) in capsys.readouterr().err
    assert time.monotonic() - t0 < 10


def test_a_sidecar_that_is_a_list_is_no_hint(tmp_path):
    from qdexplorer.quadrants.edits import EditFolder
    folder = EditFolder(tmp_path / "edits")
    folder.write("task_a", ".version 8.5\n", "generated")
    (tmp_path / "edits" / "task_a.ptx.json").write_text("[1]")
    [edit] = folder.edits()
    assert edit.base_sha is None


@pytest.mark.parametrize("cmd", ["run", "bench"])
def test_load_ptx_on_the_cpu_backend_is_refused(tmp_path, capsys, cmd):
    from qdexplorer.cli import main
    (tmp_path / "ptx").mkdir()
    (tmp_path / "ptx" / "saxpy_kernel_0_range_for.ptx").write_text("garbage, not PTX")
    rc = main([cmd, "--backend", "cpu", "--load-ptx", str(tmp_path / "ptx"), "--in-process", "--workload", "saxpy_1m",
               "--no-save"] if cmd == "bench" else
              [cmd, "--backend", "cpu", "--load-ptx", str(tmp_path / "ptx"), "--in-process", "--workload", "saxpy_1m"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "--load-ptx" in err[0] and "CPU backend" in err[0], err


def test_a_refused_qd_load_ir_file_is_named_as_such(tmp_path, capsys, monkeypatch):
    from qdexplorer.cli import main
    from tests.remote.projects import TASK, scale_project
    proj = scale_project(tmp_path / "p")
    load = tmp_path / "load"
    load.mkdir(mode=0o700)
    (load / f"{TASK}_before_ptx.ll").write_text("this is not LLVM IR\n")
    monkeypatch.setenv("QD_LOAD_IR", "1")
    monkeypatch.setenv("QD_DEBUG_DUMP_PATH", str(load))
    rc = main(["run", str(proj), "--backend", "cpu", "--in-process", "--cache-dir", str(tmp_path / "c")])
    out = capsys.readouterr()
    text = out.out + out.err
    assert rc != 0 and f"the QD_LOAD_IR file {load / TASK}_before_ptx.ll refused" in text, text
    assert "unset QD_LOAD_IR" in text and "LL override" not in text and "override revert" not in text
