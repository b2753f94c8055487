"""Issue 42: Ray's "SIGTERM handler is not set" line reached the terminal when the window joined a cluster
(ray.init from its engine thread). The line is Ray's own logger's; this checks that it is dropped and that
Ray's other warnings still pass."""
import logging
import threading

import pytest

pytest.importorskip("ray")


def test_rays_sigterm_note_from_a_thread_stays_off_the_terminal(monkeypatch, caplog):
    from qdexplorer.remote import cluster

    def fake_init(*a, **kw):   # what ray.init does first when called off the main thread
        log = logging.getLogger("ray._private.worker")
        log.warning("SIGTERM handler is not set because current thread is not the main thread.")
        log.warning("another warning of Ray's")

    monkeypatch.setattr(cluster.ray, "init", fake_init)
    monkeypatch.setattr(cluster.ray, "is_initialized", lambda: False)
    monkeypatch.setattr(cluster, "probe_address", lambda address: None)
    monkeypatch.setattr(cluster, "_connected", [])
    t = threading.Thread(target=cluster.connect, args=("ray://127.0.0.1:1",))
    t.start()
    t.join()
    said = [r.getMessage() for r in caplog.records]   # what would reach the terminal
    assert not any("SIGTERM handler is not set" in m for m in said) and "another warning of Ray's" in said
