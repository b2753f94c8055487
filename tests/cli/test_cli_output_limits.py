"""An error with no file name still says what failed (issue 21): "qdexplorer:: File too large"
named nothing when the output itself (stdout redirected to a file) hit the file-size limit."""
import os
import resource
import signal
import subprocess
import sys

from tests.cli.test_cli import ROOT


def test_output_past_the_file_size_limit_is_named_as_the_output(tmp_path):
    def cap():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    with open(tmp_path / "out.json", "w") as out:
        p = subprocess.run([sys.executable, "-m", "qdexplorer.cli", "compile", "--json"], stdout=out,
                           stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=ROOT),
                           preexec_fn=cap, timeout=300)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.strip().splitlines()[-1] == "qdexplorer: cannot write the output: File too large", p.stderr
