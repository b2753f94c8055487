"""The A/B verdict on synthetic repeats: the rule the window, the CLI and the GPU test share.

A Δ (median of B's repeats minus median of A's) is noise when it is within K(n) times the pooled
spread of both sides' repeats (range A + range B; K(3) = 2) widened by the counter's quantum (its step, from the
repeats, or ncu's unit). The numbers here are shaped as the H200 gave them (issue 30): DRAM bytes in
256-byte steps, a kernel time spread over 0.13 us, exact instruction counts.
"""
import pytest

from qdexplorer.counters.diff import diff, k_spread, quantum

K3 = k_spread(3)
from qdexplorer.counters.record import TaskCounters

MB4 = 4 * 1024 * 1024


def _reps(**series):
    """TaskCounters repeats from figure -> list of values (one per repeat)."""
    n = len(next(iter(series.values())))
    return [TaskCounters("t", "full", figures={k: float(v[i]) for k, v in series.items()}) for i in range(n)]


def _verdicts(a, b):
    return {r.key: r.verdict for r in diff(a, b)}


def test_the_h200_no_op_that_failed_the_old_test_is_noise():
    # DRAM read moved 768 B with A's repeats spread over 512 B and B's not at all (the old test's
    # |Δ| <= max(range) failed on it); time and occupancy within their spread; counts equal
    a = _reps(dram_read_bytes=[MB4, MB4 + 256, MB4 + 512], duration_us=[4.48, 4.51, 4.608],
              occ_achieved=[57.27, 57.0, 57.54], inst_executed=[98304] * 3, registers=[16] * 3)
    b = _reps(dram_read_bytes=[MB4 + 1024] * 3, duration_us=[4.51, 4.55, 4.52],
              occ_achieved=[57.2, 57.3, 57.1], inst_executed=[98304] * 3, registers=[16] * 3)
    v = _verdicts(a, b)
    assert v == {"dram_read_bytes": "noise", "duration_us": "noise", "occ_achieved": "noise",
                 "inst_executed": "same", "registers": "same"}
    row = next(r for r in diff(a, b) if r.key == "dram_read_bytes")
    assert row.delta == 768 and row.quantum == 256 and row.band == K3 * 512 + 256


def test_doubled_loads_are_a_change():
    a = _reps(dram_read_bytes=[MB4, MB4 + 256, MB4 + 512], l2_read_bytes=[MB4] * 3, inst_executed=[98304] * 3,
              duration_us=[4.48, 4.51, 4.608])
    b = _reps(dram_read_bytes=[2 * MB4, 2 * MB4 + 256, 2 * MB4], l2_read_bytes=[2 * MB4] * 3,
              inst_executed=[131072] * 3, duration_us=[6.9, 7.0, 6.95])
    rows = diff(a, b)
    assert {r.key: r.verdict for r in rows} == {k: "changed" for k in
                                               ("dram_read_bytes", "l2_read_bytes", "inst_executed", "duration_us")}
    assert all(r.delta > r.band for r in rows)


def test_a_change_just_outside_the_band_is_changed_and_just_inside_is_noise():
    a = _reps(duration_us=[10.0, 10.1, 10.2])
    band = K3 * (0.2 + 0.2)
    inside = _reps(duration_us=[10.1 + band - 0.1, 10.1 + band - 0.01, 10.1 + band + 0.1])
    outside = _reps(duration_us=[10.1 + band - 0.05, 10.1 + band + 0.02, 10.1 + band + 0.15])
    assert _verdicts(a, inside)["duration_us"] == "noise"
    assert _verdicts(a, outside)["duration_us"] == "changed"


def test_a_counter_that_repeated_exactly_on_both_sides_moves_by_its_unit():
    # 3 + 3 equal repeats: no spread, so only ncu's unit (one 32-byte sector) widens the band:
    # one sector is within the counter's resolution, two are a change
    a = _reps(l2_read_bytes=[MB4] * 3)
    row = diff(a, _reps(l2_read_bytes=[MB4 + 32] * 3))[0]
    assert row.verdict == "noise" and row.quantum == 32 and row.band == 32
    assert _verdicts(a, _reps(l2_read_bytes=[MB4 + 64] * 3))["l2_read_bytes"] == "changed"


