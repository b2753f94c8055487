"""The one-folder app's entry point answers the children the code starts with sys.executable
(issue 22 #14): frozen, sys.executable is the app, so `APP -c CODE` (the CUDA probe, the isolated
compile) and `APP SCRIPT.py` (the Quadrants children) reached the CLI parser ('argument cmd: invalid
choice') and CUDA was never detected. Here the entry script stands in for the frozen executable."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "packaging" / "qdexplorer_app.py"
ENV = dict(os.environ, PYTHONPATH=str(ROOT), QDEXPLORER_DISABLE_CUDA="1")


def app(*args, **kw):
    return subprocess.run([sys.executable, str(APP), *args], capture_output=True, text=True, env=ENV,
                          timeout=60, **kw)


def test_the_cuda_probe_runs_through_the_app_as_through_python():
    from qdexplorer.runtime.cuda import detect
    p = app("-c", detect._CHILD)
    assert p.returncode == 0, p.stderr
    status = json.loads(p.stdout.strip().splitlines()[-1])
    assert status["available"] is False and "QDEXPLORER_DISABLE_CUDA" in status["reason"]


def test_c_code_gets_its_arguments_and_stdin_as_python_gives_them():
    p = app("-c", "import sys; print(sys.argv[1:], sys.stdin.read().upper())", "a", "b", input="piped")
    assert p.returncode == 0 and p.stdout.strip() == "['a', 'b'] PIPED", p.stderr


def test_a_bundled_script_runs_and_a_script_outside_the_bundle_goes_to_the_cli(tmp_path):
    p = app(str(ROOT / "qdexplorer" / "quadrants" / "ours_child.py"))   # a child the spec bundles as source
    assert "invalid choice" not in p.stderr
    outside = tmp_path / "evil.py"
    outside.write_text("open(__file__ + '.ran', 'w').close()\n")
    p = app(str(outside))
    assert not (tmp_path / "evil.py.ran").exists()     # the CLI's parser saw it, nothing was executed


def test_the_spec_bundles_scipy_and_the_child_scripts_as_source():
    spec = (ROOT / "packaging" / "qdexplorer.spec").read_text()
    excludes = spec.split("excludes = [", 1)[1].split("]", 1)[0]
    assert '"scipy"' not in excludes and "scipy.stats" in spec       # Compare imports scipy.stats
    assert 'collect_submodules("cuda")' not in spec                    # 76 'Hidden import not found' lines
    for script in ("quadrants/child.py", "quadrants/ours_child.py"):
        assert f'"{script}"' in spec and (ROOT / "qdexplorer" / script).is_file()
    assert "/dist/" in (ROOT / ".gitignore").read_text().split()


def test_optional_parts_are_bundled_only_on_request_and_named_when_missing(monkeypatch):
    """Issue 31: the app bundled Ray (43 MB) only because the build's venv had it, and Quadrants without
    its runtime bitcode. The spec leaves both out unless QDX_BUNDLE asks, collects Quadrants' data files
    when it does, and an app built without a part says so instead of a pip hint."""
    spec = (ROOT / "packaging" / "qdexplorer.spec").read_text()
    assert 'os.environ.get("QDX_BUNDLE"' in spec and 'excludes.append("quadrants")' in spec
    assert 'excludes.append("ray")' in spec and 'collect_data_files("quadrants"' in spec
    from qdexplorer import optional_parts
    monkeypatch.setattr(optional_parts, "FROZEN", True)
    assert "built without Quadrants" in optional_parts.quadrants_hint() and "QDX_BUNDLE=quadrants" in \
        optional_parts.quadrants_hint()
    assert "built without Ray" in optional_parts.ray_hint()
    monkeypatch.setattr(optional_parts, "FROZEN", False)
    assert "pip install" in optional_parts.quadrants_hint() and "pip install" in optional_parts.ray_hint()


def test_interpreter_flags_before_code_or_a_bundled_script_are_taken_as_python_takes_them(tmp_path):
    """Ray starts its log monitor, dashboard agent and autoscaler as `python -u SCRIPT.py` (issue 31:
    `QDX_BUNDLE=ray` was untested): frozen, `APP -u SCRIPT.py` reached the CLI parser."""
    p = app("-u", "-c", "import sys; print(sys.argv[1:])", "a")
    assert p.returncode == 0 and p.stdout.strip() == "['a']", p.stderr
    p = app("-u", "-S", str(ROOT / "qdexplorer" / "quadrants" / "ours_child.py"))
    assert "invalid choice" not in p.stderr and "unrecognized arguments" not in p.stderr
    outside = tmp_path / "evil.py"
    outside.write_text("open(__file__ + '.ran', 'w').close()\n")
    app("-u", str(outside))
    assert not (tmp_path / "evil.py.ran").exists()


def test_every_flag_ray_starts_python_with_is_one_the_app_answers():
    ray = pytest.importorskip("ray", reason="Ray is not installed")
    import re
    sys.path.insert(0, str(ROOT / "packaging"))
    try:
        import qdexplorer_app
    finally:
        sys.path.remove(str(ROOT / "packaging"))
    text = (Path(ray.__file__).parent / "_private" / "services.py").read_text()
    flags = set(re.findall(r'sys\.executable,\s*"(-\w)"', text))
    assert "-u" in flags and flags <= qdexplorer_app._FLAGS, flags


def _spec(monkeypatch, bundle: str) -> dict:
    """The spec run as PyInstaller runs it, with its collectors recording what they are asked for and
    Analysis what it is given (PyInstaller's own collecting is not what is tested: our choice is)."""
    import types
    asked: dict = {"collect_all": [], "collect_data_files": [], "collect_dynamic_libs": []}
    hooks = types.ModuleType("PyInstaller.utils.hooks")
    hooks.collect_all = lambda name: asked["collect_all"].append(name) or ([(f"{name}/d", name)], [], [name])
    hooks.collect_data_files = lambda name, **kw: asked["collect_data_files"].append(name) or []
    hooks.collect_dynamic_libs = lambda name: asked["collect_dynamic_libs"].append(name) or []
    hooks.collect_submodules = lambda name, **kw: [name]
    for mod in ("PyInstaller", "PyInstaller.utils"):
        monkeypatch.setitem(sys.modules, mod, types.ModuleType(mod))
    monkeypatch.setitem(sys.modules, "PyInstaller.utils.hooks", hooks)
    monkeypatch.setenv("QDX_BUNDLE", bundle)

    def analysis(scripts, **kw):
        asked["analysis"] = kw
        return types.SimpleNamespace(pure=[], scripts=[], binaries=[], datas=[])
    g = {"SPECPATH": str(ROOT / "packaging"), "Analysis": analysis, "PYZ": lambda *a, **k: None,
         "EXE": lambda *a, **k: None, "COLLECT": lambda *a, **k: None}
    path = ROOT / "packaging" / "qdexplorer.spec"
    exec(compile(path.read_text(), str(path), "exec"), g)   # noqa: S102 - the project's own spec
    return asked


def test_qdx_bundle_ray_collects_ray_with_its_scripts_as_files(monkeypatch):
    asked = _spec(monkeypatch, "ray")
    a = asked["analysis"]
    assert asked["collect_all"] == ["ray"] and "ray" not in a["excludes"] and "quadrants" in a["excludes"]
    assert a["module_collection_mode"] == {"ray": "pyz+py"}   # Ray runs default_worker.py & co. by path
    assert ("ray/d", "ray") in a["datas"] and "ray" in a["hiddenimports"]
    none = _spec(monkeypatch, "")["analysis"]
    assert {"ray", "quadrants"} <= set(none["excludes"]) and none["module_collection_mode"] == {}
    both = _spec(monkeypatch, "all")["analysis"]
    assert not {"ray", "quadrants"} & set(both["excludes"])
    assert both["module_collection_mode"] == {"ray": "pyz+py", "quadrants": "pyz+py"}
    with pytest.raises(SystemExit, match="unknown part"):
        _spec(monkeypatch, "ray,rya")
