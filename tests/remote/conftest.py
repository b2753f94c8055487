"""One Ray cluster for every remote test, reached the way a user reaches theirs.

A head node is started here with `ray start --head --block` (token authentication on, its token
in a file of its own) and every test connects through Ray Client, `ray://127.0.0.1:PORT`: the
path a laptop takes to a GPU server, where Ray's own limits apply (no streaming actor methods;
the package travels as a runtime env). Starting it once keeps the remote tests' time down.
Ray reads RAY_AUTH_MODE when it is imported, so the token mode is set before any test imports it.
"""
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

_HOME = Path(tempfile.mkdtemp(prefix="qdxray"))   # short: Ray's socket paths must stay under 108 bytes
(_HOME / "token").write_text(secrets.token_hex(32))
os.environ["RAY_AUTH_MODE"] = "token"
os.environ["RAY_AUTH_TOKEN_PATH"] = str(_HOME / "token")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def cluster_address():
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install '.[test]')")
    ray_bin = Path(sys.executable).with_name("ray")
    port = _free_port()
    log = open(_HOME / "head.log", "wb")
    head = subprocess.Popen([str(ray_bin), "start", "--head", "--block", "--port=0", f"--ray-client-server-port={port}",
                             "--num-cpus=4", "--num-gpus=0", "--include-dashboard=false", "--disable-usage-stats",
                             f"--temp-dir={_HOME / 'r'}"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    address = f"ray://127.0.0.1:{port}"
    from qdexplorer.remote import cluster
    try:
        deadline = time.monotonic() + 120
        while b"Ray runtime started" not in (_HOME / "head.log").read_bytes():   # `ray start` says so when it is up
            if head.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"ray start failed: {(_HOME / 'head.log').read_text(errors='replace')[-2000:]}")
            time.sleep(0.2)
        for attempt in range(3):   # here, so that the first test does not pay for it
            try:
                cluster.connect(address)
                break
            except Exception:   # noqa: BLE001 - on a loaded machine Ray Client's server can time out starting
                ray.shutdown()
                cluster._connected.clear()
                if attempt == 2:
                    raise
                time.sleep(5)
        yield address
    finally:   # also when the head never came up or the connection failed: no head left running
        ray.shutdown()
        cluster._connected.clear()
        head.send_signal(signal.SIGTERM)   # --block: it stops what it started
        try:
            head.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)   # its own process group (start_new_session)
            head.wait()
        log.close()
        shutil.rmtree(_HOME, ignore_errors=True)
