"""Timing views: live launch plots, cache tiers, bench commands, comparisons, history, sweeps, assembly modes."""
