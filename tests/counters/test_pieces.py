"""The parts that need no ncu: the PTX line table, the report reader, A/B order, limiter, model."""
import shutil
import subprocess

import pytest

from qdexplorer.counters.advice import limiter
from qdexplorer.counters.diff import diff
from qdexplorer.counters.model import count_ir
from qdexplorer.compiler.ptx_lines import instruction_lines, with_ptx_line_table
from qdexplorer.counters.record import TaskCounters
from qdexplorer.engine import Engine

from .conftest import FIXTURE, TASK


@pytest.fixture(scope="module")
def saxpy():
    with Engine(None, in_process=True) as eng:
        kts, compiled = eng.compile(["saxpy"], target="nvptx")
        yield kts[0].tasks[0], compiled[0].ptx


def test_line_table_names_each_instruction_by_its_own_line(saxpy, tmp_path):
    _, ptx = saxpy
    out = with_ptx_line_table(ptx, "/x/t.ptx")
    lines = ptx.splitlines()
    insn = instruction_lines(ptx)
    assert insn and all(lines[i - 1].strip().endswith(";") for i in insn)
    assert not any(lines[i - 1].strip().startswith((".reg", ".loc", "$L", ".param")) for i in insn)
    new = out.splitlines()
    for i in insn:   # each instruction is preceded by a .loc naming its line in the original text
        at = new.index(lines[i - 1])
        assert new[at - 1].split() == [".loc", "1", str(i), "0"]
    assert out.count(".file") == 1 and '.file\t1 "/x/t.ptx"' in out
    assert ".loc\t1 9 0" not in out          # the Python line table is gone
    if shutil.which("ptxas"):               # and it is still PTX that ptxas takes
        p = tmp_path / "t.ptx"
        p.write_text(out)
        r = subprocess.run(["ptxas", "-arch=sm_90", "-lineinfo", str(p), "-o", str(tmp_path / "t.cubin")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def test_record_round_trips_through_json():
    pytest.importorskip("ncu_report")
    from qdexplorer.counters.report import read_report
    rec = read_report(FIXTURE, TASK, "full")
    assert TaskCounters.from_json(rec.to_json()) == rec
    assert rec.sass and rec.sass[0].offset == 0 and rec.sass[0].text


def test_diff_puts_the_largest_change_first():
    a = TaskCounters(TASK, "quick", figures={"registers": 24, "dram_read_bytes": 1000.0, "sm_pct": 10.0},
                     stalls={"lg_throttle": 0.0, "long_scoreboard": 40.0, "wait": 2.0})
    b = TaskCounters(TASK, "quick", figures={"registers": 24, "dram_read_bytes": 2000.0, "sm_pct": 11.0},
                     stalls={"lg_throttle": 0.06, "long_scoreboard": 30.0, "wait": 2.5})
    rows = diff(a, b)
    # figures first, by |Δ%|; then stall reasons by |Δ| in cycles (0.00 -> 0.06 is not the largest change)
    assert [r.key for r in rows] == ["dram_read_bytes", "sm_pct", "registers", "stall:long_scoreboard",
                                     "stall:wait", "stall:lg_throttle"]
    assert rows[0].delta == 1000.0 and rows[0].pct == 100.0 and rows[2].delta == 0


@pytest.mark.parametrize("figures,stalls,starts", [
    ({"mem_pct": 85.0, "sm_pct": 20.0, "waves": 8.0}, {}, "Memory bound"),
    ({"mem_pct": 20.0, "sm_pct": 90.0, "waves": 8.0}, {}, "Compute bound"),
    ({"mem_pct": 30.0, "sm_pct": 8.0, "waves": 0.97}, {}, "Too little work"),
    ({"mem_pct": 20.0, "sm_pct": 20.0, "waves": 8.0, "occ_theoretical": 25.0, "registers": 128.0}, {},
     "Occupancy limited by registers"),
    ({"mem_pct": 20.0, "sm_pct": 20.0, "waves": 8.0}, {"long_scoreboard": 40.0, "wait": 2.0}, "Latency bound on memory"),
])
def test_limiter(figures, stalls, starts):
    assert limiter(TaskCounters(TASK, "full", figures=figures, stalls=stalls)).startswith(starts)


def test_model_counts_the_saxpy_body(saxpy):
    task, _ = saxpy
    c = count_ir(task)
    assert (c.bytes_read, c.bytes_written, c.flops) == (8, 4, 2)   # x[i], y[i] read; y[i] written; a*x + y
