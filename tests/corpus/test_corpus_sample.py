"""The corpus' CI sample (benchmarks/corpus/ci_sample.txt): each program gives Quadrants' checksums
under qdexplorer.lang. Both sides run for real: Quadrants 1.3.3 and ours, on the CPU; the last program
(a short one) in fresh interpreters as `benchmarks/corpus.py` runs them, the others forked from servers
that have imported Quadrants and the language (tests/corpus/conftest.py)."""
import importlib.util

import pytest

from tests.corpus._load import corpus

C = corpus()
HAVE_QUADRANTS = importlib.util.find_spec("quadrants") is not None
needs_quadrants = pytest.mark.skipif(not HAVE_QUADRANTS, reason="the corpus compares with Quadrants, not installed here")
SAMPLE = C.read_sample()


def test_the_sample_names_programs_of_the_corpus():
    slugs = {p.slug for p in C.discover(C.PROGRAMS)}
    assert 4 <= len(SAMPLE) <= 6
    assert set(SAMPLE) <= slugs


@pytest.mark.parametrize("slug", SAMPLE)
@needs_quadrants
def test_a_sample_program_gives_quadrants_checksums(slug, request):
    if slug != SAMPLE[-1]:
        request.getfixturevalue("forked")
    prog = next(p for p in C.discover(C.PROGRAMS) if p.slug == slug)
    r = C.run_program(prog, timeout=120)
    assert r["verdict"] == "same", (r["verdict"], r["error_class"], r["error"], r["ours_stderr_tail"][-1500:],
                                    r["quadrants_stderr_tail"][-1500:])
