"""Round 3 of the hostile probe (issue 33): Ray clusters, sweeps, `install-desktop`, Quadrants
programs that daemonize, and the history under faults, with signals sent to every command.

Registered into benchmarks/hostile_inputs.py's CASES (`register`), run the same way:

    python benchmarks/hostile_inputs.py -k r3:           # only these
    python benchmarks/hostile_inputs.py -k "r3: signal"  # the signal matrix

A fifth class, `orphan`: a process the command started is still running after it ended. Every
command is started with a mark in its environment (QDX_HOSTILE=<random>), which whatever it
starts inherits; after the command ends, `ps` lists every process and /proc/PID/environ is read
for the mark. The private cluster's processes carry it too (Ray's children inherit the driver's
environment), so this also checks that the cluster ends with the command.
"""
from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

SIGNALS = {"INT": (signal.SIGINT, 130), "TERM": (signal.SIGTERM, 143), "HUP": (signal.SIGHUP, 129),
           "KILL": (signal.SIGKILL, -9)}
LEFT_S = 15.0   # how long the command's processes get to be gone after it ended

DAEMON = """\
import os, subprocess, sys, time
import quadrants as qd
qd.init(arch=qd.cpu)
subprocess.Popen(["sleep", "900"], start_new_session=True)
if os.fork() == 0:
    os.setsid()
    os.execve("/bin/sleep", ["sleep", "901"], {})
if len(sys.argv) > 1:
    time.sleep(float(sys.argv[1]))
print("daemons started", flush=True)
"""

SCALE = """\
import numpy as np
import qdexplorer.lang as qd

@qd.kernel
def scale(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        y[i] = x[i] / 3.0

@qd.workload(scale, check=lambda b, a: np.testing.assert_allclose(a["y"], b["x"] / 3.0, rtol=1e-6))
def scale_64k(rng):
    return dict(x=rng.standard_normal(1 << 16, dtype=np.float32), y=np.zeros(1 << 16, np.float32))
"""


def marked(mark: str) -> list[str]:
    """`ps` every process, then read each one's environment for the mark: 'PID COMMAND' of each."""
    ps = subprocess.run(["ps", "-eo", "pid=,stat=,args="], capture_output=True, text=True).stdout
    out = []
    for line in ps.splitlines():
        pid, stat, *cmd = line.split(None, 2)
        if stat.startswith("Z") or int(pid) == os.getpid():
            continue
        try:
            env = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        if f"QDX_HOSTILE={mark}".encode() in env.split(b"\0"):
            out.append(f"{pid} {(cmd or ['?'])[0][:200]}")
    return out


def cluster_holders(err_text: str) -> list[str]:
    """Processes holding files in the private cluster's folder the command named on stderr ("token and
    files in FOLDER"): Ray's agents write their title over their environment, so `marked` cannot see
    them (after a killed head they ran on for over a minute, and the case still read well)."""
    from qdexplorer.remote.reaper import describe, holding
    m = re.search(r"token and files in (\S+), mode 0700", err_text)
    return [f"{pid} {describe(pid)}" for pid in holding(m[1])] if m else []


