"""The clock warning on synthetic NVML samples: busy against busy, while timing, per round."""
import threading
import time

from qdexplorer.bench.clocks import (ClockReading, ClockSample, ClockSampler, clock_summary, clock_warning,
                                     settled)


def samples(*rounds, idle_before=0, idle_between=0, idle_mhz=345, t=0.0):
    """Samples of a run: `idle_before` idle samples, then each round's busy clocks (MHz), with
    `idle_between` idle samples outside the rounds between them."""
    out = [ClockSample(t + i * 0.01, idle_mhz, 1593, False, None) for i in range(idle_before)]
    for r, clocks in enumerate(rounds):
        for mhz in clocks:
            out.append(ClockSample(len(out) * 0.01, mhz, 2619, True, r))
        out += [ClockSample(len(out) * 0.01, idle_mhz, 1593, False, None) for _ in range(idle_between)]
    return out


def test_an_idle_gpu_before_the_run_is_no_warning():
    """The issue's false alarm: 345 MHz idle before, 1980 MHz busy during: the clock held."""
    run = samples([1980] * 20, [1980, 1965, 1980] * 6, [1980] * 20, idle_before=50, idle_between=5)
    assert clock_warning(run) == ""
    s = clock_summary(run)
    assert s["sm"] == 1980 and s["sm_min"] == 1965 and s["busy_samples"] == 58 and s["samples"] == 123
    assert s["mem"] == 2619 and s["sm_by_segment"] == [1980, 1980, 1980]


def test_a_clock_that_drops_mid_timing_warns():
    """Another process starts halfway: the busy clock of the later rounds is 25% lower."""
    run = samples([1980] * 20, [1980] * 20, [1485] * 20, [1485] * 20, idle_between=3)
    w = clock_warning(run)
    assert "SM clock moved 25% while launches were timed (1980 → 1485 MHz" in w
    assert clock_warning(samples([1485] * 10, [1980] * 10)).count("1485 → 1980") == 1


def test_one_busy_dip_or_idle_samples_inside_a_round_do_not_warn():
    dip = [1980] * 9 + [1200] + [1980] * 10          # one sample caught mid-ramp
    idle_inside = [ClockSample(i * 0.01, 345, 1593, False, 0) for i in range(10)]  # GPU idle between launches
    run = samples(dip, [1980] * 20) + idle_inside
    assert clock_warning(run) == ""


def test_a_one_round_run_compares_its_halves_and_small_moves_pass():
    assert "moved" in clock_warning(samples([1980] * 10 + [1600] * 10))
    assert clock_warning(samples([1980] * 10 + [1900] * 10)) == ""   # 4%: under the 10% threshold
    assert clock_warning(samples([1980] * 3)) == ""                   # too little to tell
    assert clock_warning([]) == "" and clock_summary([]) == {}


def test_settled_looks_at_the_last_busy_samples():
    ramp = samples([900, 1400, 1800, 1950, 1980, 1980, 1975])
    assert settled(ramp) is True and settled(ramp[:4]) is False
    assert settled(samples([], idle_before=30)) is None   # never busy: nothing to settle


def test_the_sampler_tags_samples_with_the_round_being_timed():
    clock = {"mhz": 1980}
    lock = threading.Lock()

    def read():
        with lock:
            return ClockReading(clock["mhz"], 2619, True)
    with ClockSampler(read, period_s=0.002) as sampler:
        time.sleep(0.03)
        with sampler.timing(0):
            time.sleep(0.05)
        with sampler.timing(1):
            with lock:
                clock["mhz"] = 1500
            time.sleep(0.05)
    rounds = {s.round for s in sampler.samples}
    assert rounds == {None, 0, 1}
    assert {s.sm for s in sampler.samples if s.round == 1} == {1500}
    assert "1980 → 1500" in clock_warning(sampler.samples)
    n = len(sampler.samples)
    time.sleep(0.02)
    assert len(sampler.samples) == n  # the thread stopped with the block


def _with_procs(run, counts):
    """`run`'s samples with the GPU's compute-process count given per round (None: between rounds)."""
    return [ClockSample(s.t, s.sm, s.mem, s.busy, s.round, counts[s.round] if s.round is not None else counts[-1])
            for s in run]


def test_another_process_starting_on_the_gpu_mid_timing_warns_even_when_the_clock_holds():
    """A competing job shares the SMs (and the power) without always moving the clock: the count
    of processes with a CUDA context on the GPU rising after the first round is a warning."""
    run = samples([1980] * 10, [1980] * 10, [1980] * 10, [1980] * 10, idle_between=2)
    w = clock_warning(_with_procs(run, [1, 1, 2, 2, 1]))
    assert "another process started using the GPU while launches were timed (1 → 2 processes" in w
    assert "SM clock moved" not in w and clock_summary(_with_procs(run, [1, 1, 2, 2, 1]))["gpu_processes_max"] == 2
    # our own worker starting inside the first round (0 → 1), or a job that was there all along: no warning
    assert clock_warning(_with_procs(run, [1, 1, 1, 1, 0])) == ""
    assert clock_warning(_with_procs(run, [3, 3, 3, 3, 3])) == ""
    first_round = [ClockSample(i * 0.01, 1980, 2619, True, 0, 0 if i < 3 else 1) for i in range(10)]
    assert clock_warning(first_round + _with_procs(samples([], [1980] * 10), [1, 1, 1])) == ""
    # both at once: one message with both causes
    both = _with_procs(samples([1980] * 10, [1980] * 10, [1500] * 10), [1, 1, 2, 1])
    assert "SM clock moved" in clock_warning(both) and "another process" in clock_warning(both)


def test_a_one_round_run_counts_processes_from_its_first_busy_sample():
    idle_start = [ClockSample(i * 0.01, 345, 1593, False, 0, 0) for i in range(3)]   # worker not yet up
    busy = [ClockSample(0.03 + i * 0.01, 1980, 2619, True, 0, 1 if i < 10 else 2) for i in range(20)]
    assert "1 → 2 processes" in clock_warning(idle_start + busy)
    assert clock_warning(idle_start + busy[:10]) == ""
