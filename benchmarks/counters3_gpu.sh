#!/bin/bash
# Issue 30's GPU figures in one device call (run from the project root on the GPU machine):
#   bash benchmarks/counters3_gpu.sh WHEELS OUT
# WHEELS: psygnal and platformdirs wheels, and quadrants/ with Quadrants 1.3.3 and its needs (the
# machine lacks them). The report reader is Nsight Compute's own (its extras/python), so the
# ncu-report wheel need not travel. Steps, in order of need, each with its own time limit, each
# going on when one before it failed (its log says what happened):
#   1. the cuda counters tests (doubled loads changed, a no-op edit changed nothing; 3 profiles a side)
#   2. counters_capture_gpu.py: the copy task's reports, generated and edited, 3 each, and saxpy's
#   3. counters_overhead.py: quick, full and cached wall time per task
#   4. quadrants_counters_gpu.py: a real Quadrants program's task, generated against a QUADRANTS_LOAD_PTX edit
# OUT gets logs.tgz (logs and JSON), capture.tgz and quadrants.tgz (reports, read elsewhere).
set -u
W=${1:?wheels folder}; O=${2:?out folder}; mkdir -p "$O"; L=/tmp/c3; mkdir -p $L
export PYTHONUNBUFFERED=1
T0=$(date +%s)
step() { echo "$(( $(date +%s) - T0 )) s: $*" >> $L/steps.txt; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
  "$W"/quadrants/*.whl "$W"/*.whl > $L/pip.txt 2>&1; step "pip rc=$?"
NR=$(ls -d /opt/nvidia/nsight-compute/*/extras/python /usr/local/cuda*/nsight-compute*/extras/python 2>/dev/null | head -1)
export PYTHONPATH=$PWD:/tmp/site${NR:+:$NR}
{ echo "reader dir: $NR"; python3 -c "import ncu_report; print('ncu_report', ncu_report.__file__)" 2>&1 | tail -1
  nvidia-smi -L; ncu --version | tail -1; python3 --version; } > $L/env.txt 2>&1
python3 -c "from qdexplorer.counters import probe; print(probe.probe())" > $L/probe.txt 2>&1; step probe
QDX_COUNTERS_FIGURES=$L/gpu_figures.json timeout 130 python3 -m pytest -q -p no:cacheprovider -m cuda \
  tests/counters tests/quadrants -k counter > $L/tests.log 2>&1; step "tests rc=$?"
timeout 60 python3 benchmarks/counters_capture_gpu.py $L/capture 3 > $L/capture.json 2> $L/capture.err; step "capture rc=$?"
timeout 60 python3 benchmarks/counters_overhead.py > $L/overhead.json 2> $L/overhead.err; step "overhead rc=$?"
timeout 75 python3 benchmarks/quadrants_counters_gpu.py $L/quadrants > $L/quadrants.json 2> $L/quadrants.err
step "quadrants rc=$?"
(cd $L && tar czf "$O/capture.tgz" capture && tar czf "$O/quadrants.tgz" --exclude=load quadrants)
(cd $L && tar czf "$O/logs.tgz" --exclude=capture --exclude=quadrants .)
ls -la "$O"; cat $L/steps.txt $L/env.txt $L/probe.txt; tail -5 $L/tests.log
