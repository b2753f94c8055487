"""The longer run of the command-line fuzzer (issue 41; tests/harden/fuzz_cli.py holds it, and
tests/harden/test_fuzz_cli.py runs 6 s of it in CI).

    PYTHONPATH=. nice python benchmarks/fuzz_cli.py --seed 41 --budget 900 --json fuzz.json

Every subcommand's every option with hostile numbers, paths (FIFO, /dev/zero, a link out, another
user's world-writable folder, a 1 GB sparse file, a missing path) and text; one line per case and a
summary. Figures of the last run: benchmarks/README.md, "Command-line fuzzing".
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.harden.fuzz_cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["--budget", "900", "--limit", "30"]))
