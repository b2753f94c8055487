"""qdexplorer: explore, edit and time what Quadrants-style kernels compile to, task by task."""
from .early_signals import hold_early
from . import script_hooks
from .version import __version__  # noqa: F401 - the public version

hold_early()   # the command's SIGTERM status from its first moment, not only once its imports are done


_script_call: list = [None]


def _script():
    """The script layer, imported on the first `qd.init` or kernel call and not before."""
    # deliberate lazy load: qdexplorer.script loads the compiler, LLVM and the runtime, which `import qdexplorer`
    # (and so every command, worker and `import qdexplorer.lang as qd`) would pay for at the top
    from . import script
    return script


def _install_script_caller():
    """Let `import qdexplorer.lang as qd` call kernels without lang importing the engine.

    The hooks import `qdexplorer.script` only when a script first calls `qd.init` or a kernel,
    so importing the language stays cheap and free of LLVM and CUDA.
    """

    def init(arch, **options):
        return _script().init(arch, **options)

    def call(kernel, args):
        fn = _script_call[0]
        if fn is None:  # the first call imports the script layer; later ones go straight to it
            fn = _script_call[0] = _script().call_kernel
        return fn(kernel, args)

    def reset():
        return _script().reset()

    def adopt(storage):
        import sys
        script = sys.modules.get("qdexplorer.script")  # not loaded: qd.init never ran, nothing to adopt
        if script is not None:
            script.adopt(storage)

    def sync():
        import sys
        script = sys.modules.get("qdexplorer.script")  # not loaded: no kernel ran, nothing to wait for
        if script is not None:
            script.sync()

    script_hooks.install(init, call, reset, adopt, sync)


_install_script_caller()
