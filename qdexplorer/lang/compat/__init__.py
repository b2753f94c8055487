"""Quadrants' compatibility shims: its module paths (`import quadrants.X`), the names it keeps for old
programs (`qd.experimental`, `qd.graph`, `qd.profiler`, logging, `qd.cfg`), and what we refuse or support in part."""
