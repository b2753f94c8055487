"""Issue 44 on two GPUs of one host, through `--cluster local`, each step a real `qdexplorer` command;
prints ONE JSON document. `two_gpus.sh` sets up Ray on the GPU machine and calls this.

Steps, each time-boxed (`--budget` seconds in all; a step that would not fit reports "skipped"):
  devices   `devices --cluster local --json`: both GPUs listed, with name and memory
  warm      one untimed sweep round (--gpus 1, --no-save): every variant compiled into the cache, so the two
            timed sweeps below both start warm
  sweep1    `sweep --gpus 1` over block_dim x fast_math (10 variants), timed
  sweep2    the same with `--gpus 2`, timed; ratio = sweep2 / sweep1 (wall time of the command, and time
            after the private cluster was up); each variant's run compared with its run of sweep1
            (`compare_runs`: same within its run-to-run spread?), and its ratio to the default
  compare   `compare now now --a-device 0 --b-device 1`: GPU 0 against GPU 1 on the same build
  counters  `counters --device 0` and `--device 1` of the same task (--fresh): instruction counts equal?
  kill      `sweep --gpus 2` whose second device actor is SIGKILLed mid-run: exit 0, the loss said once,
            every variant complete on the survivor, the lost device's measured turns kept

`--cpu`: the same steps with the cpu backend and two CPU actors standing for the two GPUs (small sizes;
compare and counters then name the node, which has no GPU: they show the path, not GPU figures). This is
how the script is checked on a machine without GPUs.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KERNEL = """
import numpy as np
import qdexplorer.lang as qd

