#!/usr/bin/env bash
# Differential tests on a GPU machine, in one go: random programs under Quadrants 1.3.3 on CUDA
# against qdexplorer on CUDA, and (using that machine's cores) Quadrants on the CPU against
# qdexplorer on the CPU. Quadrants and its pure-Python dependencies come as wheels (WHEELS, a
# folder: `pip download quadrants==1.3.3 --no-deps` for cp312 manylinux x86_64 plus colorama dill
# pydantic rich cffi and theirs), installed into a private folder with no index.
# Usage: WHEELS=../../.whl bash benchmarks/difftest_gpu.sh [OUTDIR] [SECONDS]
OUT=${1:-${OUT:-out}}
BUDGET=${2:-150}
WHEELS=${WHEELS:-../../.whl}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 QDEXPLORER_CACHE_DIR=${QDEXPLORER_CACHE_DIR:-/tmp/qdxcache}
python3 -m pip install -q --no-deps --no-index --target /tmp/qdpk "$WHEELS"/quadrants/*.whl "$WHEELS"/*.whl \
  > "$OUT/pip.txt" 2>&1
export PYTHONPATH=/tmp/qdpk:$PWD
python3 -c "import quadrants, qdexplorer.lang; print('quadrants', quadrants.__version__)" > "$OUT/versions.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv >> "$OUT/versions.txt" 2>&1
nproc >> "$OUT/versions.txt"
timeout $((BUDGET + 60)) python3 benchmarks/difftest.py --arch cuda --seeds 500000:502000 --jobs 6 \
  --budget-s "$BUDGET" > "$OUT/cuda.json" 2> "$OUT/cuda.err" &
timeout $((BUDGET + 60)) python3 benchmarks/difftest.py --arch cpu --seeds 100000:120000 --jobs 8 \
  --budget-s "$BUDGET" > "$OUT/cpu.json" 2> "$OUT/cpu.err" &
wait
tail -c 3000 "$OUT/cuda.json"; tail -c 2000 "$OUT/cpu.json"; tail -5 "$OUT/cuda.err" "$OUT/cpu.err"
