#!/usr/bin/env bash
# The GPU half of every issue's acceptance, in priority order, inside one time budget.
# Usage on the GPU machine (see /work/shared/tools/gui-on-gpu.md for the window's bundle):
#   bash benchmarks/gpu_acceptance.sh OUTDIR [SECONDS]
# Each step is time-boxed and skipped when the budget is nearly spent; everything lands in
# OUTDIR/r/ and is packed into OUTDIR/results.tgz at the end (the PNGs are also left beside it).
OUT=${1:-${OUT:-out}}
BUDGET=${2:-540}
mkdir -p "$OUT/r"
R=$OUT/r
export PYTHONUNBUFFERED=1 QDEXPLORER_CACHE_DIR=${QDEXPLORER_CACHE_DIR:-/tmp/qdxcache} QDEXPLORER_DATA_DIR=/tmp/qdxdata
START=$(date +%s)
step() {  # step NAME SECONDS CMD...
  local name=$1 limit=$2; shift 2
  local left=$(( BUDGET - ($(date +%s) - START) - 15 ))
  if (( left < 20 )); then echo "SKIPPED (budget) $name" >> "$R/steps.txt"; return; fi
  (( limit > left )) && limit=$left
  local t0=$(date +%s)
  timeout "$limit" bash -c "$*" > "$R/$name.txt" 2>&1
  echo "rc=$? $(( $(date +%s) - t0 ))s $name" >> "$R/steps.txt"
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$R/smi.txt" 2>&1
step pytest_cuda 240 "python3 -m pytest -q -p no:cacheprovider -n 8 -m cuda -rfE tests"
step run_demo_cuda 60 "python3 -m qdexplorer run --backend cuda --repeat 10"
step compare_override 120 "python3 benchmarks/compare_override.py --out $OUT"
step gui_cuda 150 "QDX_SHOTS=$OUT python3 -m pytest -q -p no:cacheprovider -m 'gui and cuda' -rfE tests/gui"
step screenshot_cuda 60 "python3 -m qdexplorer gui --screenshot $OUT/gpu-window.png --workload particles_64k --repeat 50"
step script_calls 90 "python3 benchmarks/script_calls.py > $R/script_calls.json"
step assembly_modes 200 "python3 benchmarks/assembly_modes.py > $R/assembly_modes.json"
step pytest_rest 200 "python3 -m pytest -q -p no:cacheprovider -n 8 -m 'not cuda' -rfE tests"
mv "$OUT"/*.json "$OUT"/*.svg "$OUT"/*.csv "$OUT"/*.txt "$R"/ 2>/dev/null
(cd "$OUT" && tar czf results.tgz r)
cat "$R/steps.txt"; tail -5 "$R/pytest_cuda.txt"
