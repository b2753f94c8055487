#!/usr/bin/env bash
# Differential tests on a GPU machine, in one go (issue 29 parts 3 and 4):
#  - random programs under Quadrants 1.3.3 on CUDA against qdexplorer on CUDA (cuda.json);
#  - with the machine's spare cores, the same on the CPU (cpu.json);
#  - saved programs (REPLAY, a folder of .py, e.g. earlier mismatches) under both on CUDA and CPU,
#    every result kept (replay.pkl, benchmarks/difftest_replay.py);
#  - the position-based fluid (benchmarks/pbf_determinism.py) twice under each implementation on
#    CUDA, cells in arrival order and sorted (pbf_*.npz, pbf.json).
# Quadrants and its pure-Python dependencies come as wheels (WHEELS: quadrants-1.3.3 cp312 and its
# dependencies; EXTRA: qdexplorer's own, e.g. psygnal, platformdirs), installed with no index.
# Usage: WHEELS=../../.whl/quadrants EXTRA=wheels REPLAY=replay bash benchmarks/difftest_gpu.sh OUTDIR [SECONDS]
OUT=${1:-${OUT:-out}}
BUDGET=${2:-120}
WHEELS=${WHEELS:-../../.whl/quadrants}
EXTRA=${EXTRA:-wheels}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 QDEXPLORER_CACHE_DIR=${QDEXPLORER_CACHE_DIR:-/tmp/qdxcache}
python3 -m pip install -q --no-deps --no-index --target /tmp/qdpk "$WHEELS"/*.whl $(ls "$EXTRA"/*.whl 2>/dev/null) \
  > "$OUT/pip.txt" 2>&1
export PYTHONPATH=/tmp/qdpk:$PWD
python3 -c "import quadrants, qdexplorer.lang; print('quadrants', quadrants.__version__)" > "$OUT/versions.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv >> "$OUT/versions.txt" 2>&1
nproc >> "$OUT/versions.txt"
T0=$(date +%s)
timeout $((BUDGET + 45)) python3 benchmarks/difftest.py --arch cuda --seeds 500000:503000 --jobs 6 --timeout 30 \
  --budget-s "$BUDGET" > "$OUT/cuda.json" 2> "$OUT/cuda.err" &
timeout $((BUDGET + 45)) python3 benchmarks/difftest.py --arch cpu --seeds 100000:120000 --jobs 3 --timeout 30 \
  --budget-s "$BUDGET" > "$OUT/cpu.json" 2> "$OUT/cpu.err" &
if [ -n "$REPLAY" ] && [ -d "$REPLAY" ]; then
  timeout $((BUDGET + 45)) python3 benchmarks/difftest_replay.py "$REPLAY" --arch cuda,cpu --timeout 30 \
    --out "$OUT/replay.pkl" > "$OUT/replay.txt" 2>&1 &
fi
(
  for mode in plain sorted; do
    flag=$([ $mode = sorted ] && echo --sorted)
    for impl in ours quadrants; do
      for k in 1 2; do
        timeout 100 python3 benchmarks/pbf_determinism.py --impl $impl --arch cuda $flag --steps 300 \
          --out "$OUT/pbf_${mode}_${impl}_$k.npz" > "$OUT/pbf_${mode}_${impl}_$k.log" 2>&1 &
      done
    done
    wait
  done
  python3 benchmarks/pbf_determinism.py --compare "$OUT"/pbf_*.npz > "$OUT/pbf.json" 2>&1
) &
wait
echo "seconds $(( $(date +%s) - T0 ))" >> "$OUT/versions.txt"
tail -c 1500 "$OUT/cuda.json"; tail -c 600 "$OUT/cpu.json"; tail -3 "$OUT/cuda.err" "$OUT/cpu.err"; tail -n 40 "$OUT/replay.txt"
tail -n 3 "$OUT"/pbf_*.log
