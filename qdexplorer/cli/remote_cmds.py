"""`qdexplorer devices | sweep`, and `--cluster` / `--device` on every command that compiles or runs.

`devices` lists the GPUs a command could run on: this machine's (nvidia-smi, no Ray), or each node
of a Ray cluster's. `sweep` times every combination of settings (`--over block_dim=64,128`) on
`--gpus N` devices at once and saves one run per variant and device (bench/sweep.py says how).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from typing import Any

from .arg_types import at_least, seed, seconds
from ..bench.sweep_counters import table as counters_table, variant_counters
from ..bench.sweep import SETTINGS, SweepEngine, load_sweep, parse_over, project_defaults, resume, sweep
from ..bench.sweep_lanes import lacking, resume_lanes
from ..engine import Engine
from ..ir.errors import QdError
from ..remote.gpus import RemoteGpu, node_gpus
from ..wording import plural
from .common import add_cluster_args, add_project_args, backend_of, connected_cluster, make_engine, open_history

CLUSTER_COMMANDS = ("compile", "run", "bench", "compare", "counters")   # plus sweep: everything that compiles or runs


def add_commands(sub: Any) -> None:
    """`sub`: the subparsers; the commands that compile or run must already be there."""
    for name in CLUSTER_COMMANDS:
        add_cluster_args(sub.choices[name])
    d = sub.add_parser("devices", help="list the GPUs of this machine, or of each node of a Ray cluster")
    d.add_argument("--cluster", metavar="ADDRESS", help="ray://HOST:10001, auto or local (default: this machine)")
    d.add_argument("--json", action="store_true", help="print machine-readable JSON")
    s = sub.add_parser("sweep", help="time every combination of settings (--over block_dim=64,128,256) on N GPUs "
                                     "and save one run per variant")
    add_project_args(s)
    add_cluster_args(s)
    s.add_argument("--over", action="append", default=[], metavar="SETTING=V1,V2",
                   help=f"a setting and its values (repeatable; settings: {', '.join(SETTINGS)}); every combination "
                        f"is a variant, and the project's own values are the default each is compared with")
    s.add_argument("--gpus", type=at_least(1), default=1, metavar="N",
                   help="devices that measure at once (Ray actors, one GPU each; with --backend cpu, N CPU actors); "
                        "more than 1 needs --cluster")
    s.add_argument("--backend", choices=("cpu", "cuda"), help="default: project setting, else cpu")
    s.add_argument("--workload", action="append", help="only this workload (repeatable; default: all)")
    s.add_argument("--rounds", type=at_least(1), default=6, help="rounds: each runs every variant once (default 6)")
    s.add_argument("--repeat", type=at_least(1), default=5, help="timed repeats per variant and round (default 5)")
    s.add_argument("--warmup", type=at_least(0), default=1,
                   help="untimed repeats before each variant's turn (default 1)")
    s.add_argument("--seed", type=seed, default=0,
                   help="seed of the workloads' random inputs (default 0: the same inputs every run)")
    s.add_argument("--timeout", type=seconds, default=60.0,
                   help="seconds before a launch counts as hung (> 0; also a cluster's device call)")
    s.add_argument("--no-flush-l2", dest="flush_l2", action="store_false",
                   help="CUDA: keep the L2 cache warm between launches (default: evict it before each launch)")
    s.add_argument("--save", metavar="NAME", help="name the sweep (its runs are NAME:VARIANT@DEVICE; "
                                                   "default: sweep-DATE-TIME)")
    s.add_argument("--no-save", action="store_true", help="measure and print, save nothing")
    s.add_argument("--show", metavar="NAME", help="print a saved sweep again (measures nothing)")
    s.add_argument("--counters", choices=("quick", "full"), help="also profile each variant of each task once under "
                   "ncu (occupancy, registers, SM and memory throughput beside the times; docs/counters.md)")
    s.add_argument("--resume", metavar="NAME", help="measure only the rounds a stopped, interrupted or killed sweep "
                                                     "lacks, with its own settings, into the same runs")


def _local_gpus() -> list[RemoteGpu]:
    host = os.uname().nodename
    return [RemoteGpu("", host, **r) for r in node_gpus()]


def cmd_devices(a: argparse.Namespace) -> int:
    nodes: list[dict[str, Any]]
    if a.cluster:
        ray_cluster = connected_cluster(a.cluster)   # Ray only when a cluster is asked for
        nodes = [{"node_id": n.node_id, "host": n.host, "address": n.address, "cpus": n.cpus, "ray_gpus": n.gpus}
                 for n in ray_cluster.nodes()]
        gpus = ray_cluster.devices()
    else:
        nodes = [{"node_id": "", "host": os.uname().nodename, "address": "", "cpus": float(os.cpu_count() or 0),
                  "ray_gpus": None}]
        gpus = _local_gpus()
    for n in nodes:
        n["gpus"] = [g.to_dict() for g in gpus if g.node_id == n["node_id"]]
    where = a.cluster or "this machine"
    if a.json:
        print(json.dumps({"cluster": a.cluster, "nodes": nodes}, indent=2))
        return 0
    print(f"{where}: {len(nodes)} node{'s' if len(nodes) != 1 else ''}, {len(gpus)} GPU{'s' if len(gpus) != 1 else ''}")
    for n in nodes:
        extra = f" ({n['address']})" if n["address"] and n["address"] != n["host"] else ""
        print(f"  {n['host']}{extra}: {n['cpus']:g} CPUs, " + (f"{len(n['gpus'])} GPU(s)" if n["gpus"] else "no GPU"))
        for g in n["gpus"]:
            state = f"busy ({g['used_gb']:.1f} GB used)" if g["busy"] else "free"
            spec = f"--device {n['host']}:{g['index']}" if a.cluster else ""
            print(f"    GPU {g['index']}  {g['name']:<24} {g['sm']:<7} driver {g['driver']:<12} "
                  f"{g['memory_gb']:6.1f} GB  {state:<22} {spec}")
    if not gpus:
        print(f"{'this cluster' if a.cluster else 'this machine'} has no NVIDIA GPU (CPU only): the cpu backend runs "
              f"here (--backend cpu); the cuda backend needs a node with a GPU")
    return 0


def cmd_sweep(a: argparse.Namespace) -> int:
    if a.show:
        with open_history(a.project, create=False) as h:
            result = load_sweep(h, a.show)
        print(json.dumps(result.to_dict(), indent=2) if a.json else result.table())
        return 0 if result.status == "complete" else 1
    over = parse_over(a.over) if not a.resume else {}
    if a.gpus > 1 and not a.cluster:
        raise QdError(f"--gpus {a.gpus}: more than one device needs --cluster (a Ray cluster, `--cluster local` "
                      f"for this machine's GPUs)")
    if a.gpus > 1 and a.device:
        raise QdError("--device pins one GPU; --gpus N lets Ray give each of the N actors its own")
    engines: list[Engine] = []
    counters: list = []
    if a.cluster and not a.resume:
        _check_devices(a, backend_of(a, a.backend))   # before any actor waits for a place that never comes
    history = None if a.no_save else open_history(a.project)
    name = a.resume or a.save or "sweep-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    try:
        if a.resume:
            if history is None:
                raise QdError("--resume adds to a saved sweep: it cannot go with --no-save")
            plan, lanes, _, _ = resume_lanes(history, a.resume)
            a.gpus = max(1, sum(1 for sides in lanes if any(lacking(s, plan.rounds) for s in sides)))
            a.backend = a.backend or lanes[0][0].run.context.backend
            if a.gpus > 1 and not a.cluster:
                raise QdError(f"sweep {a.resume!r} lacks rounds on {a.gpus} devices: resume it on a cluster "
                              f"(--cluster ...)")
            if a.cluster:
                _check_devices(a, backend_of(a, a.backend))
        for _ in range(a.gpus):   # one engine per device: each starts its own actor, on a GPU of its own
            engines.append(make_engine(a, backend=a.backend))
        sides: list[SweepEngine] = list(engines)

        tty = sys.stderr.isatty()
        said = [-1]

        def progress(done: int, total: int) -> None:
            if tty:   # one line redrawn in place
                print(f"\rsweep: {done}/{total} variant turns", end="" if done < total else "\n", file=sys.stderr)
            elif done == total or done * 10 // total != said[0]:   # a log file: a line every tenth, no \r
                said[0] = done * 10 // total
                print(f"sweep: {done}/{total} variant turns", file=sys.stderr)
        show = None if a.json else progress

        def note(text: str) -> None:   # a device lost: said when it happens, on every output
            print(("\n" if tty else "") + f"qdexplorer: sweep {name}: {text}", file=sys.stderr, flush=True)
        if a.resume:
            assert history is not None
            result = resume(sides, history, a.resume, on_progress=show, on_note=note)
        else:
            defaults = project_defaults(engines[0], None if a.fast_math is None else a.fast_math == "on")
            result = sweep(sides, over, defaults, a.workload, rounds=a.rounds,
                           per_round=a.repeat, warmup=a.warmup, seed=a.seed, flush_l2=a.flush_l2, name=name,
                           history=history, on_progress=show, on_note=note)
        if a.counters:
            counters = variant_counters(engines[0], result.variants, result.tasks(), a.counters, a.seed)
    except KeyboardInterrupt:
        if history is not None:
            print(f"\nqdexplorer: sweep {name} interrupted; every finished turn is saved in {history.path} "
                  f"(qdexplorer sweep {a.project or ''} --resume {name} measures the rest)".replace("  ", " "),
                  file=sys.stderr)
        raise
    finally:
        for eng in engines:
            eng.close()
        if history is not None:
            history.close()
    if a.json:
        print(json.dumps(result.to_dict() | {"history": str(history.path) if history else None}
                         | ({"counters": [r.to_dict() for r in counters]} if a.counters else {}), indent=2))
    else:
        print(result.table())
        if a.counters:
            print(counters_table(counters))
        print(f"{plural(len(result.runs), 'run')} " + (f"saved in {history.path} (qdexplorer sweep --show {result.name})"
                                             if history else "not saved"), file=sys.stderr)
    return 0 if result.status == "complete" else 1


def _check_devices(a: argparse.Namespace, backend: str) -> None:
    """Refuse `--gpus N` when the cluster cannot place N device actors (one GPU each, or one CPU
    each for the cpu backend), with the count it has: otherwise the actors that find no place wait
    for one, and the sweep stalls with no message."""
    ray_cluster = connected_cluster(a.cluster)
    if backend == "cuda":
        have = ray_cluster.gpu_count()
        if have < a.gpus:
            raise QdError(f"--gpus {a.gpus}: the cluster {a.cluster} has {have} GPU(s), so at most {have} devices "
                          f"can measure at once (qdexplorer devices --cluster {a.cluster})")
    else:
        have = ray_cluster.cpu_slots()
        if have < a.gpus:
            raise QdError(f"--gpus {a.gpus}: with --backend cpu each device is an actor holding one CPU, and the "
                          f"cluster {a.cluster} has {have} CPU(s): use --gpus {max(1, have)} or fewer")


COMMANDS = {"devices": cmd_devices, "sweep": cmd_sweep}
