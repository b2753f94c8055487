#!/usr/bin/env bash
# Issue 34's remaining GPU figures in one call, no Quadrants needed: launch host cost (interleaved
# rounds, with the bare loop that also reads every launch's time back), accurate sin·exp (outlined
# slow path vs inlined, ulp beside torch.compile's) and both matmuls beside cuBLAS, the CUDA tests of
# the paths changed, then the Ray device against the local one (remote_overhead.py).
# Usage: bash benchmarks/gpu_perf3b.sh OUTDIR [RAYDIR [WHEELDIR]]
#   RAYDIR: what ../shared/tools/make-ray-bundle.sh builds (.ray/); WHEELDIR: psygnal and platformdirs
OUT=${1:-out}; RAYDIR=${2:-}; WHL=${3:-}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 QDEXPLORER_CACHE_DIR=${QDEXPLORER_CACHE_DIR:-/tmp/qdxcache}
t0=$(date +%s)
step() { echo "$(( $(date +%s) - t0 ))s $1" >> "$OUT/steps.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/smi.txt" 2>&1
timeout 40 python3 benchmarks/launch_overhead.py > "$OUT/launch.json" 2>&1; step launch
timeout 150 python3 benchmarks/kernel_suite.py --no-quadrants --only ${SUITE:-wave,matmul_tiled,matmul_blocked} \
  > "$OUT/kernel_suite.json" 2> "$OUT/kernel_suite.err"; step kernel_suite
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/codegen/test_trig_slow_path.py tests/codegen/test_tile_loops.py \
  tests/runtime/test_launch_timing.py -rs > "$OUT/pytest.txt" 2>&1; step pytest
if [ -n "$RAYDIR" ]; then
  mkdir -p /tmp/ray && tar xJf "$RAYDIR/ray-bundle.tar.xz" -C /tmp/ray &&
    python3 -m pip install -q --no-index --no-deps --target /tmp/ray "$RAYDIR"/whl/*.whl ${WHL:+"$WHL"/*.whl} \
    > "$OUT/pip.txt" 2>&1; step ray_install
  PYTHONPATH=/tmp/ray:$PWD RAY_USAGE_STATS_ENABLED=0 timeout 200 python3 benchmarks/remote_overhead.py --backend cuda \
    --reps ${REPS:-5} --rounds ${ROUNDS:-4} > "$OUT/remote_overhead.json" 2> "$OUT/remote_overhead.err"; step ray
fi
tail -3 "$OUT/pytest.txt"; cat "$OUT/steps.txt"
