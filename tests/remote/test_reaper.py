"""The cluster's watcher ends what holds files in the private folder, not only what carries the mark
(issue 33): Ray's agents write their title over their environment, so after the head was killed they
ran on under PID 1 for over a minute with no mark to find. Real processes, no Ray needed."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from qdexplorer.remote import reaper

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="reads /proc (Linux)")

HOLDER = "import sys, time; f = open(sys.argv[1], 'w'); print('open', flush=True); time.sleep(600)"


def _holder(path: Path) -> subprocess.Popen:
    p = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True,
                         env={k: v for k, v in os.environ.items() if k != reaper.MARK})   # no mark at all
    assert p.stdout.readline().strip() == "open"
    return p


def test_a_process_holding_a_file_in_the_folder_is_found_and_ended(tmp_path):
    folder = tmp_path / "qdxray-x"
    (folder / "logs").mkdir(parents=True)
    agent, driver = _holder(folder / "logs" / "agent.out"), _holder(folder / "logs" / "driver.out")
    outsider = _holder(tmp_path / "elsewhere.txt")
    try:
        found = reaper.holding(str(folder))
        assert agent.pid in found and driver.pid in found and outsider.pid not in found
        assert driver.pid not in reaper.holding(str(folder), frozenset({driver.pid}))
        assert reaper.holding("-") == []
        reaper.reap(str(folder), "no-such-mark", grace_s=2.0, spare=frozenset({driver.pid}))
        t0 = time.monotonic()
        while agent.poll() is None and time.monotonic() - t0 < 10:
            time.sleep(0.05)
        assert agent.poll() is not None              # ended, though it carried no mark
        assert driver.poll() is None and outsider.poll() is None   # the command that started it is spared
        assert not folder.exists()
    finally:
        for p in (agent, driver, outsider):
            p.kill()
            p.wait()
