"""Per-task module load time (cuModuleLoadDataEx of each demo task's PTX), cold and warm.

'cold' runs with an empty driver compute cache (CUDA_CACHE_PATH pointing at a fresh folder), so
the driver JIT-compiles PTX to SASS; 'warm' runs again with the same folder, so the driver's cache
serves the SASS. Each phase is its own process, as a fresh app start would be.
"""
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time

from _common import ROOT, emit


def child(path):
    from qdexplorer.runtime.cuda.backend import CudaBackend
    items = pickle.load(open(path, "rb"))
    be = CudaBackend()
    out = {}
    for name, ptx in items:
        t0 = time.perf_counter()
        be.modules.load_ptx(ptx, name)
        out[name] = (time.perf_counter() - t0) * 1e3
    print(json.dumps(out))


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        return child(sys.argv[2])
    from qdexplorer.engine import Engine
    with Engine(None, in_process=True, offline_cache=False) as eng:
        _, compiled = eng.compile(target="nvptx")
    items = [(ct.task, ct.generated) for ct in compiled]
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "ptx.pkl")
    pickle.dump(items, open(path, "wb"))
    env = dict(os.environ, CUDA_CACHE_PATH=os.path.join(tmp, "nvcache"), PYTHONPATH=ROOT)
    phases = {}
    for phase in ("cold", "warm"):
        p = subprocess.run([sys.executable, __file__, "--child", path], env=env, capture_output=True, text=True,
                           check=True)
        phases[phase] = json.loads(p.stdout.strip().splitlines()[-1])
    rows = [{"task": t, "ptx_bytes": len(ptx), "cold_ms": round(phases["cold"][t], 3),
             "warm_ms": round(phases["warm"][t], 3)} for t, ptx in items]
    emit({"benchmark": "module_load", "tasks": rows,
          "total_cold_ms": round(sum(r["cold_ms"] for r in rows), 2),
          "total_warm_ms": round(sum(r["warm_ms"] for r in rows), 2)})


if __name__ == "__main__":
    main()
