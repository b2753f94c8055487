"""`qdexplorer quadrants PROGRAM --dump DIR` hands DIR to Quadrants, which opens its dump files by
name: DIR gets the checks of the product's own dump and load folders (issue 41, the security
finding: a link planted in a folder another user can write sent Quadrants' IR over a root file)."""
import os

import pytest

from qdexplorer.compiler.safe_files import UnsafePathError, output_folder
from tests.quadrants.conftest import cli, needs_quadrants, program

GUARDED = b"the victim's own bytes\n"


def _victim(tmp_path):
    v = tmp_path / "outside" / "victim"
    v.parent.mkdir()
    v.write_bytes(GUARDED)
    return v


def _shared(tmp_path):
    d = tmp_path / "shared"
    d.mkdir()
    os.chmod(d, 0o777)
    return d


def _linked(tmp_path):
    d = tmp_path / "dump"
    d.mkdir()
    os.symlink(_victim(tmp_path), d / "planted.ll")
    return d


def _link(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "dump")
    return tmp_path / "dump"


CASES = {"writable by others": _shared, "holds a link": _linked, "is a link": _link}


@needs_quadrants
@pytest.mark.parametrize("case", CASES)
def test_quadrants_dump_folder_gets_the_dump_folder_checks(tmp_path, case):
    folder = CASES[case](tmp_path)
    p = cli("quadrants", program("demo_kernels.py"), "--arch", "cpu", "--dump", str(folder), timeout=120)
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr and str(folder) in p.stderr.strip().splitlines()[-1]
    assert not [f for f in os.listdir(folder) if f.endswith((".ll", ".ptx")) and not os.path.islink(folder / f)]
    victim = tmp_path / "outside" / "victim"
    assert not victim.exists() or victim.read_bytes() == GUARDED


@pytest.mark.parametrize("case", CASES)
def test_output_folder_refuses(tmp_path, case):
    with pytest.raises(UnsafePathError):
        output_folder(CASES[case](tmp_path))
    made = output_folder(tmp_path / "new" / "dump")
    assert made.is_dir() and made.stat().st_mode & 0o777 == 0o700
