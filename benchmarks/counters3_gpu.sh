#!/bin/bash
# Issue 30's GPU figures (run from the project root on the GPU machine):
#   bash benchmarks/counters3_gpu.sh WHEELS OUT core       # steps 1-3
#   bash benchmarks/counters3_gpu.sh WHEELS OUT quadrants  # step 4
# WHEELS: psygnal, platformdirs and ncu-report wheels (the machine lacks them) and, for step 4,
# quadrants/ with Quadrants 1.3.3 and its needs. Two calls because the ncu-report and Quadrants
# wheels together with the tree pass the device's 64 MiB. Each step has its own time limit and the
# next goes on when one failed (its log says what happened):
#   1. the cuda counters tests (doubled loads changed, a no-op edit changed nothing; 3 profiles a side)
#   2. counters_capture_gpu.py: the copy task's reports, generated and edited, 3 each, and saxpy's
#   3. counters_overhead.py: quick, full and cached wall time per task
#   4. quadrants_counters_gpu.py: a real Quadrants program's task, generated against a QUADRANTS_LOAD_PTX edit
# OUT gets MODE.tgz (logs, JSON and reports; read here with the scripts' --read / --reports).
set -u
W=${1:?wheels folder}; O=${2:?out folder}; MODE=${3:-core}; mkdir -p "$O"; L=/tmp/c3-$MODE; mkdir -p $L
export PYTHONUNBUFFERED=1
T0=$(date +%s)
step() { echo "$(( $(date +%s) - T0 )) s: $*" >> $L/steps.txt; }
Q=""; [ "$MODE" = quadrants ] && Q=$(ls "$W"/quadrants/*.whl)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
  $Q "$W"/*.whl > $L/pip.txt 2>&1; step "pip rc=$?"
export PYTHONPATH=$PWD:/tmp/site
{ python3 -c "import ncu_report; print('ncu_report', ncu_report.__file__)" 2>&1 | tail -1
  nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; ncu --version | tail -1
  python3 --version; } > $L/env.txt 2>&1
python3 -c "from qdexplorer.counters import probe; print(probe.probe())" > $L/probe.txt 2>&1; step probe
if [ "$MODE" = core ]; then
  QDX_COUNTERS_FIGURES=$L/gpu_figures.json timeout 140 python3 -m pytest -q -p no:cacheprovider -m cuda \
    tests/counters tests/quadrants -k counter > $L/tests.log 2>&1; step "tests rc=$?"
  timeout 70 python3 benchmarks/counters_capture_gpu.py $L/capture 3 > $L/capture.json 2> $L/capture.err
  step "capture rc=$?"
  timeout 70 python3 benchmarks/counters_overhead.py > $L/overhead.json 2> $L/overhead.err; step "overhead rc=$?"
else
  timeout 100 python3 benchmarks/quadrants_counters_gpu.py $L/quadrants > $L/quadrants.json 2> $L/quadrants.err
  step "quadrants rc=$?"
fi
(cd $L && tar czf "$O/$MODE.tgz" --exclude=load .)
ls -la "$O"; cat $L/steps.txt $L/env.txt $L/probe.txt; tail -5 $L/tests.log 2>/dev/null; tail -3 $L/*.err
