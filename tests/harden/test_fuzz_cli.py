"""The command-line fuzzer in CI (issue 41): a fixed seed and a 6 s budget of cases, run in a fresh
interpreter (the fuzzer forks one child per case from it); every case must be well (exit 0-3 or
stop on SIGTERM, no traceback, bounded memory, nothing written outside the sandbox). The longer run
is benchmarks/fuzz_cli.py (figures in benchmarks/README.md)."""
import json
import os
import subprocess
import sys

from tests.cli.test_cli import ROOT


def test_fuzz_the_command_line(tmp_path):
    out = tmp_path / "fuzz.json"
    env = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.run([sys.executable, "-m", "tests.harden.fuzz_cli", "--seed", "41", "--budget", "6", "--limit", "15",
                        "--root", str(tmp_path / "sandbox"), "--json", str(out), "--quiet"],
                       capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    results = json.loads(out.read_text())
    poor = [r for r in results if r["problems"]]
    assert not poor, json.dumps(poor, indent=1)[:4000]
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert len({r["cmd"] for r in results}) >= 12 and len(results) >= 13, p.stdout[-500:]   # every command reached
