"""A kernel's source turned into offloaded tasks: the parsed `def`, its top level expanded, the tasks
split by Quadrants' rule, quantized stores lowered, and each task's fingerprint for the caches."""
