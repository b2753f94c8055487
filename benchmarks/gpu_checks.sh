#!/usr/bin/env bash
# Everything that needs the GPU, in one go: the cuda-marked tests and the CUDA benchmarks.
# Usage (on a machine with an NVIDIA GPU): bash benchmarks/gpu_checks.sh [OUTDIR]
OUT=${1:-${OUT:-out}}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 QDEXPLORER_CACHE_DIR=${QDEXPLORER_CACHE_DIR:-/tmp/qdxcache}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/smi.txt" 2>&1
python3 -m qdexplorer.cli info > "$OUT/info.json" 2>&1
timeout 300 python3 -m pytest -q -p no:cacheprovider tests -rs > "$OUT/pytest.txt" 2>&1
timeout 150 python3 benchmarks/cuda_bandwidth.py > "$OUT/bandwidth.json" 2>&1
timeout 100 python3 benchmarks/launch_overhead.py > "$OUT/launch.json" 2>&1
timeout 60 python3 benchmarks/module_load.py > "$OUT/module_load.json" 2>&1
timeout 90 python3 -m qdexplorer.cli run --backend cuda --repeat 10 > "$OUT/run_cuda.txt" 2>&1
timeout 150 python3 benchmarks/warm_edit.py > "$OUT/warm_edit.json" 2>&1
timeout 400 python3 benchmarks/kernel_suite.py > "$OUT/kernel_suite.json" 2> "$OUT/kernel_suite.err"
timeout 120 python3 benchmarks/script_calls.py > "$OUT/script_calls.json" 2>&1
timeout 90 python3 benchmarks/libdevice_link.py > "$OUT/libdevice_link.json" 2>&1
timeout 400 python3 benchmarks/assembly_modes.py > "$OUT/assembly_modes.json" 2>&1
timeout 300 python3 benchmarks/compare_override.py --out "$OUT" > /dev/null 2> "$OUT/compare_override.txt"
tail -25 "$OUT/pytest.txt"
