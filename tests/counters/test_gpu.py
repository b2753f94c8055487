"""On a GPU with ncu: the counters see a PTX edit, and do not see one that changes nothing.

- doubling a task's global loads (a second load per element, of the bytes it overwrites:
  `counters.edits`) doubles the L2 bytes read (or the DRAM bytes: one of them must move ~2x);
- a no-op edit (a comment) moves no figure further than 3 repeated profiles of each side spread:
  |median(B) - median(A)| <= the larger of the two sides' ranges (deterministic figures: equal).
The figures go to $QDX_COUNTERS_FIGURES (JSON) when it is set, for the closing note.
"""
import json
import os
import shutil
import statistics

import pytest

from qdexplorer.counters import probe
from qdexplorer.counters.edits import double_global_loads, noop_edit
from qdexplorer.engine import Engine
from qdexplorer.project.loader import bundled_demo

pytestmark = pytest.mark.cuda
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
    res = eng.counters(TASK, preset, side="generated" if ptx is None else name, ptx=ptx, fresh=True)
    assert res.ok, res.message
    return res.record


def test_doubled_loads_double_the_bytes_read(engine):
    gen = _profile(engine)
    ptx = engine.compiled_for(TASK, "nvptx").ptx
    dbl = _profile(engine, double_global_loads(ptx), "doubled.ptx")
    l2 = dbl.figures["l2_read_bytes"] / gen.figures["l2_read_bytes"]
    dram = dbl.figures["dram_read_bytes"] / gen.figures["dram_read_bytes"]
    FIGURES["double_loads"] = {"l2_read_bytes": [gen.figures["l2_read_bytes"], dbl.figures["l2_read_bytes"], l2],
                               "dram_read_bytes": [gen.figures["dram_read_bytes"], dbl.figures["dram_read_bytes"], dram],
                               "inst_executed": [gen.figures["inst_executed"], dbl.figures["inst_executed"]],
                               "generated": gen.figures, "doubled": dbl.figures}
    assert dbl.figures["inst_executed"] > gen.figures["inst_executed"]   # the edit ran
    assert 1.8 <= l2 <= 2.2 or 1.8 <= dram <= 2.2, (l2, dram)


def test_noop_edit_moves_nothing_beyond_the_spread(engine):
    ptx = engine.compiled_for(TASK, "nvptx").ptx
    a = [_profile(engine) for _ in range(3)]
    b = [_profile(engine, noop_edit(ptx), "noop.ptx") for _ in range(3)]
    worst, rows = 0.0, {}
    for key in a[0].figures:
        va, vb = [r.figures[key] for r in a], [r.figures[key] for r in b]
        spread = max(max(va) - min(va), max(vb) - min(vb))
        delta = abs(statistics.median(vb) - statistics.median(va))
        rows[key] = {"A": va, "B": vb, "delta": delta, "spread": spread}
        if delta > spread + 1e-9 * abs(statistics.median(va)):
            worst = max(worst, delta / (spread or 1e-300))
    FIGURES["noop"] = rows
    outside = {k: r for k, r in rows.items() if r["delta"] > r["spread"] + 1e-9 * abs(statistics.median(r["A"]))}
    assert not outside, outside
