"""One record of how an Engine is set up: `EngineOptions`, or its fields as keywords."""
import pytest

from qdexplorer.engine import Engine, EngineOptions


def test_an_options_record_and_keywords_set_an_engine_up_alike(tmp_path):
    opts = EngineOptions(backend="cpu", in_process=True, cache_dir=str(tmp_path / "c"), mode="whole")
    with Engine(None, opts) as a, Engine(None, backend="cpu", in_process=True, cache_dir=str(tmp_path / "c"),
                                         mode="whole") as b:
        assert (a.backend, a.mode, a.arch, a.cluster) == (b.backend, b.mode, b.arch, b.cluster) == \
            ("cpu", "whole", a.arch, None)
    with Engine(None, opts, mode="per_task") as c:   # a keyword beside the record takes precedence
        assert c.mode == "per_task" and c.backend == "cpu"


def test_an_unknown_setting_is_refused_by_name():
    with pytest.raises(TypeError, match="no_such_setting"):
        Engine(None, in_process=True, no_such_setting=1)
