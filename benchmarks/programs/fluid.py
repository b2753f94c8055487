"""The fluid program of sim_programs.py as a user runs it: `import quadrants`, 256x256 ndarrays,
10 steps, checksums printed (first_result.py times process start to that line)."""
import os
import sys

import numpy as np
import quadrants as qd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import sim_programs as sp  # noqa: E402

qd.init(arch=qd.cpu)
ks = sp.define(qd)


def arrays(v):
    t = qd.ndarray(qd.f32, shape=v.shape)
    t.from_numpy(v)
    return t


r = sp.run_fluid(qd, ks, 256, 256, 10, qd.sync, arrays)
print("q_sum %.4f p_sum %.4f" % (float(r["q"].astype(np.float64).sum()), float(r["p"].astype(np.float64).sum())))
