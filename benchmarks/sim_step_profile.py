"""The particle step of sim_programs.py on one side (qdexplorer or Quadrants), for a profiler to watch:
init, warm-up, then `--steps` steps with the energy read every 100. Run under Nsight Compute to see each
kernel's GPU time and launch shape on both sides (gpu_acceptance.sh does, with --launch-skip past the
warm-up); alone it prints the wall ms per step and, from that, whether the host or the GPU sets the pace
(the step's three kernels timed back to back, each kernel alone, 200 times, synchronised at the end).

    python benchmarks/sim_step_profile.py --side qdexplorer|quadrants [--n 1048576] [--steps 60] [--no-demote]

--no-demote: qdexplorer's code before atomic demotion (codegen/demote.py), for an A/B in one run.
"""
import argparse
import json
import time

import sim_programs as sp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--side", choices=("qdexplorer", "quadrants"), required=True)
    ap.add_argument("--n", type=int, default=1 << 20)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--no-demote", action="store_true")
    ap.add_argument("--arch", default="cuda", choices=("cuda", "cpu"))
    a = ap.parse_args()
    if a.no_demote:
        from qdexplorer.codegen import task_module
        task_module.demote_atomics = lambda task: task
    if a.side == "qdexplorer":
        import qdexplorer.lang as qd
        qd.init(arch=getattr(qd, a.arch))
    else:
        import quadrants as qd
        qd.init(arch=getattr(qd, a.arch), offline_cache=False, log_level="error")
    ks = sp.define(qd)
    r = sp.run_particles(qd, ks, a.n, a.steps, qd.sync)
    out = {"side": a.side + (" (atomics not demoted)" if a.no_demote else ""), "n": a.n, "steps": a.steps, "ms_per_step": r["ms_per_step"]}
    # host pace: an empty kernel called as often as the step calls kernels (3 a step)
    @qd.kernel
    def nothing():
        pass
    for _ in range(10):
        nothing()
    qd.sync()
    t0 = time.perf_counter()
    for _ in range(600):
        nothing()
    qd.sync()
    out["empty_call_us"] = (time.perf_counter() - t0) * 1e6 / 600
    print(json.dumps(out))


if __name__ == "__main__":
    main()
