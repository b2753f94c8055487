"""Every numeric option is checked where it is parsed (issue 21): nan, inf and out-of-range values
are refused with one message naming the option, never accepted (`--fail-if-slower nan` silently
switched a CI gate off) and never a traceback."""
import pytest

from tests.cli.test_cli import cli

BAD = [
    ("bench", "--timeout", "0"), ("bench", "--timeout", "-1"), ("bench", "--timeout", "nan"),
    ("bench", "--timeout", "inf"), ("bench", "--warmup", "-5"), ("bench", "--repeat", "0"),
    ("bench", "--seed", "-1"), ("run", "--warmup", "-5"), ("run", "--seed", "-3"),
    ("compare", "a", "b", "--alpha", "2"), ("compare", "a", "b", "--alpha", "0"),
    ("compare", "a", "b", "--alpha", "nan"), ("compare", "a", "b", "--threshold", "-50"),
    ("compare", "a", "b", "--threshold", "nan"), ("compare", "a", "b", "--fail-if-slower", "nan"),
    ("compare", "a", "b", "--fail-if-slower", "-1"), ("compare", "a", "b", "--fail-if-slower", "inf"),
    ("compare", "a", "b", "--rounds", "0"), ("compare", "a", "b", "--timeout", "nan"),
    ("quadrants", "x.py", "--timeout", "nan"), ("quadrants", "x.py", "--timeout", "-2"),
    # issue 33: every number option of sweep, and the ones still read as plain int
    ("sweep", "--timeout", "nan"), ("sweep", "--timeout", "inf"), ("sweep", "--timeout", "0"),
    ("sweep", "--timeout", "-1"), ("sweep", "--gpus", "0"), ("sweep", "--gpus", "-2"), ("sweep", "--gpus", "nan"),
    ("sweep", "--rounds", "0"), ("sweep", "--rounds", "inf"), ("sweep", "--repeat", "0"), ("sweep", "--repeat", "nan"),
    ("sweep", "--warmup", "-1"), ("sweep", "--seed", "-1"), ("run", "--repeat", "0"), ("run", "--repeat", "nan"),
    ("run", "--timeout", "nan"), ("bench", "--rounds", "0"), ("bench", "--rounds", "nan"),
    ("quadrants", "x.py", "--rounds", "0"), ("gui", "--repeat", "0"),
]


@pytest.mark.parametrize("args", BAD, ids=[" ".join(a) for a in BAD])
def test_bad_numbers_are_refused_naming_the_option(args, tmp_path):
    cmd, *rest = args
    option = next(a for a in rest if a.startswith("--"))
    p = cli(cmd, *rest, env={"QDEXPLORER_DATA_DIR": str(tmp_path)})  # a value let through must not save a run
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    last = p.stderr.strip().splitlines()[-1]
    assert option in last and rest[rest.index(option) + 1] in last, last
