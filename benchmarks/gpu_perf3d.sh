#!/usr/bin/env bash
# Issue 34, round 3b on a GPU (not run yet: the session that wrote it had no device time left). One call:
# the native launch path's CUDA tests (and the same test with the read-back shifted by one, which must
# fail), launch_overhead.py (both launch paths, every bare peer, interleaved), the Ray device over its
# direct connection and over actor calls (remote_overhead.py --backend cuda), and the accurate sin·exp
# against torch.compile in interleaved rounds.
# Usage: bash benchmarks/gpu_perf3d.sh OUTDIR RAYDIR WHEELDIR   (RAYDIR: the Ray bundle of
# ../shared/tools/ray-on-gpu.md; WHEELDIR: psygnal and platformdirs wheels; about 4 minutes)
OUT=${1:-out}; RAYDIR=${2:-}; WHL=${3:-}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 QDEXPLORER_CACHE_DIR=${QDEXPLORER_CACHE_DIR:-/tmp/qdxcache}
t0=$(date +%s)
step() { echo "$(( $(date +%s) - t0 ))s $1" >> "$OUT/steps.txt"; }
mkdir -p /tmp/ray && tar xJf "$RAYDIR/ray-bundle.tar.xz" -C /tmp/ray &&
  python3 -m pip install -q --no-index --no-deps --target /tmp/ray "$RAYDIR"/whl/*.whl "$WHL"/*.whl > "$OUT/pip.txt" 2>&1
step install
PYTHONPATH=/tmp/ray:$PWD timeout 120 python3 -m pytest -q -p no:cacheprovider -m cuda -x -rs \
  tests/runtime/test_native_launch.py tests/runtime/test_native_ring.py tests/runtime/test_cuda.py > "$OUT/pytest.txt" 2>&1
step pytest
rm -rf /tmp/shifted && cp -r "$PWD" /tmp/shifted &&
  sed -i 's/zip(pending, ring.out\[:n\].tolist())/zip(pending[1:], ring.out[:n].tolist())/' /tmp/shifted/qdexplorer/runtime/cuda/backend.py &&
  (cd /tmp/shifted && PYTHONPATH=/tmp/ray:/tmp/shifted timeout 60 python3 -m pytest -q -p no:cacheprovider -m cuda \
    tests/runtime/test_native_launch.py > "$OUT/pytest_shifted_must_fail.txt" 2>&1)
step shifted
timeout 40 python3 benchmarks/launch_overhead.py > "$OUT/launch.json" 2> "$OUT/launch.err"; step launch
PYTHONPATH=/tmp/ray:$PWD RAY_USAGE_STATS_ENABLED=0 timeout 90 python3 benchmarks/remote_overhead.py --backend cuda \
  --reps ${REPS:-5} --rounds ${ROUNDS:-2} > "$OUT/remote_overhead.json" 2> "$OUT/remote_overhead.err"; step ray
timeout 70 python3 benchmarks/kernel_suite.py --no-quadrants --only wave > "$OUT/kernel_suite.json" 2> "$OUT/kernel_suite.err"
step kernel_suite
tail -3 "$OUT/pytest.txt"; tail -2 "$OUT/pytest_shifted_must_fail.txt"; cat "$OUT/steps.txt"
