#!/usr/bin/env bash
# Issue 44 on two GPUs of one host, in ONE device call of at most 9 minutes: devices lists both GPUs; `sweep
# --gpus 2` over 10 variants against `--gpus 1` in the same call (the time ratio, and each variant's run compared
# with its one-GPU run); `compare` GPU 0 against GPU 1; `counters` of one task on GPU 0 and on GPU 1; a sweep whose
# second device actor is SIGKILLed mid-run. Every step is a real qdexplorer command through `--cluster local`
# (benchmarks/two_gpus.py says what each checks); prints ONE JSON document, also left in OUTDIR/two_gpus.json.
#
# On the 2-GPU machine (run from the tree, with the Ray bundle carried beside it):
#   bash benchmarks/two_gpus.sh OUTDIR RAYDIR [WHEELDIR]
#     RAYDIR:   what ../shared/tools/make-ray-bundle.sh builds (.ray/: ray-bundle.tar.xz and whl/); carry it
#     WHEELDIR: psygnal and platformdirs wheels (qdexplorer's own dependencies), if the machine lacks them
# On a machine without GPUs (the same steps with two CPU actors, small sizes; what CI and a session can check):
#   bash benchmarks/two_gpus.sh --cpu OUTDIR
# BUDGET (seconds for the steps, default 450) and the driver's options (ROUNDS, REPEAT) may be set in the environment.
set -u
CPU=
if [ "${1:-}" = --cpu ]; then CPU=--cpu; shift; fi
OUT=${1:-${OUT:-out}}; RAYDIR=${2:-}; WHL=${3:-}
mkdir -p "$OUT"
START=$(date +%s)
export PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0
if [ -z "$CPU" ]; then
  [ -n "$RAYDIR" ] || { echo '{"error": "usage: two_gpus.sh OUTDIR RAYDIR [WHEELDIR] (or --cpu OUTDIR)"}'; exit 2; }
  mkdir -p /tmp/ray && tar xJf "$RAYDIR/ray-bundle.tar.xz" -C /tmp/ray &&
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/ray "$RAYDIR"/whl/*.whl \
      ${WHL:+"$WHL"/*.whl} > "$OUT/install.txt" 2>&1
  export PYTHONPATH=/tmp/ray:$PWD
  # Nsight Compute's own report reader, which the counters step reads reports with (as gpu_acceptance.sh)
  NCUPY=$(dirname "$(find /usr/local/cuda*/ /opt/nvidia/ -name ncu_report.py -path '*extras/python*' 2>/dev/null | head -1)")
  [ "$NCUPY" != . ] && export PYTHONPATH=$PYTHONPATH:$NCUPY
  nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
fi
PY=python3; [ -n "$CPU" ] && command -v python >/dev/null && PY=python
echo "install $(( $(date +%s) - START ))s" > "$OUT/steps.txt"
ARGS=(--budget "${BUDGET:-450}" --work "${WORK:-/tmp/qdx2gpu}" $CPU)
[ -n "${ROUNDS:-}" ] && ARGS+=(--rounds "$ROUNDS")
[ -n "${REPEAT:-}" ] && ARGS+=(--repeat "$REPEAT")
rm -rf "${WORK:-/tmp/qdx2gpu}"
timeout -k 10 $(( 530 - ($(date +%s) - START) )) "$PY" benchmarks/two_gpus.py "${ARGS[@]}" \
  > "$OUT/two_gpus.json" 2> "$OUT/two_gpus.err"
echo "rc=$? total $(( $(date +%s) - START ))s" >> "$OUT/steps.txt"
cat "$OUT/steps.txt" >&2
cat "$OUT/two_gpus.json"
