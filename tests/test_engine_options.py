"""One record of how an Engine is set up: `EngineOptions`, or its fields as keywords."""
import dataclasses

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


def test_a_sweeps_second_engine_keeps_every_option_of_the_first(tmp_path):
    """The window's multi-device sweep makes its extra engines from `Engine.options`: the assembly
    mode switched in the window, fast math, the block size and every other option carry over; only
    the device (node, GPU) is left for Ray to pick."""
    opts = EngineOptions(backend="cpu", in_process=True, cache_dir=str(tmp_path / "c"), mode="whole",
                         fast_math=False, block_dim=64, launch_timeout=17.0, debug=True, memo=False,
                         offline_cache=False, node="n1", gpu=3)
    with Engine(None, opts) as first:
        first.set_mode("culink")                       # chosen in the window after the engine was made
        (twin,) = first.twins(1)
        with twin:
            want = dataclasses.replace(first.options, node=None, gpu=None)
            assert twin.options == want
            assert (twin.mode, twin.options.fast_math, twin.options.block_dim) == ("culink", False, 64)
            assert twin.options.launch_timeout == 17.0 and twin.options.debug is True


def test_the_options_record_reads_back_what_the_engine_was_made_with(tmp_path):
    opts = EngineOptions(backend="cpu", in_process=True, cache_dir=str(tmp_path / "c"), mode="per_task",
                         fast_math=True, block_dim=128)
    with Engine(None, opts) as eng:
        got = eng.options
        assert (got.backend, got.mode, got.fast_math, got.block_dim, got.in_process) == \
            ("cpu", "per_task", True, 128, True)