@qd.kernel
def wave(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        v = x[i]
        acc = 0.0
        for k in range({steps}):
            acc = acc + qd.sin(v * k) / (1.0 + v * v + k)
        y[i] = acc

@qd.workload(wave)
def wave_n(rng):
    return dict(x=rng.standard_normal({n}, dtype=np.float32), y=np.zeros({n}, np.float32))
"""
TASK = "wave_kernel_0_range_for"
OVER = ["--over", "block_dim=64,128,256,512,1024", "--over", "fast_math=on,off"]   # 10 variants


class Steps:
    def __init__(self, budget: float):
        self.t0, self.budget, self.out = time.monotonic(), budget, {}

    def left(self) -> float:
        return self.budget - (time.monotonic() - self.t0)

    def run(self, name: str, limit: float, fn) -> None:
        if self.left() < min(limit, 20):
            self.out[name] = {"status": "skipped", "why": f"budget: {self.left():.0f} s left"}
            return
        t = time.monotonic()
        try:
            self.out[name] = fn(min(limit, self.left())) | {"status": "done"}
        except Exception as e:  # noqa: BLE001 - one step's failure is reported, the others go on
            self.out[name] = {"status": "error", "error": f"{type(e).__name__}: {e}"[:2000]}
        self.out[name]["seconds"] = round(time.monotonic() - t, 1)


def qdx(args: list[str], timeout: float, env: dict[str, str]) -> dict:
    """One command: its exit status, stdout (parsed when JSON), stderr's tail, wall time, and the time
    after its private cluster said it was up (what a sweep spends placing, compiling and measuring)."""
    t0 = time.monotonic()
    p = subprocess.Popen([sys.executable, "-m", "qdexplorer", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env, start_new_session=True)
    timer = threading.Timer(timeout, lambda: os.killpg(p.pid, signal.SIGKILL))
    timer.start()
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(p.stdout.read() if p.stdout else ""), daemon=True)
    reader.start()   # stdout drained beside stderr: a large JSON never blocks the command
    up, err = None, []
    assert p.stderr is not None
    for line in p.stderr:
        err.append(line)
        if up is None and "started a private Ray cluster" in line:
            up = time.monotonic()
    p.wait()
    reader.join()
    timer.cancel()
    end = time.monotonic()
    out = got[0] if got else ""
    if end - t0 >= timeout:
        return {"rc": "timeout", "stderr": "".join(err)[-1500:], "wall_s": round(end - t0, 2)}
    try:
        parsed = json.loads(out)
    except ValueError:
        parsed = out[-1500:]
    return {"rc": p.returncode, "out": parsed, "stderr": "".join(err)[-1500:], "wall_s": round(end - t0, 2),
            "after_cluster_s": round(end - up, 2) if up else None}


def device_actors(folder: str) -> list[int]:
    """The device actors of the private cluster whose files are in `folder` (their environment carries
    its mark, which the reaper's command line names)."""
    procs = {}
    for d in filter(str.isdigit, os.listdir("/proc")):
        try:
            procs[int(d)] = (Path(f"/proc/{d}/cmdline").read_bytes(), Path(f"/proc/{d}/environ").read_bytes())
        except OSError:
            continue
    reaper = next((cmd for cmd, _ in procs.values() if b"reaper.py" in cmd and folder.encode() in cmd), None)
    if reaper is None:
        return []
    mark = b"QDEXPLORER_PRIVATE_CLUSTER=" + reaper.split(b"\0")[-3]
    return sorted(pid for pid, (cmd, env) in procs.items()
                  if cmd.startswith(b"ray::DeviceActor") and mark in env.split(b"\0"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cpu", action="store_true", help="cpu backend, two CPU actors (a machine without GPUs)")
    ap.add_argument("--budget", type=float, default=480, help="seconds for every step together (default 480)")
    ap.add_argument("--rounds", type=int, help="sweep rounds (default: 20 on GPUs, 4 with --cpu)")
    ap.add_argument("--repeat", type=int, help="timed repeats per turn (default: 10 on GPUs, 2 with --cpu)")
    ap.add_argument("--n", type=int, help="elements (default: 2^24 on GPUs, 2^12 with --cpu)")
    ap.add_argument("--steps", type=int, help="inner loop trips per element (default: 64 on GPUs, 4 with --cpu)")
    ap.add_argument("--work", help="folder for the project, its history and the cache (default: a temporary one)")
    a = ap.parse_args()
    gpu = not a.cpu
    rounds, repeat = a.rounds or (20 if gpu else 4), a.repeat or (10 if gpu else 2)
    n, steps = a.n or ((1 << 24) if gpu else (1 << 12)), a.steps or (64 if gpu else 4)
    work = Path(a.work or tempfile.mkdtemp(prefix="qdx2gpu-"))
    proj = work / "proj"
    proj.mkdir(parents=True, exist_ok=True)
    (proj / "k.py").write_text(KERNEL.format(n=n, steps=steps))
    (proj / "qdexplorer.toml").write_text(f'[project]\nname = "two_gpus"\nbackend = "{"cuda" if gpu else "cpu"}"\n')
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               RAY_USAGE_STATS_ENABLED="0")
    for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_TOKEN", "RAY_ADDRESS"):
        env.pop(k, None)
    opts = ["--cluster", "local", "--cache-dir", str(work / "cache")]
    sweep = ["sweep", str(proj), *opts, *OVER, "--repeat", str(repeat), "--json"]
    host = socket.gethostname()
    dev = (lambda i: str(i)) if gpu else (lambda i: host)   # CPU actors: a node, not a GPU
    s = Steps(a.budget)
    result: dict = {"machine": {"host": host, "mode": "cuda, two GPUs" if gpu else "cpu, two CPU actors"},
                    "sizes": {"n": n, "steps": steps, "rounds": rounds, "repeat": repeat, "variants": 10},
                    "steps": s.out}
    try:
        result["machine"]["nvidia_smi"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=index,name,memory.total,driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=20).stdout.strip().splitlines()
    except (OSError, subprocess.SubprocessError):
        result["machine"]["nvidia_smi"] = []

    def devices(limit: float) -> dict:
        r = qdx(["devices", "--cluster", "local", "--json"], limit, env)
        gpus = [g for node in (r["out"].get("nodes", []) if isinstance(r["out"], dict) else []) for g in node["gpus"]]
        return {"rc": r["rc"], "gpus": [{k: g[k] for k in ("index", "name", "memory_gb", "label")} for g in gpus],
                "both_listed": len(gpus) >= 2, "wall_s": r["wall_s"]} | ({} if r["rc"] == 0 else {"stderr": r["stderr"]})
    s.run("devices", 60, devices)

    def warm(limit: float) -> dict:
        r = qdx([*sweep, "--gpus", "1", "--rounds", "1", "--no-save"], limit, env)
        return {"rc": r["rc"], "wall_s": r["wall_s"]} | ({} if r["rc"] == 0 else {"stderr": r["stderr"]})
    s.run("warm", 150, warm)

    def timed(gpus: int):
        def step(limit: float) -> dict:
            r = qdx([*sweep, "--gpus", str(gpus), "--rounds", str(rounds), "--save", f"g{gpus}"], limit, env)
            out = r["out"] if isinstance(r["out"], dict) else {}
            per_device: dict[str, list[str]] = {}
            for run in out.get("runs", []):
                per_device.setdefault(run["device"], []).append(run["variant"])
            return {"rc": r["rc"], "status": out.get("status"), "wall_s": r["wall_s"],
                    "after_cluster_s": r["after_cluster_s"], "variants_per_device": per_device,
                    "notes": out.get("notes")} | ({} if r["rc"] == 0 else {"stderr": r["stderr"]})
        return step
    s.run("sweep1", 150, timed(1))
    s.run("sweep2", 120, timed(2))
    one, two = s.out.get("sweep1", {}), s.out.get("sweep2", {})
    if one.get("rc") == 0 and two.get("rc") == 0:
        result["sweep_ratio"] = {"wall": round(two["wall_s"] / one["wall_s"], 3),
                                 "after_cluster": round(two["after_cluster_s"] / one["after_cluster_s"], 3)
                                 if one.get("after_cluster_s") and two.get("after_cluster_s") else None,
                                 "goal": "<= 0.6"}
        result["per_variant"] = per_variant(proj)

    def compare(limit: float) -> dict:
        r = qdx(["compare", str(proj), "now", "now", *opts, "--a-device", dev(0), "--b-device", dev(1), "--rounds", "10",
                 "--json"], limit, env)
        out = r["out"] if isinstance(r["out"], dict) else {}
        rows = [{k: t.get(k) for k in ("task", "verdict", "ratio", "ci", "reason")} for t in out.get("tasks", [])]
        return {"rc": r["rc"], "a": out.get("a"), "b": out.get("b"), "tasks": rows,
                "all_same": bool(rows) and all(t["verdict"] == "same" for t in rows),
                "differ": [t for t in rows if t["verdict"] != "same"], "warnings": out.get("warnings")} | (
                    {} if r["rc"] in (0, 1) and out else {"stderr": r["stderr"]})
    s.run("compare", 120, compare)

    def counters(limit: float) -> dict:
        sides = {}
        for i in (0, 1):
            r = qdx(["counters", str(proj), *opts, "--task", TASK, "--device", dev(i), "--fresh", "--json"], limit / 2, env)
            side = (r["out"].get("sides", {}).get("current", {}) if isinstance(r["out"], dict) else {})
            rec = side.get("counters") or {}
            sides[f"gpu{i}"] = {"rc": r["rc"], "state": side.get("state"), "message": side.get("message"),
                                "device": rec.get("device"),
                                "instructions": {k: v for k, v in (rec.get("figures") or {}).items() if "inst" in k},
                                "mix": rec.get("mix")} | ({} if side else {"stderr": r["stderr"]})
        a, b = sides["gpu0"], sides["gpu1"]
        same = bool(a["instructions"]) and a["instructions"] == b["instructions"] and a["mix"] == b["mix"]
        return {"sides": sides, "same_instruction_counts": same}
    s.run("counters", 150, counters)

    def kill(limit: float) -> dict:
        return kill_one(sweep, rounds * 3, limit, env, proj)
    s.run("kill", 150, kill)
    result["seconds"] = round(time.monotonic() - s.t0, 1)
    print(json.dumps(result, indent=2))
    return 0


def per_variant(proj: Path) -> dict:
    """Each variant of the --gpus 2 sweep against the same variant of the --gpus 1 sweep: the
    product's verdict on the two runs (same within their run-to-run spread?), and both ratios to the
    default on their own device, with their intervals."""
    from qdexplorer.bench.compare import compare_runs
    from qdexplorer.bench.history import History
    from qdexplorer.bench.sweep import load_sweep
    from qdexplorer.project.data_folder import history_path
    with History(history_path(proj)) as h:
        one, two = load_sweep(h, "g1"), load_sweep(h, "g2")
    cells1 = {(c.task, c.variant): c for c in one.cells()}
    rows, verdicts = [], {}
    for r2 in two.runs:
        r1 = next((r for r in one.runs if r.variant == r2.variant), None)
        if r1 is None:
            continue
        for t in compare_runs(r1.run, r2.run).tasks:
            c1 = cells1.get((t.task, r2.variant.label))
            c2 = next((c for c in two.cells() if c.task == t.task and c.variant == r2.variant.label
                       and c.device == r2.device), None)
            rows.append({"variant": r2.variant.label, "device_2": r2.device, "task": t.task,
                         "median_ms_1": round(t.median_a, 5), "median_ms_2": round(t.median_b, 5),
                         "ratio_2_over_1": round(t.ratio, 4), "verdict": t.verdict,
                         "vs_default_1": [c1.ratio, c1.ci] if c1 else None,
                         "vs_default_2": [c2.ratio, c2.ci] if c2 else None})
            verdicts[t.verdict] = verdicts.get(t.verdict, 0) + 1
    return {"verdicts": verdicts, "rows": rows}


def kill_one(sweep: list[str], rounds: int, limit: float, env: dict[str, str], proj: Path) -> dict:
    """`sweep --gpus 2` whose second device actor is SIGKILLed once both have saved some turns."""
    from qdexplorer.bench.history import History
    from qdexplorer.project.data_folder import history_path
    t0 = time.monotonic()
    err = proj.parent / "kill.err"
    p = subprocess.Popen([sys.executable, "-m", "qdexplorer", *sweep, "--gpus", "2", "--rounds", str(rounds),
                          "--save", "kill"], stdout=subprocess.PIPE, stderr=err.open("w"), text=True, env=env,
                         start_new_session=True)
    try:
        actors: list[int] = []
        while len(actors) < 2 and p.poll() is None and time.monotonic() - t0 < limit / 2:
            m = re.search(r"token and files in (\S+),", err.read_text())
            actors = device_actors(m.group(1)) if m else []
            time.sleep(0.3)
        if len(actors) < 2:
            raise RuntimeError(f"the two device actors were not found: {err.read_text()[-1500:]}")
        with History(history_path(proj)) as h:   # a few turns saved by the sweep first (both devices started)
            while p.poll() is None and time.monotonic() - t0 < limit * 0.7 and \
                    sum(s.launches for s in h.list() if s.label.startswith("kill:")) < 20:
                time.sleep(0.3)
        killed_at = round(time.monotonic() - t0, 2)
        os.kill(actors[1], signal.SIGKILL)
        out, _ = p.communicate(timeout=max(5.0, limit - (time.monotonic() - t0)))
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    text = err.read_text()
    res = json.loads(out) if out.strip().startswith("{") else {}
    said = [ln for ln in text.splitlines() if "was lost" in ln]
    runs = res.get("runs", [])
    survivor = next((r["device"] for r in runs if not r["lost"]), None)
    whole = {r["variant"] for r in runs if r["device"] == survivor and r["status"] == "complete"}
    with History(history_path(proj)) as h:
        saved = {s.label: s.launches for s in h.list()}
    return {"rc": p.returncode, "killed_pid": actors[1], "killed_after_s": killed_at, "said": said,
            "sweep_status": res.get("status"), "survivor": survivor,
            "every_variant_complete_on_survivor": bool(runs) and whole == {v["label"] for v in res.get("variants", [])},
            "lost_runs_kept": [{"name": r["name"], "launches": r["launches"], "saved": saved.get(r["name"])}
                               for r in runs if r["lost"]],
            "json_parses": bool(res)} | ({} if p.returncode == 0 else {"stderr": text[-1500:]})


if __name__ == "__main__":
    sys.exit(main())
