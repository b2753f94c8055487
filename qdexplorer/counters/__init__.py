"""Hardware counters per task: why a task is fast or slow, beside the PTX that can be edited.

One task, one launch, in a child process under Nsight Compute (`ncu`): `probe` says whether
counters can be had here at all (and why not), `command` builds and runs ncu, `child` is the
profiled process (the device worker's own load-and-launch path), `report` reads the report
into a `TaskCounters' record with Nsight Compute's own reader (`ncu-report`, the optional
`[counters]` extra), `diff` compares two records, `advice` names the likely limiter, and
`model` gives what needs no counters (registers, spills, occupancy, a model roofline).
"""
