"""The particle program of sim_programs.py as a user runs it: `import quadrants`, 4096 particles,
100 steps, the kinetic energy printed (first_result.py times process start to that line)."""
import os
import sys

import quadrants as qd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import sim_programs as sp  # noqa: E402

qd.init(arch=qd.cpu)
ks = sp.define(qd)
r = sp.run_particles(qd, ks, 4096, 100, qd.sync)
print("energies", " ".join(f"{e:.5g}" for e in r["energies"]))
