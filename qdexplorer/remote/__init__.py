"""Devices on other machines (Ray). Nothing here is imported unless a cluster is asked for, so a
local session never imports Ray."""

import os

# Before Ray is imported (it reads this then): Ray's core worker installs a C++ failure handler for
# SIGTERM (to print a stack) and, on ray.shutdown, sets SIGTERM to the default action behind Python's
# back; a SIGTERM while a command ended its cluster then killed it (status -15) instead of reaching
# the command's handler, which exits 143 (issue 33). A user's own setting stands.
os.environ.setdefault("RAY_DISABLE_FAILURE_SIGNAL_HANDLER", "1")
