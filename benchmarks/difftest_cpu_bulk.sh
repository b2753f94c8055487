#!/usr/bin/env bash
# The long differential run (issue 29 part 3) in one call on a machine with many idle cores: random
# programs under Quadrants 1.3.3 and qdexplorer.lang on the CPU (CPU_JOBS processes, each with its
# own pair of children, CUDA hidden), and beside them a few CUDA processes (CUDA_JOBS; 0 for none).
# Every process rewrites its running totals after each program (benchmarks/difftest.py --tally-dir),
# so a run stopped from outside still counts what it did. At the end: summary.json (the merged totals
# per arch: kernels, mismatches by class, Quadrants' double timeouts) printed, and one tarball
# difftest_bulk.tgz with it, every process's totals and stderr, pip's log and the text of every
# program that mismatched or timed out (programs/ARCH_seed_N.py, the mismatch as trailing comments).
# Any step that fails (pip, an import) prints why and exits non-zero: the run cannot end silently.
#
# Usage: WHEELS=DIR bash benchmarks/difftest_cpu_bulk.sh OUTDIR [BUDGET_S]
#   WHEELS: quadrants-1.3.3 cp312 and its dependencies (installed with no index into /tmp/qdpk);
#   CPU_SEEDS (200000:300000), CUDA_SEEDS (510000:520000), CPU_JOBS (12), CUDA_JOBS (2),
#   TIMEOUT (30 s per program), RETRY (60 s for a timed-out program's second run, alone);
#   NO_INSTALL=1 uses the Quadrants already importable (e.g. `NO_INSTALL=1 CPU_JOBS=1 CUDA_JOBS=0 ... OUT 20`).
set -u
OUT=${1:?usage: difftest_cpu_bulk.sh OUTDIR [BUDGET_S]}
BUDGET=${2:-420}
WHEELS=${WHEELS:-../../.whl/quadrants}
CPU_SEEDS=${CPU_SEEDS:-200000:300000}
CUDA_SEEDS=${CUDA_SEEDS:-510000:520000}
CPU_JOBS=${CPU_JOBS:-12}
CUDA_JOBS=${CUDA_JOBS:-2}
TIMEOUT=${TIMEOUT:-30}
RETRY=${RETRY:-60}
WORK=$(mktemp -d /tmp/difftest-bulk.XXXXXX)
mkdir -p "$OUT" "$WORK/programs" "$WORK/tally_cpu" "$WORK/tally_cuda"
export PYTHONUNBUFFERED=1 QDEXPLORER_CACHE_DIR=${QDEXPLORER_CACHE_DIR:-/tmp/qdxcache}
T0=$(date +%s)

pack() {
  tar czf "$OUT/difftest_bulk.tgz" -C "$WORK" . && echo "tarball: $OUT/difftest_bulk.tgz ($(du -h "$OUT/difftest_bulk.tgz" | cut -f1))"
}
fail() {
  echo "difftest_cpu_bulk FAILED: $*"
  tail -n 40 "$WORK/pip.txt" 2>/dev/null
  pack
  exit 1
}

if [ -z "${NO_INSTALL:-}" ]; then  # NO_INSTALL=1: Quadrants is already importable (a local try)
  ls "$WHEELS"/quadrants-*.whl > /dev/null 2>&1 || fail "no quadrants wheel in $WHEELS"
  python3 -m pip install -q --no-deps --no-index --no-compile --target /tmp/qdpk "$WHEELS"/*.whl \
    > "$WORK/pip.txt" 2>&1 || fail "pip install of $WHEELS"
fi
export PYTHONPATH=/tmp/qdpk:$PWD
python3 -c "import quadrants, qdexplorer.lang, llvmlite; print('quadrants', quadrants.__version__)" \
  > "$WORK/versions.txt" 2>&1 || { cat "$WORK/versions.txt"; fail "import"; }
{ nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1; python3 --version; } >> "$WORK/versions.txt"
cat "$WORK/versions.txt"
echo "install: $(( $(date +%s) - T0 )) s; budget $BUDGET s, $CPU_JOBS CPU jobs, $CUDA_JOBS CUDA jobs"

# past the budget a process ends its current program, whose retry may take TIMEOUT + RETRY more
LIMIT=$((BUDGET + TIMEOUT + RETRY + 30))
CUDA_VISIBLE_DEVICES= timeout "$LIMIT" python3 benchmarks/difftest.py --arch cpu --seeds "$CPU_SEEDS" \
  --jobs "$CPU_JOBS" --timeout "$TIMEOUT" --retry-timeout "$RETRY" --budget-s "$BUDGET" --progress \
  --tally-dir "$WORK/tally_cpu" --save-dir "$WORK/programs" > "$WORK/cpu.json" 2> "$WORK/cpu.err" &
if [ "$CUDA_JOBS" -gt 0 ]; then
  timeout "$LIMIT" python3 benchmarks/difftest.py --arch cuda --seeds "$CUDA_SEEDS" \
    --jobs "$CUDA_JOBS" --timeout "$TIMEOUT" --retry-timeout "$RETRY" --budget-s "$BUDGET" --progress \
    --tally-dir "$WORK/tally_cuda" --save-dir "$WORK/programs" > "$WORK/cuda.json" 2> "$WORK/cuda.err" &
fi
wait
SECONDS_RUN=$(( $(date +%s) - T0 ))

python3 - "$WORK" "$SECONDS_RUN" > "$WORK/summary.json" <<'EOF' || fail "merge"
import json, os, sys
sys.path.insert(0, "benchmarks")
from difftest import merge
work, seconds = sys.argv[1], int(sys.argv[2])
out = {"wall_seconds": seconds, "machine": open(os.path.join(work, "versions.txt")).read().split("\n")}
for arch in ("cpu", "cuda"):
    folder = os.path.join(work, f"tally_{arch}")
    if any(n.endswith(".json") for n in os.listdir(folder)):
        out[arch] = merge(folder)
print(json.dumps(out, indent=1))
EOF
cat "$WORK/summary.json"
cp "$WORK/summary.json" "$OUT/summary.json"
tail -n 5 "$WORK/cpu.err" "$WORK"/cuda.err 2>/dev/null
ls "$WORK/programs"
pack
