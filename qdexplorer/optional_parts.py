"""What an optional part (Quadrants, Ray) needs, said for how this qdexplorer was installed.

A pip install adds them with extras; the frozen app (packaging/) bundles them only when built with
`QDX_BUNDLE=quadrants,ray`, and without them a pip hint would be no help to its user.
"""
from __future__ import annotations

import sys

FROZEN = bool(getattr(sys, "frozen", False))


def quadrants_hint() -> str:
    if FROZEN:
        return ("this qdexplorer app was built without Quadrants (build it with QDX_BUNDLE=quadrants, "
                "packaging/README.md), or pass --python with an interpreter that has Quadrants 1.3.3")
    return ("install it with pip install 'qdexplorer[quadrants]' (or pip install quadrants==1.3.3), "
            "or pass --python with an interpreter that has it")


def ray_hint() -> str:
    if FROZEN:
        return ("this qdexplorer app was built without Ray (build it with QDX_BUNDLE=ray, packaging/README.md); "
                "without --cluster everything runs on this machine")
    return "pip install 'qdexplorer[ray]'"
