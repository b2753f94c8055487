"""`qdexplorer install-desktop`: the menu entry, AppStream metainfo and icons for a pip install.

pip cannot put files outside site-packages in a useful place, so they ship inside the package
(qdexplorer/resources/desktop/) and this command copies them into the user's XDG data folders,
where desktops look: applications/, metainfo/ and icons/hicolor/. The entry's Exec line names the
`qdexplorer` this install put on PATH (else this Python with -m qdexplorer), so the menu starts
the same install the command ran from.
"""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from pathlib import Path

from ..compiler.safe_files import read_nofollow, unlink_regular, write_file

APP_ID = "io.github.qdexplorer.qdexplorer"
SOURCE = Path(__file__).resolve().parents[1] / "resources"


def data_home(explicit: str | None = None) -> Path:
    return Path(explicit or os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


def planned(home: Path) -> list[tuple[Path, Path]]:
    """(source, destination) of every file the command writes."""
    desk = SOURCE / "desktop"
    out = [(desk / f"{APP_ID}.desktop", home / "applications" / f"{APP_ID}.desktop"),
           (desk / f"{APP_ID}.metainfo.xml", home / "metainfo" / f"{APP_ID}.metainfo.xml"),
           (SOURCE / "qdexplorer.svg", home / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg")]
    for png in sorted((desk / "icons").glob("qdexplorer-*.png")):
        n = png.stem.rsplit("-", 1)[1]
        out.append((png, home / "icons" / "hicolor" / f"{n}x{n}" / "apps" / f"{APP_ID}.png"))
    return out


def exec_line() -> str:
    """The command of *this* install: the one-folder app itself, or the `qdexplorer` script beside
    the Python that runs this (a `qdexplorer` found first on PATH may belong to another install)."""
    if getattr(sys, "frozen", False):
        cmd = [sys.executable]
    else:
        beside = Path(sys.executable).parent / "qdexplorer"
        found = str(beside) if beside.is_file() else shutil.which("qdexplorer")
        cmd = [found] if found else [sys.executable, "-m", "qdexplorer"]
    return " ".join(shlex.quote(c) for c in cmd) + " gui %f"


def install(home: Path) -> list[Path]:
    files = planned(home)
    missing = [str(src) for src, _ in files if not src.is_file()]
    if missing:
        raise FileNotFoundError(2, f"not in this install ({', '.join(missing)}); reinstall qdexplorer", missing[0])
    written = []
    for src, dst in files:   # a link planted at a name is refused, never written through
        dst.parent.mkdir(parents=True, exist_ok=True)
        if dst.suffix == ".desktop":
            lines = [f"Exec={exec_line()}" if ln.startswith("Exec=") else ln
                     for ln in src.read_text(encoding="utf-8").splitlines()]
            write_file(dst, "\n".join(lines) + "\n", mode=0o644)
        else:
            write_file(dst, read_nofollow(src), mode=0o644)
        written.append(dst)
    return written


def uninstall(home: Path) -> list[Path]:
    removed = []
    for _, dst in planned(home):
        if dst.is_symlink() or dst.is_file():   # a link is removed itself, its target never
            unlink_regular(dst)
            removed.append(dst)
    return removed


def cmd_install_desktop(a: argparse.Namespace) -> int:
    home = data_home(a.data_home)
    if a.uninstall:
        removed = uninstall(home)
        print(f"removed {len(removed)} file(s) from {home}")
        return 0
    written = install(home)
    print(f"wrote {len(written)} files under {home}: the menu entry {written[0]} (Exec={exec_line()}), "
          f"its metainfo and icons; the desktop picks them up at its next menu refresh")
    return 0


def add_commands(sub) -> None:
    d = sub.add_parser("install-desktop", help="add qdexplorer to the desktop's menu (entry, metainfo, icons) "
                       "for this user")
    d.add_argument("--data-home", help="XDG data folder to write into (default $XDG_DATA_HOME or ~/.local/share)")
    d.add_argument("--uninstall", action="store_true", help="remove what install-desktop wrote")


COMMANDS = {"install-desktop": cmd_install_desktop}
