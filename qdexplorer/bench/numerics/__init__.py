"""What bench/stats.py computes many times a comparison, at NumPy's own numbers without its per-call overhead:
medians of many small samples (medians.py), and the bootstrap's draws and percentiles (bootstrap.py)."""
