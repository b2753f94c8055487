"""Regenerate reference/<example>.json by running every example (or those named on the command
line) under real Quadrants on the CPU (`pip install '.[quadrants]'`). Kernel output printed by an
example is kept as `stdout` lines."""
import json
import os
import subprocess
import sys

from run_example import EXAMPLES, HERE

os.makedirs(os.path.join(HERE, "reference"), exist_ok=True)
for name in sys.argv[1:] or EXAMPLES:
    out = os.path.join(HERE, "reference", name + ".json")
    p = subprocess.run([sys.executable, os.path.join(HERE, "run_example.py"), name, "--quadrants", "--out", out],
                       capture_output=True, text=True, check=True)
    lines = [ln for ln in p.stdout.splitlines() if not ln.startswith("[Quadrants]")]
    with open(out) as f:
        res = json.load(f)
    res["stdout"] = lines
    with open(out, "w") as f:
        json.dump(res, f, indent=None)
    print(name, "->", out, f"({len(lines)} printed lines)")
