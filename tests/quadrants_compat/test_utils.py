"""The harness of Quadrants' own tests (`tests/test_utils.py` upstream), for qdexplorer.

`@test_utils.test(arch=..., exclude=..., require=..., **options)` runs a test once per backend
qdexplorer has here: the CPU always, CUDA where a GPU exists (marked `cuda`, so CI without a GPU
skips it). Options go to `qd.init` as upstream. Extensions qdexplorer lacks skip the test.
"""
import pytest

import qdexplorer.lang as qd

_SUPPORTED_EXTENSIONS = {"adstack", "data64", "sparse"}  # sparse: pointer/bitmasked as dense storage with masks


def _cuda_available() -> bool:
    from qdexplorer.runtime.cuda.detect import cuda_status
    return cuda_status().available


def expected_archs():
    return [qd.cpu] + ([qd.cuda] if _cuda_available() else [])


def _as_list(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def test(arch=None, exclude=None, require=None, **options):
    wanted = []
    for a in _as_list(arch) or [qd.cpu, qd.cuda]:
        wanted += [qd.cuda] if a == qd.gpu else [a]
    excluded = {e if not isinstance(e, (list, tuple)) else e[0] for e in _as_list(exclude)}
    archs = [a for a in (qd.cpu, qd.cuda) if a in wanted and a not in excluded]
    missing = [e for e in _as_list(require) if getattr(e, "name", e) not in _SUPPORTED_EXTENSIONS]
    if any(getattr(e, "name", e) == "adstack" for e in _as_list(require)):
        options["ad_stack_experimental_enabled"] = True  # as upstream's harness: the extension is this option
    params = [pytest.param(a, dict(options), id=f"arch={'x64' if a == qd.cpu else a}",
                           marks=[pytest.mark.cuda] if a == qd.cuda else []) for a in archs]

    def decorator(func):
        func.__qd_test__ = True
        if missing:
            return pytest.mark.skip(reason=f"needs Quadrants extension(s) {missing}")(func)
        if not params:
            return pytest.mark.skip(reason="No supported archs")(func)
        return pytest.mark.parametrize("req_arch,req_options", params)(func)

    return decorator


test.__test__ = False  # the decorator, not a test


def get_rel_eps():
    return 1e-6


def approx(expected, **kwargs):
    """Upstream's pytest.approx with its boolean special case."""
    if isinstance(expected, bool):
        class _Bool:
            def __eq__(self, other):
                return bool(expected) == bool(other)
        return _Bool()
    kwargs["rel"] = max(kwargs.get("rel", 1e-6), get_rel_eps())
    return pytest.approx(expected, **kwargs)


def allclose(x, y, **kwargs):
    return x == approx(y, **kwargs)


def skip_if_f64_unsupported(dtype):
    """Every qdexplorer backend supports f64."""


__all__ = ["test", "approx", "allclose", "expected_archs", "skip_if_f64_unsupported"]
