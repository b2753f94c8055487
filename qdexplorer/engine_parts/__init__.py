"""The Engine's parts, one idea each: where tasks run (`device_place`), how kernels become compiled
tasks (`compile_step`), how a workload's launches are driven (`workload_run`) and what a compiled
task shows beyond its PTX (`task_code`). The Engine owns one of each and composes them; they hold
no reference to it, only the few things of it they need, so the Engine's state stays its own."""
