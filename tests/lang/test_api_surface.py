"""docs/compatibility.md says, for every public name of Quadrants 1.3.3, what qdexplorer.lang does
with it; this holds the code to it: every name it calls supported or partial resolves, and every
refused name fails with one line naming it and the line of the program that reached for it.
Where real Quadrants is installed, the doc must also be what benchmarks/api_surface.py writes now."""
import importlib.util
import os
import re
import subprocess
import sys

import pytest

import qdexplorer.lang as qd
from qdexplorer.lang.compat import surface as compat

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "compatibility.md")
ROW = re.compile(r"^\| `([^`]+)` \| (supported|partial|refused|unlisted) \|")
# refused names that exist as methods and refuse when called (their call is checked below)
CALL_REFUSED: set = set()


def _rows() -> list[tuple[str, str]]:
    with open(DOC) as f:
        return [m.groups() for m in map(ROW.match, f) if m]


def _surfaces() -> dict:
    spec = importlib.util.spec_from_file_location("api_surface", os.path.join(ROOT, "benchmarks", "api_surface.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = dict([("qd", qd)] + [(f"qd.{m}", mod._sub(qd, m)) for m in mod.SUBMODULES] + mod._instances(qd))
    out["vector4"] = qd.Vector([1.0, 2.0, 3.0, 4.0])
    return out


@pytest.fixture(scope="module")
def surfaces():
    qd.init(arch=qd.cpu)
    yield _surfaces()
    qd.reset()


def _split(full: str) -> tuple[str, str]:
    surface, name = full.rsplit(".", 1)
    return surface, name


def test_the_doc_lists_every_status_and_nothing_unlisted():
    rows = _rows()
    assert len(rows) > 600
    assert not [n for n, s in rows if s == "unlisted"], "names neither resolving nor refused"
    refused = sum(1 for _, s in rows if s == "refused")
    assert f"{refused} refused" in open(DOC).read()


def test_every_supported_or_partial_name_resolves(surfaces):
    missing = []
    for full, status in _rows():
        if status not in ("supported", "partial") or full.endswith("<swizzles>"):
            continue
        surface, name = _split(full)
        obj = surfaces["vector4"] if surface in ("matrix", "vector") and len(name) == 1 else surfaces.get(surface)
        try:
            getattr(obj, name)
        except Exception as e:  # noqa: BLE001 - any failure is a name the doc over-claims
            missing.append(f"{full}: {type(e).__name__}: {e}")
    assert missing == []


def test_every_refused_name_fails_in_one_line_at_the_programs_line(surfaces):
    wrong = []
    for full, status in _rows():
        if status != "refused" or full in CALL_REFUSED:
            continue
        surface, name = _split(full)
        obj = surfaces.get(surface)
        if obj is None:  # a whole submodule refused: its names are refused through it
            continue
        line = sys._getframe().f_lineno + 2
        try:
            getattr(obj, name)
        except AttributeError as e:
            msg = str(e)
            if len(msg.splitlines()) != 1 or f"({__file__}:{line})" not in msg or "qdexplorer.lang" not in msg:
                wrong.append(f"{full}: {msg}")
        else:
            wrong.append(f"{full}: resolves (regenerate docs/compatibility.md with benchmarks/api_surface.py)")
    assert wrong == []


def test_refused_methods_fail_in_one_line_when_called():
    qd.init(arch=qd.cpu)
    block = qd.root.dense(qd.i, 4)
    for call, what in [(lambda: block.bit_struct(32), "bit_struct"), (lambda: block.hash(qd.j, 8), "hash")]:
        with pytest.raises((NotImplementedError, AttributeError)) as e:
            call()
        msg = str(e.value)
        assert len(msg.splitlines()) == 1 and __file__ in msg and what.split("_")[0] in msg, msg


def test_a_refused_name_is_still_an_attribute_error_for_hasattr():
    assert not hasattr(qd, "Mesh") and getattr(qd, "Mesh", None) is None
    with pytest.raises(AttributeError, match=r"`qd.Mesh` is not supported by qdexplorer.lang \(.*test_api_surface.py"):
        qd.Mesh  # noqa: B018


def test_the_doc_is_what_the_walker_writes_now(tmp_path):
    pytest.importorskip("quadrants", reason="real Quadrants 1.3.3 is what the walker reads")
    out = tmp_path / "compat.md"
    r = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "api_surface.py"), "--out", str(out)],
                       capture_output=True, text=True, timeout=300, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": ROOT})
    assert r.returncode == 0, r.stderr[-2000:]
    assert out.read_text() == open(DOC).read(), "docs/compatibility.md is stale: run python benchmarks/api_surface.py"
