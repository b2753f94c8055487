"""Edited task code for a Quadrants program, and the folder a rerun loads it from.

Two kinds, one mechanism: `ptx` (CUDA; Quadrants reads `<debug_dump_path>/<task>.ptx` under
`QUADRANTS_LOAD_PTX=1`, tasks without a file keep their generated PTX) and `ll` (every LLVM arch,
the CPU included; `QD_LOAD_IR=1` reparses `<debug_dump_path>/<task>_llvm.ll` and aborts when a
compiled task has no file, so the load folder gets the generated IR of every other task too).

An edit folder holds `<name><suffix>` per edited task, where `name` is the task's stable name
(`saxpy_kernel_1_range_for`, which survives kernels added above it) or Quadrants' own name, and a
sidecar `<name><suffix>.json` recording the sha256 of the generated code it was derived from: when
the generated code changes, the edit is flagged `stale` (still loaded), as for qdexplorer's own
overrides. A rerun never loads from the edit folder itself: the files are copied under
Quadrants' names into a fresh folder, so nothing Quadrants writes can clobber an edit.
"""
from __future__ import annotations

import json
import os
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ..compiler.overrides import sha256
from ..compiler.safe_files import check_folder, check_task_name, read_checked, read_nofollow, unlink_regular, write_atomic
from ..ir.errors import QdError

MAX_EDIT_BYTES = 256 << 20   # an edited PTX or LLVM IR file (the largest real ones are a few MB)


# Quadrants 1.3.3 ends every PTX it hands the driver with a per-process nonce comment (so the driver's
# compute cache cannot serve another run); it changes every run, so it is no part of "what changed".
_NONCE = re.compile(r"^\s*// quadrants-session-nonce:.*$\n?", re.M)


def code_sha(text: str | bytes) -> str:
    """sha256 of generated code as far as staleness goes: without Quadrants' per-run nonce comment."""
    text = text.decode(errors="replace") if isinstance(text, bytes) else text
    return sha256(_NONCE.sub("", text))


@dataclass(frozen=True)
class EditKind:
    name: str        # 'ptx' | 'll'
    suffix: str      # file name suffix Quadrants reads
    env: str         # the variable that makes Quadrants read it
    file_kind: str   # QuadrantsTask.files key of the generated code
    needs_all: bool  # Quadrants aborts unless every compiled task has a file


KINDS = {"ptx": EditKind("ptx", ".ptx", "QUADRANTS_LOAD_PTX", "ptx", False),
         "ll": EditKind("ll", "_llvm.ll", "QD_LOAD_IR", "llvm", True)}
@dataclass
class Edit:
    name: str
    path: Path
    text: str
    base_sha: str | None


class EditFolder:
    """The user's edits of one kind, in a folder they own (`--load-ptx DIR`, `--load-ll DIR`)."""

    def __init__(self, folder: str | Path, kind: str = "ptx"):
        if kind not in KINDS:
            raise QdError(f"unknown edit kind {kind!r}: ptx or ll")
        self.folder, self.kind = Path(folder), KINDS[kind]

    def write(self, name: str, text: str, generated: str) -> Path:
        """Save `text` as the edit of task `name`, derived from `generated`."""
        fname = f"{check_task_name(name)}{self.kind.suffix}"
        check_folder(self.folder, create=True)
        data = text.replace("\x00", "").encode()
        p = write_atomic(self.folder, fname, data)
        side = {"task": name, "kind": self.kind.name, "generated_sha256": code_sha(generated),
                "edit_sha256": sha256(data), "written": time.strftime("%Y-%m-%dT%H:%M:%S")}
        write_atomic(self.folder, f"{fname}.json", json.dumps(side, indent=2).encode())
        return p

    def revert(self, name: str) -> bool:
        fname = f"{check_task_name(name)}{self.kind.suffix}"
        found = [unlink_regular(self.folder / f) for f in (fname, f"{fname}.json")]
        return any(found)

    def edits(self) -> list[Edit]:
        if not self.folder.is_dir():
            raise QdError(f"edit folder not found: {self.folder}")
        check_folder(self.folder)
        out = []
        for p in sorted(self.folder.glob(f"*{self.kind.suffix}")):
            name = p.name[: -len(self.kind.suffix)]
            if self.kind.name == "ptx" and name.endswith("_llvm"):
                continue
            base = None
            side = Path(f"{p}.json")
            if side.is_file():
                try:
                    meta = json.loads(read_checked(side, 1 << 20)[0])
                    base = meta.get("generated_sha256") if isinstance(meta, dict) else None
                    base = base if isinstance(base, str) else None
                except (OSError, ValueError, QdError):   # a sidecar is a hint: a bad one is none
                    base = None
            text = read_checked(p, MAX_EDIT_BYTES)[0].decode(errors="replace").replace("\x00", "")
            out.append(Edit(name, p, text, base))
        return out


