"""A private cluster started in-process must not leave its token path in os.environ once it ends: the
path names a folder its watcher deletes, and a later `ray start` from this process failed on it."""
import os

import pytest

pytest.importorskip("ray", reason="Ray is not installed (pip install '.[test]')")


def test_ending_the_private_cluster_puts_the_environment_back(monkeypatch):
    from qdexplorer.remote import local_cluster
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", "/somewhere/else/token")
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    cluster = local_cluster.prepare()
    assert os.environ["RAY_AUTH_TOKEN_PATH"] == str(cluster.token_path)
    local_cluster.stop()
    assert os.environ["RAY_AUTH_TOKEN_PATH"] == "/somewhere/else/token"
    assert "RAY_AUTH_MODE" not in os.environ
