"""`--cluster auto` never joins a private cluster of another qdexplorer command (issue 41): Ray's
own "auto" takes any raylet on the machine, and then waited 26-200 s on a token it could not have."""
import pytest

ray = pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")

from qdexplorer.ir.errors import QdError  # noqa: E402
from qdexplorer.remote import cluster   # noqa: E402

RAYLET = "/venv/lib/python3.11/site-packages/ray/core/src/ray/raylet/raylet"


class Proc:
    def __init__(self, *args):
        self.info = {"cmdline": [RAYLET, *args]}


PRIVATE = Proc("--gcs-address=127.0.0.1:41001", "--temp_dir=/tmp/qdxray-abcd1234/r",
               "--session_dir=/tmp/qdxray-abcd1234/r/session_2026")
USERS = Proc("--gcs-address=10.0.0.5:6379", "--temp_dir=/tmp/ray", "--session_dir=/tmp/ray/session_2026")


@pytest.fixture
def machine(monkeypatch, tmp_path):
    import ray._private.utils as ray_utils
    from ray._private import services
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(ray_utils, "read_ray_address", lambda temp_dir=None: None)
    services.find_gcs_addresses.cache_clear()

    def set_(*procs):
        monkeypatch.setattr(psutil, "process_iter", lambda attrs=None: iter(procs))
        services.find_gcs_addresses.cache_clear()
    return set_


def test_auto_never_takes_a_private_cluster(machine):
    from ray._private import services
    machine(PRIVATE)
    assert services.get_ray_address_from_environment("auto", None) == "127.0.0.1:41001"   # Ray's own would
    with pytest.raises(QdError, match="private cluster") as e:
        cluster.resolve_auto()
    assert "\n" not in str(e.value)
    machine(PRIVATE, USERS)
    assert cluster.resolve_auto() == "10.0.0.5:6379"


def test_ray_address_wins(machine, monkeypatch):
    machine(PRIVATE)
    monkeypatch.setenv("RAY_ADDRESS", "ray://head:10001")
    assert cluster.resolve_auto() == "ray://head:10001"
