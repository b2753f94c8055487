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