def register(case, Ctx, Outcome, bad_input, ROOT):  # noqa: C901 - one place that lists the cases
    def start(c, *args, env=None, marker="", wait=120.0):
        """The CLI in its own session, with the mark; waits until stderr holds `marker`."""
        mark = secrets.token_hex(6)
        e = dict(os.environ, PYTHONPATH=str(ROOT), QDX_HOSTILE=mark, **c.env)
        for k in ("RAY_ADDRESS", "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
            e.pop(k, None)
        e.update(env or {})
        err = c.base / f"err-{mark}.txt"
        p = subprocess.Popen([sys.executable, "-m", "qdexplorer.cli", *map(str, args)], stdout=subprocess.PIPE,
                             stderr=err.open("wb"), env=e, cwd=c.base, start_new_session=True)
        end = time.monotonic() + wait
        while marker and marker not in err.read_text(errors="replace") and p.poll() is None \
                and time.monotonic() < end:
            time.sleep(0.2)
        return p, mark, err

    def finish(p, mark, err, timeout=120.0):
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        end = time.monotonic() + LEFT_S
        left = marked(mark) + cluster_holders(err.read_text(errors="replace"))
        while left and time.monotonic() < end:
            time.sleep(0.3)
            left = marked(mark) + cluster_holders(err.read_text(errors="replace"))
        for line in left:   # never leave them: the next case would count them
            try:
                os.kill(int(line.split()[0]), signal.SIGKILL)
            except OSError:
                pass
        return p.returncode, left, err.read_text(errors="replace") + p.stdout.read().decode(errors="replace")

    def saved(c):
        from qdexplorer.bench.history import History
        db = c.proj / ".qdexplorer" / "history.sqlite"
        if not db.exists():
            return []
        with History(db) as h:
            return h.list(warn=False)

    # ------------------------------------------------------------ signals to every command
    commands = {
        "bench": (lambda c: ("bench", c.project({"k.py": SCALE}), "--save", "b", "--repeat", "100000",
                             "--backend", "cpu"), "importing", 9.0),
        "run": (lambda c: ("run", c.project({"k.py": SCALE}), "--repeat", "200000", "--backend", "cpu"),
                "importing", 4.0),
        "sweep": (lambda c: ("sweep", c.project({"k.py": SCALE}), "--backend", "cpu", "--over", "block_dim=64,256",
                             "--rounds", "5000", "--repeat", "2", "--save", "s"), "variant turns", 1.0),
        "quadrants": (lambda c: ("quadrants", _write(c.base / "daemon.py", DAEMON), "--", "600"), "", 12.0),
        "sweep --cluster local": (lambda c: ("sweep", c.project({"k.py": SCALE}), "--cluster", "local", "--backend",
                                             "cpu", "--gpus", "2", "--over", "block_dim=32,64,256", "--rounds", "5000",
                                             "--repeat", "2", "--save", "s"), "variant turns", 2.0),
        "devices --cluster local": (lambda c: ("devices", "--cluster", "local"), "", 6.0),
    }
    for label, (make, marker, settle) in commands.items():
        for sname, (sig, rc) in SIGNALS.items():
            if label == "devices --cluster local" and sname != "TERM":
                continue   # one signal while a cluster starts is enough

            @case(f"r3: signal: SIG{sname} to {label}: exit {rc}, nothing left running, finished work saved",
                  "orphan")
            def _(c, make=make, marker=marker, settle=settle, sig=sig, rc=rc, label=label):
                p, mark, err = start(c, *make(c), marker=marker)
                time.sleep(settle)
                if p.poll() is not None:
                    return False, f"ended before the signal: rc={p.returncode} {err.read_text()[-150:]}"
                p.send_signal(sig)
                code, left, text = finish(p, mark, err)
                ok_rc = code == rc or (label.startswith("devices") and code in (0, rc))
                runs = saved(c) if label.startswith(("bench", "sweep")) else None
                ok_saved = runs is None or (bool(runs) and all(r.launches > 0 for r in runs)
                                            and all(r.status in ("interrupted", "stopped") for r in runs))
                # after SIGKILL the command prints nothing; Python's resource tracker (its helper)
                # may still warn while it removes the shared memory the command left: not the command's
                clean = ("Traceback" not in text or sig == signal.SIGKILL and "resource_tracker" in text) \
                    and "damaged" not in text
                return ok_rc and not left and ok_saved and clean, \
                    f"rc={code} left={left[:3]} runs={[(r.status, r.launches) for r in runs or []][:3]} " \
                    f"{text.strip().splitlines()[-1][:80] if text.strip() else ''}"

    # ------------------------------------------------------------ the private local cluster
    @case("r3: cluster: --cluster local keeps its token private (0700 folder, nothing in ~/.ray) and binds 127.0.0.1",
          "security")
    def _(c):
        home = c.base / "home"
        home.mkdir()
        p, mark, err = start(c, *commands["sweep --cluster local"][0](c), marker="variant turns",
                             env={"HOME": str(home)})
        text = err.read_text()
        m = re.search(r"token and files in (\S+),", text)
        problems = []
        if not m:
            problems.append("no line saying what was started")
        else:
            folder = Path(m.group(1))
            if folder.stat().st_mode & 0o077:
                problems.append(f"folder mode {oct(folder.stat().st_mode & 0o777)}")
            token = (folder / "token").read_text()
            ss = subprocess.run(["ss", "-ltnp"], capture_output=True, text=True).stdout
            pids = {ln.split()[0] for ln in marked(mark)}
            bound = [ln.split()[3] for ln in ss.splitlines()
                     if any(f"pid={pid}," in ln for pid in pids)]
            if not bound or any("127.0.0.1" not in b for b in bound):
                problems.append(f"listens on {bound[:4]}")
            if (home / ".ray").exists():
                problems.append("~/.ray written")
            lines = [ln for ln in text.splitlines() if "Ray" in ln]
            if len(lines) != 1 or "Token authentication" in text:
                problems.append(f"{len(lines)} Ray lines on the terminal")
        p.send_signal(signal.SIGTERM)
        code, left, text = finish(p, mark, err)
        if m and token in text:
            problems.append("token on the terminal")
        db = c.proj / ".qdexplorer" / "history.sqlite"
        if m and db.exists() and token.encode() in db.read_bytes():
            problems.append("token in the history")
        if left:
            problems.append(f"left {left[:2]}")
        return not problems, "; ".join(problems) or f"private; rc={code}"

    @case("r3: cluster: another local user cannot read the token, list the folder or use the GCS", "security")
    def _(c):
        if os.geteuid() != 0:
            return True, "not root: cannot become another user here (the modes are checked above)"
        user = "qdxprobe"
        if subprocess.run(["id", user], capture_output=True).returncode != 0:
            subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", user], capture_output=True)
        if subprocess.run(["id", user], capture_output=True).returncode != 0:
            user = "nobody"
        p, mark, err = start(c, *commands["sweep --cluster local"][0](c), marker="variant turns")
        m = re.search(r"token and files in (\S+),", err.read_text())
        note = "no cluster"
        ok = False
        if m:
            folder = m.group(1)
            ss = subprocess.run(["ss", "-ltnp"], capture_output=True, text=True).stdout
            gcs = [ln.split()[3].rsplit(":", 1)[1] for ln in ss.splitlines() if '"gcs_server"' in ln
                   and any(f"pid={ln2.split()[0]}," in ln for ln2 in marked(mark))]
            probe = subprocess.run(["setpriv", f"--reuid={user}", f"--regid={user if user != 'nobody' else 'nogroup'}",
                                    "--clear-groups", sys.executable, str(ROOT / "tests" / "remote" /
                                                                          "other_user_probe.py"),
                                    f"127.0.0.1:{gcs[0] if gcs else 1}", f"{folder}/token", folder],
                                   capture_output=True, text=True, timeout=60, env=dict(os.environ, HOME="/tmp"))
            lines = probe.stdout.split("\n")[:4]
            ok = bool(gcs) and lines == ["GetClusterId REFUSED UNAUTHENTICATED", "GetAllNodeInfo REFUSED UNAUTHENTICATED",
                                         "TOKEN DENIED 13", "FOLDER DENIED 13"]
            note = f"as {user}: " + "; ".join(lines) + (probe.stderr[-100:] if probe.returncode else "")
        p.send_signal(signal.SIGTERM)
        finish(p, mark, err)
        return ok, note

    @case("r3: cluster: sweep --gpus 3 on a 2-CPU local cluster is refused up front with the count", "poor")
    def _(c):
        t0 = time.monotonic()
        p, mark, err = start(c, "sweep", c.project({"k.py": SCALE}), "--cluster", "local", "--backend", "cpu",
                             "--gpus", "3", "--over", "block_dim=64,256,512")
        code, left, text = finish(p, mark, err, timeout=180)
        took = time.monotonic() - t0
        ok = code == 2 and "--gpus 3" in text and "CPU(s)" in text and not left and "Traceback" not in text
        return ok, f"rc={code} {took:.0f}s {text.strip().splitlines()[-1][:110]}"

    @case("r3: cluster: the head killed mid-sweep: one message, exit 1, turns saved, nothing left", "poor")
    def _(c):
        p, mark, err = start(c, *commands["sweep --cluster local"][0](c), marker="variant turns")
        time.sleep(2)
        gcs = [ln.split()[0] for ln in marked(mark) if "gcs_server" in ln]
        if not gcs:
            p.kill()
            finish(p, mark, err)
            return False, "no gcs_server found"
        os.kill(int(gcs[0]), signal.SIGKILL)
        code, left, text = finish(p, mark, err)
        runs = saved(c)
        ok = code == 1 and "gcs_server" in text and "ended unexpectedly" in text and not left and runs and \
            all(r.launches > 0 for r in runs)
        return ok, f"rc={code} left={left[:2]} runs={len(runs)} {text.strip().splitlines()[-1][:80]}"

    for addr in ("ray://127.0.0.1:1", "ray://no-such-host.invalid:10001"):
        @case(f"r3: cluster: --cluster {addr} names the address, what was tried and how long, within 10 s", "poor")
        def _(c, addr=addr):
            t0 = time.monotonic()
            o = c.cli("devices", "--cluster", addr, timeout=90)
            took = time.monotonic() - t0
            ok, note = bad_input(o, addr, "tried", " s ")
            return ok and took < 10 + 5, f"{took:.1f}s {note}"   # + Python's and Ray's import time

    # ------------------------------------------------------------ sweeps that lose nothing
    @case("r3: sweep: SIGKILL keeps every finished turn; --resume measures only what is missing", "poor")
    def _(c):
        proj = c.project({"k.py": SCALE})
        p, mark, err = start(c, "sweep", proj, "--backend", "cpu", "--over", "block_dim=64,256", "--rounds", "60",
                             "--repeat", "2", "--save", "s", marker="variant turns")
        time.sleep(1.5)
        p.send_signal(signal.SIGKILL)
        finish(p, mark, err)
        before = {r.label: (r.status, r.launches) for r in saved(c)}
        o = c.cli("sweep", proj, "--resume", "s", timeout=600)
        after = {r.label: (r.status, r.launches) for r in saved(c)}
        ok = len(before) == 3 and all(st == "interrupted" and n > 0 for st, n in before.values()) and \
            o.rc == 0 and all(after[k] == ("complete", 60 * 2) for k in before)
        return ok, f"before={list(before.values())} after={list(after.values())} rc={o.rc}"

    for opt, val in (("--timeout", "nan"), ("--timeout", "inf"), ("--timeout", "-1"), ("--timeout", "0"),
                     ("--gpus", "0"), ("--gpus", "-1"), ("--rounds", "nan"), ("--repeat", "0"), ("--warmup", "-1")):
        @case(f"r3: numbers: sweep {opt} {val} is one message", "poor")
        def _(c, opt=opt, val=val):
            return bad_input(c.cli("sweep", "--over", "block_dim=64", opt, val), opt, val)

    # ------------------------------------------------------------ the history, checked
    def damage(c):
        from qdexplorer.bench.context import RunContext
        from qdexplorer.bench.history import History
        from qdexplorer.bench.run import Launch, Run
        c.project({"k.py": SCALE})
        db = c.proj / ".qdexplorer" / "history.sqlite"
        db.parent.mkdir(parents=True, exist_ok=True)
        with History(db) as h:
            for k in range(6):
                h.save(Run(f"r{k}", RunContext(backend="cpu", device="x"),
                           [Launch("t", "k", "w", r, 1.0 + k, 1, 1) for r in range(400)]))
            h.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        data = bytearray(db.read_bytes())
        for page in range(2, len(data) // 4096, 3):
            data[page * 4096 + 100:page * 4096 + 600] = b"\xa5" * 500
        db.write_bytes(bytes(data))
        return db

    @case("r3: history: bench --save into a damaged file is refused, the file untouched", "corrupted")
    def _(c):
        db = damage(c)
        before = db.read_bytes()
        o = c.cli("bench", c.proj, "--save", "after", "--repeat", "2", "--backend", "cpu")
        ok = o.rc == 2 and "damaged" in o.err and "runs --repair" in o.err and db.read_bytes() == before and o.clean
        return ok, f"rc={o.rc} {(o.err.strip().splitlines() or [''])[-1][:120]}"

    @case("r3: history: runs --repair copies the readable runs into a new file and keeps the old", "poor")
    def _(c):
        db = damage(c)
        o = c.cli("runs", c.proj, "--repair")
        kept = [p for p in db.parent.iterdir() if ".damaged-" in p.name]
        b = c.cli("bench", c.proj, "--save", "after", "--repeat", "2", "--backend", "cpu")
        listed = c.cli("runs", c.proj)
        ok = o.rc == 0 and len(kept) == 1 and "copied" in o.err and b.rc == 0 and "after" in listed.out and \
            "damaged" not in listed.err
        return ok, f"{(o.err.strip().splitlines() or [''])[-1][:120]}"

    @case("r3: history: SIGTERM to a sweep, 4 times: never 'damaged' while the check passes, 143 each", "poor")
    def _(c):
        notes = []
        for k in range(4):
            p, mark, err = start(c, "sweep", c.project({"k.py": SCALE}), "--backend", "cpu", "--over",
                                 "block_dim=64,256", "--rounds", "5000", "--repeat", "2", "--save", f"t{k}",
                                 marker="variant turns")
            time.sleep(0.5 + 0.37 * k)
            p.send_signal(signal.SIGTERM)
            code, left, text = finish(p, mark, err)
            notes.append((code, "damaged" in text, bool(left)))
        from qdexplorer.bench.history import History
        with History(c.proj / ".qdexplorer" / "history.sqlite") as h:
            sound = h.integrity_problem() is None
        return sound and all(n == (143, False, False) for n in notes), f"{notes} sound={sound}"

    # ------------------------------------------------------------ files written safely
    for which, label in enumerate(("menu entry", "metainfo", "SVG icon", "a PNG icon")):
        @case(f"r3: install-desktop: a symlink at its {label} is refused, its target untouched", "security")
        def _(c, which=which):
            from qdexplorer.cli.desktop import planned
            home = c.base / "share"
            victim = c.outside / "victim"
            victim.write_text("keep")
            dst = planned(home)[which][1]
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(victim, dst)
            o = c.cli("install-desktop", "--data-home", home)
            return victim.read_text() == "keep" and o.rc == 2 and "symbolic link" in o.err, \
                (o.err.strip().splitlines() or [f"rc={o.rc}"])[-1][:120]

    @case("r3: export: a symlink at the export path is refused, its target untouched", "security")
    def _(c):
        from qdexplorer.bench.context import RunContext
        from qdexplorer.bench.history import History
        from qdexplorer.bench.run import Launch, Run
        c.project({"k.py": SCALE})
        (c.proj / ".qdexplorer").mkdir()
        with History(c.proj / ".qdexplorer" / "history.sqlite") as h:
            h.save(Run("r", RunContext(backend="cpu", device="x"), [Launch("t", "k", "w", 0, 1.0, 1, 1)]))
        victim = c.outside / "victim"
        victim.write_text("keep")
        os.symlink(victim, c.base / "out.csv")
        o = c.cli("export", c.proj, "r", "--csv", c.base / "out.csv")
        return victim.read_text() == "keep" and o.rc == 2, (o.err.strip().splitlines() or [f"rc={o.rc}"])[-1][:120]

    # ------------------------------------------------------------ children accounted for
    @case("r3: quadrants: a setsid daemon the program leaves is named and ended", "orphan")
    def _(c):
        p, mark, err = start(c, "quadrants", _write(c.base / "daemon.py", DAEMON))
        code, left, text = finish(p, mark, err, timeout=300)
        ok = code == 0 and "outside its process group" in text and "sleep 90" in text and not left
        return ok, f"rc={code} left={left[:2]} " + next((ln for ln in text.splitlines() if "outside" in ln), "")[:120]


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path
