#!/usr/bin/env bash
# Every GPU claim of issue 40 in one device call, in priority order, inside one time budget; then ONE JSON
# document (gpu_acceptance_summary.py) naming the machine, each figure beside its peer from this run.
# Usage on the GPU machine:  bash benchmarks/gpu_acceptance.sh OUTDIR [SECONDS [quick]]
# (quick: a short confirming run, for when little device time is left; confirm: the least, bandwidth and the
#  CUDA tests in parallel)
# What the machine lacks travels beside the tree in the carried folder .gpu (built by benchmarks/gpu_bundle.sh):
#   ../qd.tar.xz          Quadrants 1.3.3 for CPython 3.12 (the wheel's package folders, xz; 24 MiB)
#   ../ray-bundle.tar.xz  Ray 2.60 stripped (../../shared/tools/make-ray-bundle.sh, binaries stripped too)
#   ../deps/*.whl         pydantic, dill (Quadrants), psygnal, platformdirs (qdexplorer), jsonschema... (Ray)
# Missing pieces make their steps report "unmeasured", never a figure from an older run.
# Each step is time-boxed and skipped when the budget is nearly spent; everything lands in $WORK/r/, packed
# into OUTDIR/results.tgz, and the summary is OUTDIR/summary.json (also printed last).
OUT=${1:-${OUT:-out}}
BUDGET=${2:-530}
WORK=${GPU_ACCEPTANCE_WORK:-/tmp/gpu_acceptance}   # the device tool brings back 8 files at most: the
rm -rf "$WORK" && mkdir -p "$WORK/r" "$OUT"          # results are packed into OUTDIR/results.tgz
R=$WORK/r
export PYTHONUNBUFFERED=1 QDEXPLORER_CACHE_DIR=${QDEXPLORER_CACHE_DIR:-/tmp/qdxcache} QDEXPLORER_DATA_DIR=/tmp/qdxdata
export RAY_USAGE_STATS_ENABLED=0
START=$(date +%s)
step() {  # step NAME SECONDS CMD...
  local name=$1 limit=$2; shift 2
  local left=$(( BUDGET - ($(date +%s) - START) - 12 ))
  if (( left < 15 )); then echo "SKIPPED (budget) $name" >> "$R/steps.txt"; return; fi
  (( limit > left )) && limit=$left
  local t0=$(date +%s)
  timeout -k 5 "$limit" bash -c "$*" > "$R/$name.txt" 2>&1
  echo "rc=$? $(( $(date +%s) - t0 ))s/${limit}s $name" >> "$R/steps.txt"
}
gpu_quiet() {  # wait (30 s at most) until no other process holds the GPU; say who still did
  local i
  for i in $(seq 30); do
    [ -z "$(nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null)" ] && return
    sleep 1
  done
  echo "GPU still used by: $(nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader | tr '\n' ' ')" >> "$R/steps.txt"
}
cuda_tests() {  # cuda_tests PARALLEL_S EXCLUSIVE_S: the CUDA tests 15 at a time, then those marked gpu_exclusive
  # (counters, timing verdicts: they measure the GPU, so they get it to themselves) one at a time
  step pytest_cuda "$1" "python3 -m pytest -q -v -p no:cacheprovider -n 15 -m 'cuda and not gpu_exclusive' -rfE --ignore=tests/gui tests"
  gpu_quiet
  step pytest_cuda_exclusive "$2" "python3 -m pytest -q -v -p no:cacheprovider -m 'cuda and gpu_exclusive' -rfE --ignore=tests/gui tests"
}
SITE=/tmp/qdsite
mkdir -p "$SITE" /tmp/ray
{
  [ -f ../qd.tar.xz ] && tar xJf ../qd.tar.xz -C "$SITE" &
  [ -f ../ray-bundle.tar.xz ] && tar xJf ../ray-bundle.tar.xz -C /tmp/ray &
  ls ../deps/*.whl >/dev/null 2>&1 && python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
    --target "$SITE" ../deps/*.whl
  wait
} > "$R/install.txt" 2>&1
export PYTHONPATH=$SITE:/tmp/ray:$PWD
# Nsight Compute's own report reader (the counters read reports with it; its wheel is 17 MB, too big to carry)
NCUPY=$(dirname "$(find /usr/local/cuda*/ /opt/nvidia/ -name ncu_report.py -path '*extras/python*' 2>/dev/null | head -1)")
[ "$NCUPY" != . ] && export PYTHONPATH=$PYTHONPATH:$NCUPY
echo "install $(( $(date +%s) - START ))s" >> "$R/steps.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv > "$R/smi.txt" 2>&1
python3 -c "import quadrants, ray, psygnal; print('quadrants', quadrants.__version__, 'ray', ray.__version__)" \
  >> "$R/install.txt" 2>&1
python3 -c "import ncu_report; print('ncu_report', ncu_report.__file__)" >> "$R/install.txt" 2>&1

if [ "${3:-}" = confirm ]; then   # the least device time: the bandwidth table, then the CUDA tests run in parallel
  gpu_quiet; step bandwidth 40 "python3 benchmarks/cuda_bandwidth.py --log2 27 --kernels > $R/cuda_bandwidth.json"
  step pytest_cuda 150 "python3 -m pytest -q -v -p no:cacheprovider -n 15 -m 'cuda and not gpu_exclusive' -rfE --ignore=tests/gui tests"
  python3 benchmarks/gpu_acceptance_summary.py "$R" > "$OUT/summary.json" 2> "$R/summary.err"
  cp "$OUT/summary.json" "$R/"; tar czf "$OUT/results.tgz" -C "$WORK" r
  cat "$R/steps.txt"; tail -2 "$R/pytest_cuda.txt"; cat "$OUT/summary.json"
  exit 0
