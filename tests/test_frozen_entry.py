"""The one-folder app's entry point answers the children the code starts with sys.executable
(issue 22 #14): frozen, sys.executable is the app, so `APP -c CODE` (the CUDA probe, the isolated
compile) and `APP SCRIPT.py` (the Quadrants children) reached the CLI parser ('argument cmd: invalid
choice') and CUDA was never detected. Here the entry script stands in for the frozen executable."""
import json
import os
import subprocess
import sys
from pathlib import Path

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
