"""The mode comparison view: a real assembly_modes.py run shown as a table and bars."""
import json
import os
import subprocess
import sys

import pyqtgraph as pg

from qdexplorer.gui.timing.mode_table import ModeTable

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_table_and_bars_of_a_real_run(qtbot, tmp_path):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "assembly_modes.py"), "--no-demo",
                        "--k", "2", "3", "--workers", "1"], env=dict(os.environ, PYTHONPATH=ROOT),
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    doc = json.loads(p.stdout)
    view = ModeTable()
    qtbot.addWidget(view)
    bad = tmp_path / "other.json"
    bad.write_text('{"benchmark": "warm_edit"}')
    view.show_file(str(bad))
    assert "not the output of benchmarks/assembly_modes.py" in view.status.text() and view.table.rowCount() == 0
    saved = tmp_path / "modes.json"
    saved.write_text(p.stdout)
    view.show_file(str(saved))
    assert view.table.rowCount() == 6
    cells = [[view.table.item(i, j).text() for j in range(3)] for i in range(6)]
    assert [c[:2] for c in cells] == [["K=2", "whole"], ["K=2", "per_task"], ["K=2", "culink"],
                                      ["K=3", "whole"], ["K=3", "per_task"], ["K=3", "culink"]]
    assert float(cells[1][2]) == round(doc["rows"][0]["per_task"]["compile"]["cold"]["seconds"], 3)
    view.column.setCurrentIndex(2)  # warm one-task edit
    bars = view.bar_values()
    assert set(bars) == {"whole", "per_task", "culink"} and all(len(v) == 2 for v in bars.values())
    assert bars["per_task"][1] == round(doc["rows"][1]["per_task"]["compile"]["warm_one_edit"]["seconds"], 3)
    assert view.plot.plotItem.titleLabel.text.startswith("warm one-task edit")
    assert sum(isinstance(i, pg.BarGraphItem) for i in view.plot.plotItem.items) == 3  # one per mode