fi
if [ "${3:-}" = quick ]; then   # a confirming run on little device time: what the last changes touch, first
  # timings first, on a GPU nothing else uses (call 4 timed right after the tests and lost 2.6x to their leftovers)
  gpu_quiet; step launch 15 "python3 benchmarks/launch_overhead.py > $R/launch.json"
  gpu_quiet; step script_calls 25 "python3 benchmarks/script_calls.py --log2 20 --calls 200 --sim 4096 1048576 --sim-steps 300 \
    > $R/script_calls.json"
  gpu_quiet; step sim_ab 20 "for v in '--side qdexplorer' '--side quadrants'; do python3 benchmarks/sim_step_profile.py \$v --steps 300; \
    done > $R/sim_ab.jsonl"
  gpu_quiet; step bandwidth 40 "python3 benchmarks/cuda_bandwidth.py --log2 27 --kernels > $R/cuda_bandwidth.json"
  cuda_tests 140 180   # the PTX-edit timing test alone takes ~65 s beside the counters tests (call 7 cut it at 120 s)
  step ray 60 "python3 benchmarks/remote_overhead.py --backend cuda --reps 3 --rounds 2 > $R/remote_overhead.json"
  python3 benchmarks/gpu_acceptance_summary.py "$R" > "$OUT/summary.json" 2> "$R/summary.err"
  cp "$OUT/summary.json" "$R/"; tar czf "$OUT/results.tgz" -C "$WORK" r
  cat "$R/steps.txt"; tail -2 "$R/pytest_cuda.txt" "$R/pytest_cuda_exclusive.txt"; cat "$OUT/summary.json"
  exit 0
fi
# 1. every CUDA test (the window's need PySide6, which does not travel with Quadrants and Ray: tests/gui left out);
#    -v names each failure as it happens, so a step cut by its time box still says which test failed
cuda_tests 150 150
# 2. launches: the native path (now the default) and the cuda-python fallback against bare loops
gpu_quiet; step launch 35 "python3 benchmarks/launch_overhead.py > $R/launch.json"
# 3. script calls and the particle program at 4,096 and 1,048,576 beside Quadrants (the "2.05x" figure)
step script_calls 70 "python3 benchmarks/script_calls.py --log2 20 --calls 200 --sim 4096 1048576 --sim-steps 300 \
  > $R/script_calls.json"
# 4. the 1M step without ncu, in one run: ours, ours before atomic demotion, Quadrants (300 steps each)
step sim_ab 45 "for v in '--side qdexplorer' '--side qdexplorer --no-demote' '--side quadrants'; do   python3 benchmarks/sim_step_profile.py \$v --steps 300; done > $R/sim_ab.jsonl"
# 5. kernels beside torch / torch.compile / cuBLAS / Quadrants: accurate sin.exp (+ ulp of both), stencil, sum,
#    fast sin.exp, histogram, tiled transpose, both matmuls
step kernel_suite 150 "python3 benchmarks/kernel_suite.py --only wave,stencil,total,histogram,transpose_tiled,matmul_tiled,matmul_blocked \
  --compile-only wave,stencil,total > $R/kernel_suite.json"
# 6. the bandwidth ceiling: each bandwidth-bound kernel as a fraction of this run's device-to-device copy
step bandwidth 60 "python3 benchmarks/cuda_bandwidth.py --log2 27 --kernels > $R/cuda_bandwidth.json"
# 6b. where bandwidth is lost: every launch shape (vector 1/2/4/8, capped or one index per thread), each
#     kernel also against the copy of its own byte count (the ceiling at its size)
step bandwidth_explore 120 "python3 benchmarks/cuda_bandwidth.py --log2 27 --kernels --explore > $R/cuda_bandwidth_explore.json"
# 7. debug mode beside Quadrants (its child finds Quadrants through PYTHONPATH)
step debug_mode 45 "python3 benchmarks/debug_mode.py --arch cuda --reps 10 > $R/debug_mode.json"
# 8. Ray on one GPU: the two Ray sides ask for half of it each
step ray 85 "python3 benchmarks/remote_overhead.py --backend cuda --reps 3 --rounds 2 > $R/remote_overhead.json"
# 9. where the 1M step's time goes: each kernel's GPU time and launch shape on both sides (ncu, past warm-up)
for side in qdexplorer quadrants; do
  step ncu_sim_$side 40 "ncu --clock-control none --launch-skip 60 --launch-count 9 --csv \
    --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum \
    --log-file $R/ncu_sim_$side.csv python3 benchmarks/sim_step_profile.py --side $side --steps 40 > $R/sim_profile_$side.json"
done
# 10. counters overhead (two tasks: quick, full, cached)
step counters_overhead 40 "python3 benchmarks/counters_overhead.py saxpy_kernel_0_range_for particle_step_kernel_3_range_for \
  > $R/counters_overhead.json"
# 11. where a script call's host time goes (cProfile of the empty call, the particle step, an ndarray call)
step script_profile 30 "python3 benchmarks/script_call_profile.py --calls 3000 > $R/script_call_profile.json"
python3 benchmarks/gpu_acceptance_summary.py "$R" > "$OUT/summary.json" 2> "$R/summary.err"
cp "$OUT/summary.json" "$R/"
tar czf "$OUT/results.tgz" -C "$WORK" r
cat "$R/steps.txt"; tail -2 "$R/pytest_cuda.txt" "$R/pytest_cuda_exclusive.txt"; cat "$R/summary.err" | tail -5
cat "$OUT/summary.json"
