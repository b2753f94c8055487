"""A field's or ndarray's residency is a component of its own (`x.residency`, lang/host/residency.py):
the script layer asks and says through its methods (attach, on_device, device_written, drop), and
reaches no private state of the array."""
import ast
from pathlib import Path

import numpy as np

import qdexplorer.lang as qd
from qdexplorer.lang.field import Storage

SCRIPT = Path(__file__).resolve().parents[2] / "qdexplorer" / "script.py"


class HostMirror:
    """A device copy kept in host memory: what a CUDA mirror does, without a GPU."""

    def __init__(self, host):
        self.backend, self.ptr, self.copy = "here", 0, np.full_like(host, 7)
        self.uploads = 0

    def upload(self, host):
        self.copy[...] = host
        self.uploads += 1

    def download(self, host):
        host[...] = self.copy

    def read(self, host, offset):
        host[...] = self.copy.reshape(-1).view(np.uint8)[offset:offset + host.nbytes].view(host.dtype)

    def fill(self, value, dtype):
        self.copy[...] = value
        return True


def test_the_device_copy_is_uploaded_once_and_read_back_only_after_a_kernel_wrote_it():
    qd.init(arch=qd.cpu)
    a = qd.ndarray(qd.f32, shape=(4,))
    assert isinstance(a, Storage) and a.residency.mirror is None
    m = HostMirror(a.storage)
    a.residency.attach(m, zeroed=True)            # zeros on both sides: current without a transfer
    assert a.residency.mirror is m and m.uploads == 0 and not m.copy.any()
    a.from_numpy(np.arange(4, dtype=np.float32))   # Python wrote the host side
    assert a.residency.on_device() is m and m.uploads == 1
    assert a.residency.on_device() is m and m.uploads == 1   # already current
    m.copy[...] = 5                               # a kernel writes the device copy...
    a.residency.device_written()                  # ...and the script layer says so
    np.testing.assert_array_equal(a.to_numpy(), np.full(4, 5, np.float32))
    a.residency.drop()
    assert a.residency.mirror is None


def test_the_script_layer_reaches_no_private_residency_state():
    tree = ast.parse(SCRIPT.read_text())
    private = [f"{SCRIPT.name}:{n.lineno}: {ast.unparse(n)}" for n in ast.walk(tree)
               if isinstance(n, ast.Attribute) and n.attr in ("_mirror", "_where", "_owner")]
    assert private == []
