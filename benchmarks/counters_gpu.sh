#!/bin/bash
# Everything issue 30 measures on a GPU with ncu, in one go (run from the project root):
#   the cuda tests (a doubled-loads edit, a no-op edit against 3 repeated profiles), the overhead
#   benchmark, a fresh .ncu-rep fixture of the demo's saxpy (full preset, the real command), and
#   the Counters tab's screenshots (needs PySide6; offscreen). Results go to OUT (default ./counters-gpu).
# Each step goes on when one before it failed; its log says what happened.
O=${1:-counters-gpu}; mkdir -p "$O"
export PYTHONUNBUFFERED=1
T=saxpy_kernel_0_range_for
python3 -c "from qdexplorer.counters import probe; c = probe.probe(); print(c)" > "$O/probe.txt" 2>&1
QDX_COUNTERS_FIGURES="$O/gpu_figures.json" timeout 200 python3 -m pytest -q -n 0 -p no:cacheprovider \
  tests/counters/test_gpu.py > "$O/test_gpu.log" 2>&1; echo "rc=$?" >> "$O/test_gpu.log"
timeout 150 python3 benchmarks/counters_overhead.py > "$O/overhead.json" 2> "$O/overhead.err"
timeout 120 python3 -m qdexplorer counters --task $T --preset full --fresh --json > "$O/saxpy_full.json" 2>&1
python3 -c "import json,shutil,sys; d=json.load(open('$O/saxpy_full.json'))['sides']['current']; \
  shutil.copyfile(d['report'], '$O/saxpy_full.ncu-rep')" >> "$O/saxpy_full.err" 2>&1
timeout 120 python3 -m qdexplorer counters --task $T --preset full > "$O/saxpy_full.txt" 2>&1
if python3 -c "import PySide6" 2>/dev/null; then
  QT_QPA_PLATFORM=offscreen timeout 150 python3 benchmarks/counters_window_shot.py "$O/shots" > "$O/shots.json" \
    2> "$O/shots.err"
fi