def test_one_profile_per_side_cannot_tell_a_measured_figure_from_noise():
    a = _reps(duration_us=[4.48], dram_read_bytes=[MB4], registers=[16], inst_executed=[98304])
    b = _reps(duration_us=[4.60], dram_read_bytes=[MB4 + 768], registers=[20], inst_executed=[98304])
    assert _verdicts(a, b) == {"duration_us": "unsure", "dram_read_bytes": "unsure", "registers": "changed",
                               "inst_executed": "same"}


def test_changed_rows_come_first_then_unsure_then_noise():
    a = _reps(duration_us=[4.48, 4.5, 4.52], l2_read_bytes=[MB4] * 3, registers=[16] * 3)
    b = _reps(duration_us=[4.49, 4.51, 4.50], l2_read_bytes=[MB4 + 4096] * 3, registers=[16] * 3)
    assert [(r.key, r.verdict) for r in diff(a, b)] == [("l2_read_bytes", "changed"), ("duration_us", "noise"),
                                                        ("registers", "same")]


@pytest.mark.parametrize("values,unit,q", [
    ([MB4, MB4 + 256, MB4 + 768], "B", 256),     # the step the repeats show
    ([MB4, MB4, MB4], "B", 32),                  # none seen: ncu counts memory traffic in 32-byte sectors
    ([98304, 98304], "inst", 0),                 # an exact count
    ([4.48, 4.51], "us", 0),                     # a measured float: its spread is all there is
])
def test_quantum(values, unit, q):
    assert quantum([values[:2], values[2:]], unit) == q


def test_stall_reasons_take_the_same_rule():
    a = [TaskCounters("t", "full", stalls={"long_scoreboard": v}) for v in (40.0, 41.0, 40.5)]
    b = [TaskCounters("t", "full", stalls={"long_scoreboard": v}) for v in (40.2, 40.8, 41.5)]
    c = [TaskCounters("t", "full", stalls={"long_scoreboard": v}) for v in (80.0, 81.0, 80.5)]
    assert _verdicts(a, b) == {"stall:long_scoreboard": "noise"}
    assert _verdicts(a, c) == {"stall:long_scoreboard": "changed"}


def _h200():
    import json
    from pathlib import Path
    return json.loads((Path(__file__).parent / "data" / "h200_copy_repeats.json").read_text())


def _side(series, which):
    n = len(next(iter(series.values()))[which])
    return [TaskCounters("copy", "full", figures={k: v[which][i] for k, v in series.items()}) for i in range(n)]


def test_the_h200_no_op_repeats_change_nothing_by_the_rule():
    """The real figures of the H200 run whose no-op the old test called a change."""
    noop = _h200()["noop"]
    dram = noop["dram_read_bytes"]
    ranges = [max(dram[s]) - min(dram[s]) for s in "AB"]
    import statistics
    delta = abs(statistics.median(dram["B"]) - statistics.median(dram["A"]))
    assert delta > max(ranges)                      # what the old rule failed on: 768 B against 512
    rows = diff(_side(noop, "A"), _side(noop, "B"))
    assert not [r.key for r in rows if r.verdict == "changed"]
    by = {r.key: r for r in rows}
    assert by["dram_read_bytes"].verdict == "noise" and by["dram_read_bytes"].quantum % 256 == 0


def test_the_h200_doubled_loads_on_the_h200_noise_are_a_change():
    """The doubled-loads edit's measured ratios applied to the no-op's real repeats: what the GPU test's
    A/B of 3 + 3 profiles would see. The bytes read and the instructions change; by the rule, not by a ratio."""
    h = _h200()
    gen, dbl = h["double_loads"]["generated"], h["double_loads"]["doubled"]
    noop = h["noop"]
    edited = {k: {"B": [v * (dbl[k] / gen[k]) if gen[k] else dbl[k] for v in s["B"]]} for k, s in noop.items()}
    rows = {r.key: r for r in diff(_side(noop, "A"), _side(edited, "B"))}
    for key in ("l2_read_bytes", "dram_read_bytes", "inst_executed", "registers"):
        assert rows[key].verdict == "changed", (key, rows[key])
    assert 1.8 <= rows["l2_read_bytes"].b / rows["l2_read_bytes"].a <= 2.2