def default_edit_folder(script: str | Path) -> Path:
    """`<script's folder>/.qdexplorer/quadrants/<script>/`, as our overrides live in the project; the user
    data folder when the script's folder is read-only (nothing is ever written into an installed package)."""
    script = Path(script).resolve()
    here = script.parent / ".qdexplorer" / "quadrants" / script.stem
    if os.access(script.parent, os.W_OK) or here.is_dir():
        return here
    from platformdirs import user_data_dir
    return Path(user_data_dir("qdexplorer")) / "quadrants" / sha256(str(script))[:16] / script.stem


def edit_states(edits: EditFolder, run) -> dict:
    """task name -> 'active' | 'stale' for the edits in `edits` that match a task of `run`."""
    out = {}
    for e in edits.edits() if edits.folder.is_dir() else []:
        t = run.task(e.name)
        gen = t.text(edits.kind.file_kind) if t else ""
        if t is not None and gen:
            out[t.name] = "active" if e.base_sha in (None, code_sha(gen)) else "stale"
    return out


def prepare_load(edits: EditFolder, baseline, folder: str | Path | None = None) -> dict:
    """Match each edit to a task of `baseline` (a QuadrantsRun with dumps), flag stale ones, and fill a
    fresh load folder. Returns the `load` record run_program takes (and the JSON reports)."""
    kind = edits.kind
    found = edits.edits()
    if not found:
        raise QdError(f"no *{kind.suffix} edits in {edits.folder}")
    folder = check_folder(Path(folder) if folder else Path(tempfile.mkdtemp(prefix=f"qdx-quadrants-load-{kind.name}-")),
                          create=True)
    entries: list[dict] = []
    used: dict[str, Path] = {}
    for e in found:
        t = baseline.task(e.name)
        if t is None:
            names = ", ".join(t.stable_name for t in baseline.tasks(include_internal=False))
            raise QdError(f"{e.path}: no task named {e.name} in this run of the program (tasks: {names})")
        generated = t.text(kind.file_kind)
        if not generated:
            raise QdError(f"{e.path}: the program's run wrote no {kind.suffix} for {t.name} "
                          + ("(PTX exists only on CUDA: use --arch cuda, or edit the LLVM IR with --load-ll)"
                             if kind.name == "ptx" else ""))
        gen_sha = code_sha(generated)
        state = "active" if e.base_sha in (None, gen_sha) else "stale"
        target = Path(t.files[kind.file_kind]).name  # what Quadrants reads back (a shared module's file too)
        if target in used:
            raise QdError(f"{e.path} and {used[target]} both replace {target} (one CUDA module holds both tasks): "
                          f"keep one of them")
        write_atomic(folder, target, e.text.encode())
        used[target] = e.path
        entries.append({"task": t.name, "stable_name": t.stable_name, "file": str(e.path), "state": state,
                        "load_file": target[: -len(kind.suffix)],
                        "known_base": e.base_sha is not None, "edit_sha256": sha256(e.text.encode()),
                        "generated_sha256": gen_sha})
    if kind.needs_all:
        for t in baseline.tasks():
            src = t.files.get(kind.file_kind)
            if src and Path(src).name not in used:
                write_atomic(folder, Path(src).name, read_nofollow(Path(src)))
    return {"kind": kind.name, "env": kind.env, "folder": str(folder), "edit_folder": str(edits.folder),
            "edits": entries}


LOADED_PTX = re.compile(r"Loading PTX from file: (\S+?)\.ptx\b")


def confirm_used(load: dict, run) -> None:
    """Mark each edit `used` from the edited run's own evidence. PTX: Quadrants logs
    "Loading PTX from file: <path>" per loaded task. LLVM IR: QD_LOAD_IR aborts the program when a
    task's file cannot be parsed or found, so a clean run read every file; a task that launched is
    confirmed."""
    logged = {Path(m).name for m in LOADED_PTX.findall(run.stdout + "\n" + run.stderr)}
    files = {e["task"]: e.get("load_file", e["task"]) for e in load["edits"]}
    launched = set(run.launches)
    for e in load["edits"]:
        if load["kind"] == "ptx":
            e["used"] = files[e["task"]] in logged
            e["evidence"] = "Quadrants logged 'Loading PTX from file'" if e["used"] else \
                "no 'Loading PTX from file' line for this task"
        else:
            e["used"] = run.ok and e["task"] in launched
            e["evidence"] = "QD_LOAD_IR run finished and the task launched" if e["used"] else \
                ("the run failed" if not run.ok else "the task did not launch")
