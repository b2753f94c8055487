#!/usr/bin/env bash
# Issue 34's GPU figures in one call (each step bounded, each result written as it comes):
# launch host cost (interleaved rounds), accurate sin·exp (its ulp error beside torch.compile's) / matmul
# (64x64 4x4 and 128x128 8x8 register tiles) / stencil / sum / histogram beside PyTorch and
# cuBLAS, script calls and the particle step at 4096 and 2^20 beside Quadrants 1.3.3, debug mode
# on CUDA beside Quadrants, and the CUDA tests of the paths changed.
# Usage: bash benchmarks/gpu_perf3.sh OUTDIR [WHEELDIR]   (WHEELDIR: Quadrants' wheel and its deps)
OUT=${1:-${OUT:-out}}
WHL=${2:-}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 QDEXPLORER_CACHE_DIR=${QDEXPLORER_CACHE_DIR:-/tmp/qdxcache}
t0=$(date +%s)
step() { echo "$(( $(date +%s) - t0 ))s $1" >> "$OUT/steps.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/smi.txt" 2>&1
if [ -n "$WHL" ]; then
  python3 -m pip install -q --no-index --find-links "$WHL" quadrants > "$OUT/pip.txt" 2>&1; step pip
fi
timeout 25 python3 benchmarks/launch_overhead.py > "$OUT/launch.json" 2>&1; step launch
timeout 240 python3 benchmarks/kernel_suite.py --only ${SUITE:-wave,particles,histogram,stencil,total,matmul_tiled,matmul_blocked} \
  > "$OUT/kernel_suite.json" 2> "$OUT/kernel_suite.err"; step kernel_suite
timeout 45 python3 benchmarks/script_calls.py --log2 20 --calls 200 --sim 4096 1048576 --sim-steps 300 \
  > "$OUT/script_calls.json" 2>&1; step script_calls
timeout 30 python3 benchmarks/debug_mode.py --arch cuda --reps 10 > "$OUT/debug_mode.json" 2>&1; step debug_mode
timeout 40 python3 -m pytest -q -p no:cacheprovider tests/lang/test_debug_mode.py tests/lang/test_script_start.py \
  tests/codegen/test_libdevice_link.py tests/codegen/test_global_atomics.py tests/codegen/test_tile_loops.py \
  tests/runtime/test_launch_timing.py -k "not cli" -rs > "$OUT/pytest.txt" 2>&1
step pytest
tail -3 "$OUT/pytest.txt"; cat "$OUT/steps.txt"
