"""Hangs: starts a helper process (its pid goes to argv[1]) and sleeps; the timeout must end both."""
import subprocess
import sys
import time

import quadrants as qd

qd.init(arch=qd.cpu)
helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open(sys.argv[1], "w") as fh:
    fh.write(str(helper.pid))
print("sleeping", flush=True)
time.sleep(600)
