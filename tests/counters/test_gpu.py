"""On a GPU with ncu: the counters see a PTX edit, and do not see one that changes nothing, by the
product's own A/B verdict (`counters.diff`: medians of 3 profiles a side; a Δ is noise within
2 × (range A + range B) + the counter's step), the rule the window and `qdexplorer counters
--compare` apply:

- doubling a task's global loads (a second load per element, of the bytes it overwrites:
  `counters.edits`) makes the L2 or the DRAM bytes read 'changed', at ~2x, and the instructions too;
- a no-op edit (a comment) leaves no figure and no stall reason 'changed'.
The rows go to $QDX_COUNTERS_FIGURES (JSON) when it is set, for the closing note.
"""
import json
import os
import shutil

import pytest

from qdexplorer.counters import probe
from qdexplorer.counters.diff import diff
from qdexplorer.counters.edits import double_global_loads, noop_edit
from qdexplorer.engine import Engine
from qdexplorer.project.loader import bundled_demo

# the noise rule compares replays taken at different times: other processes on the GPU between them move
# the stall fractions (seen: stall:misc 0.089 -> 0.028 for a no-op edit with 14 other CUDA tests running)
pytestmark = [pytest.mark.cuda, pytest.mark.gpu_exclusive]
TASK = "copy_kernel_0_range_for"
FIGURES: dict = {}


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    probe.forget()
    cap = probe.probe()
    if not cap.ok:
        pytest.skip(f"no counters here: {cap.message}")
    proj = tmp_path_factory.mktemp("p") / "demo"
    shutil.copytree(bundled_demo(), proj)
    with Engine(proj, backend="cuda", in_process=True, cache_dir=str(tmp_path_factory.mktemp("cache"))) as eng:
        yield eng
    out = os.environ.get("QDX_COUNTERS_FIGURES")
    if out:
        with open(out, "w") as f:
            json.dump(FIGURES, f, indent=2)


def _profile(eng, ptx=None, name="generated", preset="full"):
    res = eng.counters(TASK, preset, side="generated" if ptx is None else name, ptx=ptx, fresh=True, repeats=3)
    assert res.ok, res.message
    assert len(res.records) == 3
    return res.records


@pytest.fixture(scope="module")
def generated(engine):
    return _profile(engine)


def _rows(a, b):
    rows = diff(a, b)
    return rows, {r.key: {"A": list(r.a_reps), "B": list(r.b_reps), "delta": r.delta, "band": r.band,
                          "quantum": r.quantum, "verdict": r.verdict} for r in rows}


def test_doubled_loads_double_the_bytes_read(engine, generated):
    ptx = engine.compiled_for(TASK, "nvptx").ptx
    dbl = _profile(engine, double_global_loads(ptx), "doubled.ptx")
    rows, table = _rows(generated, dbl)
    FIGURES["double_loads"] = table
    by = {r.key: r for r in rows}
    assert by["inst_executed"].verdict == "changed" and by["inst_executed"].delta > 0   # the edit ran
    moved = [k for k in ("l2_read_bytes", "dram_read_bytes")
             if by[k].verdict == "changed" and 1.8 <= by[k].b / by[k].a <= 2.2]
    FIGURES["double_loads_x"] = {k: by[k].b / by[k].a for k in ("l2_read_bytes", "dram_read_bytes")}
    assert moved, {k: table[k] for k in ("l2_read_bytes", "dram_read_bytes")}


def test_noop_edit_changes_nothing(engine, generated):
    ptx = engine.compiled_for(TASK, "nvptx").ptx
    noop = _profile(engine, noop_edit(ptx), "noop.ptx")
    rows, table = _rows(generated, noop)
    FIGURES["noop"] = table
    changed = {r.key: table[r.key] for r in rows if r.verdict == "changed"}
    assert not changed, changed
