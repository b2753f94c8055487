# tree/ holds Quadrants' own test files (vendored, see README.md): they run in a subprocess through
# the upstream-suite shim (test_upstream_sample.py), never collected by this suite directly.
collect_ignore = ["tree"]
