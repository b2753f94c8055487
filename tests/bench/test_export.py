"""Exports: CSV and JSON round trips, and a trace that follows the trace-event format."""
import csv
import io
import json
import os

from qdexplorer.bench.export import to_csv, to_json, to_trace, write
from qdexplorer.bench.run import Run

PHASES = set("BEXiIbneCMPOND") | {"s", "t", "f"}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
METADATA = {"process_name", "process_labels", "process_sort_index", "thread_name", "thread_sort_index"}


def validate_trace(doc):
    """The Trace Event Format (JSON object form) as chrome://tracing and Perfetto read it."""
    assert isinstance(doc, dict) and isinstance(doc["traceEvents"], list)
    assert doc.get("displayTimeUnit", "ms") in ("ms", "ns")
    json.dumps(doc, allow_nan=False)  # strict JSON: no NaN/Infinity
    tracks = {}
    for ev in doc["traceEvents"]:
        assert ev["ph"] in PHASES, ev
        assert isinstance(ev["name"], str) and ev["name"], ev
        assert isinstance(ev["pid"], int), ev
        if ev["ph"] == "M":
            assert ev["name"] in METADATA and isinstance(ev["args"], dict), ev
            if ev["name"].startswith("thread"):
                assert isinstance(ev["tid"], int)
            continue
        assert isinstance(ev["tid"], int) and isinstance(ev["ts"], (int, float)) and ev["ts"] >= 0, ev
        assert isinstance(ev.get("args", {}), dict)
        if ev["ph"] == "X":
            assert isinstance(ev["dur"], (int, float)) and ev["dur"] >= 0, ev
            tracks.setdefault((ev["pid"], ev["tid"]), []).append((ev["ts"], ev["ts"] + ev["dur"]))
    for key, slices in tracks.items():  # complete events on one track must nest, never straddle
        stack = []
        for start, end in sorted(slices, key=lambda s: (s[0], -s[1])):
            while stack and stack[-1] <= start + 1e-6:
                stack.pop()
            assert not stack or end <= stack[-1] + 1e-6, f"slices straddle on track {key}"
            stack.append(end)
    return tracks


def test_trace_has_a_track_per_task_and_a_compile_track(runs):
    run = runs("r")
    doc = json.loads(json.dumps(to_trace(run)))
    tracks = validate_trace(doc)
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "thread_name"}
    launch_tracks = {names[k]: v for k, v in tracks.items() if k[0] == 1}
    compile_tracks = {names[k]: v for k, v in tracks.items() if k[0] == 2}
    assert set(launch_tracks) == set(compile_tracks) == {"k_kernel_0_range_for", "k_kernel_1_serial"}
    assert len(launch_tracks["k_kernel_0_range_for"]) == 30  # each launch one slice
    slices = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["pid"] == 1]
    assert [e["args"]["seq"] for e in slices] == list(range(60))
    assert abs(slices[0]["dur"] - run.launches[0].ms * 1e3) < 1e-3  # microseconds
    stages = [e["name"] for e in doc["traceEvents"] if e["ph"] == "X" and e["pid"] == 2 and e["tid"] == 1]
    assert stages == ["lower", "codegen", "cache", "ptx"]
    assert min(s[0] for s in launch_tracks["k_kernel_0_range_for"]) >= max(
        s[1] for v in compile_tracks.values() for s in v) - 1e-6  # launches after the compile


def test_csv_and_json_round_trip(tmp_path, runs):
    run = runs("r")
    rows = list(csv.DictReader(io.StringIO(to_csv(run))))
    assert len(rows) == 60 and rows[1]["task"] == "k_kernel_1_serial"
    assert [float(r["ms"]) for r in rows] == [ln.ms for ln in run.launches]
    assert [int(r["round"]) for r in rows[::6]] == list(range(10))  # 2 tasks x 3 repeats a round
    back = Run.from_dict(json.loads(to_json(run)))
    assert back.launches == run.launches and back.context == run.context
    p = write(run, tmp_path / "out" / "r.json", "perfetto")
    validate_trace(json.loads(p.read_text()))
    assert not [f for f in p.parent.iterdir() if f.name.startswith(".")]  # no temp file left behind


def test_exporting_onto_a_folder_or_past_a_size_limit_names_the_target_and_leaves_nothing(tmp_path, runs):
    """Issue 21: an existing folder as the target named an internal temp file and left it behind."""
    import resource
    import signal
    import subprocess
    import sys

    import pytest

    from qdexplorer.ir.errors import QdError
    target = tmp_path / "out"
    target.mkdir()
    with pytest.raises(QdError, match=f"cannot export to {target}: it is a folder"):
        write(runs("r"), target, "csv")
    assert list(target.iterdir()) == [] and [p.name for p in tmp_path.iterdir()] == ["out"]

    def cap():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    code = ("import sys; sys.path.insert(0, sys.argv[2]); from qdexplorer.bench.export import write; "
            "from tests.bench.conftest import make_run; write(make_run('r'), sys.argv[1], 'json')")
    p = subprocess.run([sys.executable, "-c", code, str(target / "r.json"), ROOT], capture_output=True, text=True,
                       preexec_fn=cap, timeout=120)
    assert p.returncode == 1 and f"cannot export to {target / 'r.json'}: File too large" in p.stderr, p.stderr
    assert list(target.iterdir()) == []


def test_exporting_to_a_fifo_writes_into_it_and_keeps_it(tmp_path, runs):
    """A device or FIFO target (/dev/stdout, a pipe) is written into, never replaced by a regular file
    (own case, issue 21: `export --json /dev/full` as root replaced the device node)."""
    import stat
    import threading
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    write(runs("r"), fifo, "json")
    reader.join(30)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert json.loads(got[0])["name"] == "r"
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]
