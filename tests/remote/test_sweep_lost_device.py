"""A sweep split over two devices that loses one device's actor mid-run (issue 44): the lost device's
unfinished variants are finished on the other, the loss is said, every turn measured on the lost
device is kept as saved, and `resume` measures only what the survivor lacks.

Two CPU actors of the session's real cluster (conftest.py) stand for the two GPUs of a host: the
same path as `sweep --cluster local --gpus 2` on a two-GPU machine, where each actor holds one GPU.
The actor's process is killed for real (SIGKILL), as a crashed or killed GPU actor would be."""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="Ray is not installed (pip install '.[test]')")

from qdexplorer.bench.history import History
from qdexplorer.bench.sweep import load_sweep, parse_over, project_defaults, resume, sweep
from qdexplorer.engine import Engine
from qdexplorer.events import RunFinished
from qdexplorer.project.data_folder import history_path

from .projects import scale_project

ROOT = str(Path(__file__).resolve().parents[2])
OVER = ["block_dim=32,64,256,512"]   # with the default (128): 5 variants, 2 on one device and 2 on the other


def _engines(tmp_path, address, n=2):
    proj = scale_project(tmp_path / "p")
    return [Engine(proj, backend="cpu", cluster=address, cache_dir=str(tmp_path / "c")) for _ in range(n)]


def _sweep_killing_one(engines, h, name, rounds, kill_at, stop_at=None):
    """A sweep over `engines` whose second actor is SIGKILLed once it has finished `kill_at` turns;
    `stop_at`: the window's Stop once that many turns are done in all, after the loss was said."""
    victim = engines[1].device_info()["pid"]
    killed, stop, notes, turns = threading.Event(), threading.Event(), [], [0]

    def count(ev) -> None:
        if isinstance(ev, RunFinished):
            turns[0] += 1

    def progress(done: int, total: int) -> None:
        if turns[0] >= kill_at and not killed.is_set():
            killed.set()
            os.kill(victim, signal.SIGKILL)
        if stop_at is not None and notes and done >= stop_at:   # once the loss is seen and said
            stop.set()
    unsubscribe = engines[1].subscribe(count)
    try:
        result = sweep(engines, parse_over(OVER), project_defaults(engines[0]), rounds=rounds, per_round=2,
                       name=name, history=h, on_progress=progress, stop=stop, on_note=notes.append)
    finally:
        unsubscribe()
    assert killed.is_set()
    return result, notes


def test_a_sweep_that_loses_a_device_finishes_its_variants_on_the_other(tmp_path, cluster_address):
    rounds = 6
    engines = _engines(tmp_path, cluster_address)
    try:
        with History(tmp_path / "h.sqlite") as h:
            result, notes = _sweep_killing_one(engines, h, "k", rounds, kill_at=3)
            saved = {s.label: s for s in h.list()}
            back = load_sweep(h, "k")
            again = resume(engines[:1], h, "k")   # nothing lacks a round: nothing is measured
            after = {s.label: s.launches for s in h.list()}
    finally:
        for e in engines:
            e.close()
    survivor, lost = result.devices()[0], result.devices()[1]
    # every variant (the default too) is measured whole on the survivor, and the sweep is complete
    whole = {r.variant.label for r in result.runs if r.device == survivor and r.run.status == "complete"
             and sorted({ln.round for ln in r.run.launches}) == list(range(rounds))}
    assert whole == {v.label for v in result.variants}, [(r.run.name, r.run.status) for r in result.runs]
    assert result.status == "complete" and back.status == "complete"
    # the lost device's runs are kept with every turn they had measured, and say where their variants went
    on_lost = [r for r in result.runs if r.device == lost]
    assert on_lost and sum(len(r.run.launches) for r in on_lost) > 0
    for r in on_lost:
        assert saved[r.run.name].launches == len(r.run.launches) > 0   # saved as measured
        if r.run.status != "complete":
            assert "lost" in r.run.message and survivor in r.run.message, r.run.message
    # the loss is said while the sweep runs, naming both devices, and in the table
    assert len(notes) == 1 and lost in notes[0] and survivor in notes[0] and "died" in notes[0], notes
    assert notes[0] in result.table() and result.to_dict()["notes"] == notes
    # the moved variants are compared with the default of the device they were finished on
    moved = [r for r in result.runs if r.run.context.extra.get("sweep_moved_from") == lost]
    assert moved and all(r.device == survivor for r in moved)
    assert all(c.verdict != "no default here" for c in result.cells())
    # a later --resume has nothing to measure: the lost device's runs are not taken up again
    assert again.status == "complete" and after == {k: v.launches for k, v in saved.items()}


