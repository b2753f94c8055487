#!/usr/bin/env bash
# Issue 34, a short third GPU call: launch host cost (a third sample), the CUDA tests that the codegen changes touch (the demo on the GPU
# with fast math's fma, shared-memory kernels with 32-bit shared pointers), accurate sin·exp against
# torch.compile in interleaved rounds (and its A/B variants), and the Ray device.
# Usage: bash benchmarks/gpu_perf3c.sh OUTDIR RAYDIR WHEELDIR   (as gpu_perf3b.sh)
OUT=${1:-out}; RAYDIR=${2:-}; WHL=${3:-}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 QDEXPLORER_CACHE_DIR=${QDEXPLORER_CACHE_DIR:-/tmp/qdxcache}
t0=$(date +%s)
step() { echo "$(( $(date +%s) - t0 ))s $1" >> "$OUT/steps.txt"; }
mkdir -p /tmp/ray && tar xJf "$RAYDIR/ray-bundle.tar.xz" -C /tmp/ray &&
  python3 -m pip install -q --no-index --no-deps --target /tmp/ray "$RAYDIR"/whl/*.whl "$WHL"/*.whl > "$OUT/pip.txt" 2>&1
step install
PYTHONPATH=/tmp/ray:$PWD timeout 50 python3 -m pytest -q -p no:cacheprovider -m cuda -x tests/runtime/test_cuda.py tests/codegen \
  -rs > "$OUT/pytest.txt" 2>&1; step pytest
timeout 70 python3 benchmarks/kernel_suite.py --no-quadrants --only ${SUITE:-wave} \
  > "$OUT/kernel_suite.json" 2> "$OUT/kernel_suite.err"; step kernel_suite
timeout 20 python3 benchmarks/launch_overhead.py > "$OUT/launch.json" 2>&1; step launch
PYTHONPATH=/tmp/ray:$PWD RAY_USAGE_STATS_ENABLED=0 timeout 45 python3 benchmarks/remote_overhead.py --backend cuda \
  --reps ${REPS:-3} --rounds ${ROUNDS:-2} > "$OUT/remote_overhead.json" 2> "$OUT/remote_overhead.err"; step ray
tail -3 "$OUT/pytest.txt"; cat "$OUT/steps.txt"
