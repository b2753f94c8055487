"""Programs from Quadrants' and Genesis' public repositories (examples/upstream/, provenance in each
file's header and programs.json) run unchanged under qdexplorer and print what Quadrants 1.3.3
printed on the CPU (reference/*.json, made by `run_upstream.py --reference`).

Each runs in its own process through `qdexplorer quadrants --ours`' child. A result is the lines the
program prints: text outside numbers must be equal, integers exactly, floats to 1e-4 of the largest
magnitude on their line. One program draws random numbers (benchmark_fill_random: Quadrants'
`fill_random` benchmark helper); its printed statistics must agree within the absolute tolerance
programs.json states for it (`atol`, with the reason); the others take inputs from seeded host
NumPy. A program that uses a feature
qdexplorer leaves out (`left_out` in programs.json) must fail with one line naming it, at the
user's file:line.

The child is forked from a server that has already imported what it imports (tests/_forked_python.py:
the same program, alone in its process, from the same freshly imported state, without paying ~0.3 s of
imports per program); `test_forked_runs_agree_with_fresh_interpreters_in_either_order` runs programs
through the real child as `qdexplorer quadrants PROG --ours` does and checks the two agree."""
import os
import sys

import pytest

from qdexplorer.quadrants import ours
from tests import _forked_python

HERE = os.path.dirname(os.path.abspath(__file__))
EX = os.path.join(os.path.dirname(os.path.dirname(HERE)), "examples", "upstream")
sys.path.insert(0, EX)
import run_upstream  # noqa: E402

PROGRAMS = run_upstream.programs()
REAL_RUN_GROUP = ours.run_group


@pytest.fixture(scope="module")
def server():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ours.PACKAGE_ROOT),
                                                                   os.environ.get("PYTHONPATH")])))
    s = _forked_python.Server(["qdexplorer.quadrants.ours_child"], env)   # what run_ours' child imports
    yield s
    s.close()


@pytest.fixture
def forked(server, monkeypatch):
    monkeypatch.setattr(ours, "run_group", _forked_python.run_group_through(server, REAL_RUN_GROUP))


@pytest.mark.parametrize("arch", ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_upstream_program_gives_quadrants_result(name, arch, forked):
    """On CUDA too, against the same CPU reference (float noise allowed as on the CPU)."""
    want = run_upstream.reference(name)
    assert want["error"] is None and want["lines"], "Quadrants ran it and printed a checksum"
    got = run_upstream.run(name, quadrants=False, timeout=120, arch=arch)
    left_out = PROGRAMS[name].get("left_out")
    if left_out:
        err = got["full_error"] or ""
        assert left_out in err and "not supported by qdexplorer" in err, err
        assert len(err.strip().splitlines()) == 1, err
        assert os.path.join(EX, PROGRAMS[name]["file"]) + ":" in err, "names the user's file:line"
        return
    assert run_upstream.differences(got, want, PROGRAMS[name].get("atol")) == []


def test_forked_runs_agree_with_fresh_interpreters_in_either_order(server, monkeypatch):
    """A program's result is the same from a fresh interpreter (the real child) and forked, whichever
    program the server ran before it."""
    names = ["lcg_kernel", "autodiff_reverse"]
    fresh = {n: run_upstream.run(n, quadrants=False, timeout=120) for n in names}
    monkeypatch.setattr(ours, "run_group", _forked_python.run_group_through(server, REAL_RUN_GROUP))
    for order in (names, names[::-1]):
        assert {n: run_upstream.run(n, quadrants=False, timeout=120) for n in order} == fresh
    for n in names:
        assert fresh[n]["lines"] and run_upstream.differences(fresh[n], run_upstream.reference(n)) == []


def test_comparison_allows_float_noise_only():
    """What 'matches' means, so that a loosened comparison cannot pass silently."""
    same = {"lines": ["sum 1240.0 ok [1, 2]"], "error": None}
    diff = run_upstream.differences
    assert diff({"lines": ["sum 1240.0001 ok [1, 2]"], "error": None}, same) == []
    assert diff({"lines": ["sum 1241.0 ok [1, 2]"], "error": None}, same)
    assert diff({"lines": ["sum 1240.0 ok [1, 3]"], "error": None}, same)  # integers exactly
    assert diff({"lines": ["sum 1240.0 OK [1, 2]"], "error": None}, same)  # text exactly
    assert diff({"lines": ["sum 1240.0 ok [1, 2]", "extra"], "error": None}, same)
    assert diff({"lines": [], "error": "QdCompileError: x"}, same)
    # a float is compared at its line's scale: 1e-9 next to 5.0 is noise, 1e-3 is not
    assert diff({"lines": ["v 5.0 1e-9"], "error": None}, {"lines": ["v 5.0 0.0"], "error": None}) == []
    assert diff({"lines": ["v 5.0 0.001"], "error": None}, {"lines": ["v 5.0 0.0"], "error": None})
    # statistics of random draws: every float within the stated absolute tolerance, integers exactly
    stats = {"lines": ["mean 0.5003 lag-1 corr 0.0010"], "error": None}
    assert diff({"lines": ["mean 0.4990 lag-1 corr -0.0040"], "error": None}, stats, 0.006) == []
    assert diff({"lines": ["mean 0.5100 lag-1 corr 0.0010"], "error": None}, stats, 0.006)
    assert diff({"lines": ["mean 0.5003 lag-2 corr 0.0010"], "error": None}, stats, 0.006)


def test_every_program_names_its_upstream_source():
    for name, p in PROGRAMS.items():
        with open(os.path.join(EX, p["file"])) as f:
            head = f.read(2000)
        assert "Apache License 2.0" in head
        for s in p["sources"]:
            assert len(s["commit"]) == 40 and s["path"] in head and s["commit"] in head, name