def test_a_sweep_stopped_after_a_loss_resumes_on_one_device(tmp_path, cluster_address):
    rounds = 8
    engines = _engines(tmp_path, cluster_address)
    try:
        with History(tmp_path / "h.sqlite") as h:
            first, _ = _sweep_killing_one(engines, h, "r", rounds, kill_at=3, stop_at=20)
            assert first.status == "stopped", [(r.run.name, r.run.status, r.run.message) for r in first.runs]
            cut = {s.label: s.launches for s in h.list()}
            lost = first.devices()[1]
            again = resume(engines[:1], h, "r")   # the survivor's runs only: one device is enough
            done = {s.label: s for s in h.list()}
    finally:
        for e in engines:
            e.close()
    assert again.status == "complete"
    for label, s in done.items():
        if label.endswith("@" + lost):   # kept as they were: nothing added to a lost device's runs
            assert s.launches == cut[label]
        else:
            assert s.status == "complete" and s.launches == rounds * 2, (label, s.status, s.launches)


# ---------------------------------------------------------------- through the CLI, on a private cluster
def _device_actors(folder: str) -> list[int]:
    """The device actors of the private cluster whose files are in `folder`: Ray workers named
    ray::DeviceActor… that carry the cluster's mark (the reaper's command line names it)."""
    procs = {}
    for d in filter(str.isdigit, os.listdir("/proc")):
        try:
            procs[int(d)] = (Path(f"/proc/{d}/cmdline").read_bytes(), Path(f"/proc/{d}/environ").read_bytes())
        except OSError:
            continue
    reaper = next((cmd for cmd, _ in procs.values() if b"reaper.py" in cmd and folder.encode() in cmd), None)
    if reaper is None:
        return []
    mark = b"QDEXPLORER_PRIVATE_CLUSTER=" + reaper.split(b"\0")[-3]   # reaper.py FOLDER MARK VARIABLE
    return sorted(pid for pid, (cmd, env) in procs.items()
                  if cmd.startswith(b"ray::DeviceActor") and mark in env.split(b"\0"))


@pytest.mark.long
def test_sweep_gpus_2_on_a_private_cluster_says_a_lost_device_and_finishes(tmp_path):
    """`sweep --cluster local --gpus 2` with two CPU actors (what stands for two GPUs on a machine
    without any): one actor killed from outside mid-sweep; the command still exits 0 with every
    variant measured on the other, says so on stderr while it runs, and in its JSON."""
    proj = scale_project(tmp_path / "p")
    err = tmp_path / "err.txt"
    env = dict(os.environ, PYTHONPATH=ROOT, HOME=str(tmp_path))
    for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_TOKEN", "RAY_ADDRESS"):
        env.pop(k, None)   # the session cluster's settings are not this command's
    p = subprocess.Popen([sys.executable, "-m", "qdexplorer", "sweep", str(proj), "--cluster", "local", "--backend",
                          "cpu", "--gpus", "2", "--over", OVER[0], "--rounds", "30", "--repeat", "2", "--save", "c",
                          "--json", "--cache-dir", str(tmp_path / "c")],
                         stdout=subprocess.PIPE, stderr=err.open("wb"), env=env, start_new_session=True)
    try:
        end = time.monotonic() + 240
        folder, actors = "", []
        while len(actors) < 2 and time.monotonic() < end and p.poll() is None:
            m = re.search(r"token and files in (\S+),", err.read_text())
            folder = m.group(1) if m else ""
            actors = _device_actors(folder) if folder else []
            time.sleep(0.3)
        assert len(actors) == 2, err.read_text()[-2000:]
        with History(history_path(proj)) as h:   # a few turns saved on each device first
            while time.monotonic() < end and p.poll() is None and sum(s.launches for s in h.list()) < 12:
                time.sleep(0.3)
        os.kill(actors[1], signal.SIGKILL)
        out, _ = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    text = err.read_text()
    assert p.returncode == 0, text[-2000:]
    result = json.loads(out)
    lost = [ln for ln in text.splitlines() if ln.startswith("qdexplorer: sweep c: device ") and "was lost" in ln]
    assert len(lost) == 1 and "died" in lost[0] and "kept and saved" in lost[0], text[-2000:]
    assert result["status"] == "complete" and len(result["notes"]) == 1 and result["notes"][0] in lost[0]
    survivor = next(r["device"] for r in result["runs"] if not r["lost"])
    assert {r["variant"] for r in result["runs"] if r["device"] == survivor and r["status"] == "complete"} == \
        {v["label"] for v in result["variants"]}
    with History(history_path(proj)) as h:
        saved = {s.label: s for s in h.list()}
    assert all(saved[r["name"]].launches == r["launches"] for r in result["runs"])   # what was measured is saved
    assert any(r["lost"] and r["launches"] > 0 for r in result["runs"])
