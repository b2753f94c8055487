"""The timed CUDA launch builds its records with fresh_timing (faster than the dataclass __init__):
it must set every field, with the defaults, so that a new field cannot be left unset there."""
from dataclasses import fields

import pytest

from qdexplorer.runtime.launch import LaunchTiming, fresh_timing


def test_fresh_timing_equals_the_constructed_record_field_by_field():
    quick = fresh_timing("t", "k", "cuda", 40, 128)
    slow = LaunchTiming("t", "k", "cuda", 0.0, 40, 128)
    for f in fields(LaunchTiming):
        assert getattr(quick, f.name) == getattr(slow, f.name), f.name  # AttributeError if left unset
    assert quick == slow and quick.to_dict() == slow.to_dict()


def test_fresh_timing_records_are_independent():
    a, b = fresh_timing("t", "k", "cuda", 1, 1), fresh_timing("t", "k", "cuda", 1, 1)
    a.ms = 2.5
    assert b.ms == 0.0
    with pytest.raises(AttributeError):  # slots: no stray attribute can hide a misspelt field
        a.mss = 1.0
