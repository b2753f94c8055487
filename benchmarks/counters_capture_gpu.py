"""Make, on a GPU machine without Nsight Compute's report reader, the real reports of the demo's copy task
with its generated PTX and with the doubled-loads edit (full preset, REPEATS profiles of each, as the
window's A/B makes them), and one of saxpy (its roofline point), to be read and shown elsewhere.

    python benchmarks/counters_capture_gpu.py OUT [REPEATS]

On the H200 the engine needs psygnal and platformdirs, which the machine lacks: carry them as
wheels (/work/main/.whl has both) and pip install them into a --target first
(`benchmarks/counters3_gpu.sh` does).

The engine's own path runs (`Engine.counters`: the child under ncu, the PTX-line table); only the last
step, reading the report, is replaced by keeping its bytes in OUT (`<side>.ncu-rep`, with the PTX each
was made from). `benchmarks/counters_window_shot.py --reports OUT` then draws the window from them
where the reader is installed (a stand-in ncu hands each report over), without a GPU.
"""
from __future__ import annotations

import json
import shutil
import sys
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TASK = "copy_kernel_0_range_for"


def main(out: Path, repeats: int = 3) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    from qdexplorer.counters import collect as C
    from qdexplorer.counters.edits import double_global_loads
    from qdexplorer.counters import probe as P
    from qdexplorer.engine import Engine
    cap = P.probe(None, "cuda")
    if cap.state == P.NO_READER and cap.ncu:   # the reader is missing here, not ncu: profile all the same
        P.learn(None, "cuda", P.Capability(P.OK, "", cap.ncu, cap.version))
    sys.modules.setdefault("ncu_report", types.ModuleType("ncu_report"))   # only its import is checked first
    kept: list[str] = []

    def keep(report, task, preset, ptx, ptx_path):
        dest = out / f"kept{len(kept)}.ncu-rep"
        shutil.copyfile(report, dest)   # collect removes its folder when this returns
        kept.append(str(dest))
        raise C.ReportError("kept")
    C.read_report = keep
    doc: dict = {}
    with Engine(None, backend="cuda", in_process=True, use_cache=False) as eng:
        _, compiled = eng.compile(["copy", "saxpy"], target="nvptx")
        gen = next(ct for ct in compiled if ct.task == TASK).ptx
        for side, ptx in (("generated", None), ("edited", double_global_loads(gen))):
            for i in range(repeats):
                t0 = time.perf_counter()
                res = eng.counters(TASK, "full", side="generated" if ptx is None else "edited.ptx", ptx=ptx,
                                   fresh=True)
                name = f"{side}{i or ''}"
                doc[name] = {"state": res.state, "message": res.message, "wall_s": round(time.perf_counter() - t0, 2)}
                if kept:
                    Path(kept.pop()).rename(out / f"{name}.ncu-rep")
            (out / f"{side}.ptx").write_text(gen if ptx is None else ptx)
        sax = "saxpy_kernel_0_range_for"
        t0 = time.perf_counter()
        res = eng.counters(sax, "full", fresh=True)
        doc[sax] = {"state": res.state, "message": res.message, "wall_s": round(time.perf_counter() - t0, 2)}
        if kept:
            Path(kept.pop()).rename(out / f"{sax}.ncu-rep")
        (out / f"{sax}.ptx").write_text(next(ct for ct in compiled if ct.task == sax).ptx)
    return doc


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 3), indent=2))
