"""What the compiler and the device both stand on, below either of them.

The launch record a compile hands to a device (`launch_spec`), the default SM arch (`arch`),
LLVM's binding set up once (`llvm_binding`), and the rule that helper processes (compile-pool
workers, the device worker) die with their parent (`orphan_guard`). Nothing here imports the
compiler, the runtime or the language, so a device worker needs neither the project nor LLVM's
code generator to read a LaunchSpec.
"""
