"""A workload's inputs that do not fit in memory end in one message, and a workload without a check
needs no copy of its inputs (issue 21: a traceback, at about 3x the input's size)."""
import os
import subprocess
import sys
import textwrap

from tests.cli.test_cli import ROOT

PROJECT = textwrap.dedent("""\
    import numpy as np
    import qdexplorer.lang as qd

    N = {n}

    @qd.kernel
    def inc(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = x[i] + 1.0

    @qd.workload(inc)
    def tiny(rng):
        return dict(x=np.zeros(16, np.float32))

    @qd.workload(inc)
    def big_unchecked(rng):
        return dict(x=np.ones(N, np.float32))

    @qd.workload(inc, check=lambda b, a: None)
    def big_checked(rng):
        return dict(x=np.ones(N, np.float32))
    """)

DRIVER = textwrap.dedent("""\
    import resource, sys
    from qdexplorer.engine import Engine
    eng = Engine(sys.argv[1], in_process=True)
    assert eng.run(["tiny"])[0].ok
    size = int(sys.argv[2]) * 4
    vm = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmSize"))
    resource.setrlimit(resource.RLIMIT_AS, (vm + int(2.5 * size), resource.RLIM_INFINITY))
    for name in ("big_unchecked", "big_checked"):
        r = eng.run([name])[0]
        print(name, r.status, "|", r.error, flush=True)
    """)


def test_inputs_past_memory_are_one_message_and_unchecked_ones_need_no_copy(tmp_path):
    n = 64 << 20  # 256 MiB of float32
    (tmp_path / "k.py").write_text(PROJECT.format(n=n))
    p = subprocess.run([sys.executable, "-c", DRIVER, str(tmp_path), str(n)], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT), timeout=600)
    assert "Traceback" not in p.stderr, p.stderr[-3000:]
    rows = dict(line.split(" ", 1) for line in p.stdout.splitlines())
    assert rows["big_unchecked"].startswith("passed"), rows
    assert rows["big_checked"].startswith("error") and "memory" in rows["big_checked"], rows
