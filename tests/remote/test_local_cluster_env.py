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


def test_a_cluster_only_prepared_leaves_this_processs_ray_connection_alone(monkeypatch):
    """stop() of a cluster that never joined must not end the connection this process has to another
    cluster (it did: ray.shutdown(), and the next call reconnected, or failed, by test order)."""
    import ray

    from qdexplorer.remote import local_cluster
    calls = []
    monkeypatch.setattr(ray, "shutdown", lambda *a, **k: calls.append(1))
    local_cluster.prepare()
    local_cluster.stop()
    assert calls == []


def test_ending_the_private_cluster_forgets_its_token(monkeypatch, tmp_path):
    """Ray caches the token it read. A private cluster ended in-process left its own cached: a later
    `ray://` connection sent it to another cluster, was refused, and Ray said only "connection
    timeout" (10 errors in one CI run, by test order)."""
    import importlib
    from qdexplorer.remote import local_cluster
    raylet = importlib.import_module("ray._raylet")
    mine = tmp_path / "token"
    mine.write_text("a" * 64)
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(mine))
    raylet.Config.initialize("")
    loader = raylet.AuthenticationTokenLoader.instance()
    loader.reset_cache()
    cluster = local_cluster.prepare()
    loader.reset_cache()                       # as start() does before ray.init
    assert loader.get_raw_token() == cluster.token_path.read_text().strip()
    try:
        local_cluster.stop()
        assert loader.get_raw_token() == "a" * 64
    finally:   # Ray's cache is process-wide: leave it as the environment the test found says
        monkeypatch.undo()
        local_cluster.forget_token()
