"""Can a window open here? Answered before Qt is touched, because Qt's own answer is an abort.

Without a display Qt's xcb plugin prints a page about plugins and aborts the process; with a display
but without the X libraries Qt 6 needs, it aborts the same way. Both get one line here, naming the
fix. Nothing here imports Qt, so the CLI can ask first.
"""
from __future__ import annotations

import ctypes.util
import os
import sys

# Libraries Qt 6's xcb platform plugin loads on Linux, with the Debian/Ubuntu package that has each
# (the README lists them; Fedora names: xcb-util-cursor, xcb-util-wm, xcb-util-keysyms, ...).
XCB_LIBRARIES = {
    "xcb-cursor": "libxcb-cursor0", "xcb-icccm": "libxcb-icccm4", "xcb-keysyms": "libxcb-keysyms1",
    "xcb-image": "libxcb-image0", "xcb-render-util": "libxcb-render-util0", "xcb-shape": "libxcb-shape0",
    "xcb-xkb": "libxcb-xkb1", "xkbcommon-x11": "libxkbcommon-x11-0", "xcb-randr": "libxcb-randr0",
    "xcb-xinerama": "libxcb-xinerama0", "EGL": "libegl1", "fontconfig": "libfontconfig1", "dbus-1": "libdbus-1-3",
}
CLI_HINT = "use the command line instead: `qdexplorer compile|run|show` (see `qdexplorer --help`)"


def display_problem(env=None, platform: str | None = None, find=ctypes.util.find_library) -> str | None:
    """One line saying why no window can open here, or None when one can."""
    env = os.environ if env is None else env
    platform = platform or sys.platform
    if env.get("QT_QPA_PLATFORM") or not platform.startswith("linux"):
        return None  # the user chose a platform plugin (offscreen, wayland, vnc...), or not Linux
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        return ("no display for the window (neither DISPLAY nor WAYLAND_DISPLAY is set); " + CLI_HINT +
                ", or set QT_QPA_PLATFORM=offscreen")
    if env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        missing = sorted(pkg for lib, pkg in XCB_LIBRARIES.items() if not find(lib))
        if missing:
            return ("the window cannot open: Qt's X11 (xcb) plugin needs libraries this system lacks; install them "
                    f"with `sudo apt install {' '.join(missing)}` (Debian/Ubuntu), or " + CLI_HINT)
    return None
