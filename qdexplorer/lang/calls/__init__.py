"""A kernel call from Python: its arguments bound and checked, the trip counts it launches with,
its results, and the per-call state (`qd.init`, random keys, what the last launch passed)."""
