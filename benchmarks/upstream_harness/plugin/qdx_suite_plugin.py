"""pytest plugin of benchmarks/upstream_suite.py: picks the cases and records each one's outcome.

`QDX_SUITE_SELECT=first2` keeps the first two collected cases of each test function (the run under
real Quadrants); a path to a JSON list of node ids keeps exactly those (the run under
qdexplorer.lang, given the cases Quadrants passed). Each case's outcome and, for one that did not
pass, its first failure line go to the JSON-lines file `QDX_SUITE_OUT`; a file that fails to import
is recorded as a collection error of that file. Under xdist the controller writes, so nothing
interleaves.
"""
import json
import os

import pytest

if os.environ.get("QDX_SUITE_EXPECT") == "qdexplorer.lang":
    # `import quadrants` answered by qdexplorer.lang from here on: `-p` loads this plugin before the tree's
    # conftest.py (loaded before pytest_configure) or any test imports quadrants, in each xdist worker too.
    # The shim's folder is on PYTHONPATH in these runs (upstream_suite.py, tests/upstream_sample); no
    # `quadrants` package stands in our tree to shadow the real one.
    import qdx_upstream_shim
    qdx_upstream_shim.install()

_SELECT = os.environ.get("QDX_SUITE_SELECT", "first2")
_OUT = os.environ.get("QDX_SUITE_OUT")


def _first_line(report) -> str:
    lr = report.longrepr
    if lr is None:
        return ""
    if isinstance(lr, tuple):  # a skip: (file, line, reason)
        return str(lr[2]).splitlines()[0] if lr[2] else "skipped"
    crash = getattr(lr, "reprcrash", None)
    if crash is not None and crash.message:
        return crash.message.strip().splitlines()[0]
    text = str(lr).strip().splitlines()
    errs = [t for t in text if t.startswith("E ")]
    return (errs[0][1:].strip() if errs else (text[-1] if text else ""))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    if _SELECT == "first2":
        seen: dict = {}
        keep = []
        for it in items:
            key = (it.nodeid.split("::")[0], getattr(it, "cls", None) and it.cls.__name__,
                   getattr(it, "originalname", it.name))
            seen[key] = seen.get(key, 0) + 1
            if seen[key] <= 2:
                keep.append(it)
    else:
        with open(_SELECT) as fh:
            wanted = set(json.load(fh))
        keep = [it for it in items if it.nodeid in wanted]
    deselected = [it for it in items if it not in set(keep)]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
    items[:] = keep


_CONFIG: list = []


def _write(rec: dict):
    if _OUT and _CONFIG and not hasattr(_CONFIG[0], "workerinput"):  # xdist: the controller only
        with open(_OUT, "a") as fh:
            fh.write(json.dumps(rec) + "\n")


def pytest_configure(config):
    _CONFIG[:] = [config]
    expect = os.environ.get("QDX_SUITE_EXPECT")
    if expect:  # the run is under the implementation it is counted for (the shim took, or did not)
        import quadrants
        if quadrants.__name__ != expect:
            raise pytest.UsageError(f"`import quadrants` gave {quadrants.__name__}, expected {expect}")


def pytest_collectreport(report):
    if report.failed:
        _write({"collect_error": report.nodeid, "cause": _first_line(report)})


def pytest_runtest_logreport(report):
    rec = {"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome,
           "duration": round(report.duration, 3)}
    if report.outcome != "passed":
        rec["cause"] = _first_line(report)
    if report.when == "call" or report.outcome != "passed":
        _write(rec)


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """Upstream's conftest runs a full `gc.collect()` before and after every case. Each one walks every
    object alive: the collected test modules, the kernels they define at module level, pytest's own;
    on the CI sample that was 70 of its 81 s, growing with each case. What survives a case's final
    collection is frozen (`gc.freeze`), so the next collections walk only what later cases make. The
    collections still run and free what each case leaves; under either implementation alike."""
    import gc
    try:
        return (yield)
    finally:
        gc.freeze()
