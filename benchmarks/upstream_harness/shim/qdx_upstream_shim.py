"""Stand-ins for the parts of Quadrants that its test harness (tests/test_utils.py, conftest.py)
and some tests reach into, for the upstream suite's runs under qdexplorer.lang.

The language's public module paths come from `qdexplorer.lang.compat.module_paths`; what is here are
Quadrants internals that only a test harness uses (`quadrants._lib.core`, `impl.current_cfg()`,
`misc.get_host_arch_list`, `_test_tools`), answered from qdexplorer's own state so the tests'
helpers work unchanged. Nothing here computes a test's result.
"""
import sys

_SUPPORTED_EXTENSIONS = {"data64", "sparse", "adstack", "assertion", "quant", "quant_basic"}


def _qd():
    import qdexplorer.lang as qd
    return qd


def _arch_name(a):
    return getattr(a, "name", a)


def _core():
    qd = _qd()
    by_name = {"x64": qd.cpu, "cpu": qd.cpu, "cuda": qd.cuda, "amdgpu": qd.amdgpu, "metal": qd.metal,
               "vulkan": qd.vulkan}

    def is_extension_supported(arch, ext):
        return arch == qd.cpu and getattr(ext, "name", ext) in _SUPPORTED_EXTENSIONS

    return {"arch_from_name": lambda n: by_name[n], "is_extension_supported": is_extension_supported,
            "get_max_num_indices": lambda: 12, "with_metal": lambda: False, "with_vulkan": lambda: False,
            "with_amdgpu": lambda: False, "with_cuda": lambda: False,
            "QuadrantsRuntimeError": qd.QuadrantsRuntimeError}


def _misc():
    qd = _qd()
    core = _core()

    def is_extension_supported(arch, ext):
        return core["is_extension_supported"](arch, ext)

    from qdexplorer.lang.intrinsics import loop_unique
    return {"get_host_arch_list": lambda: [qd.cpu], "is_arch_supported": lambda a: a == qd.cpu,
            "is_extension_supported": is_extension_supported, "loop_unique": loop_unique}


def _Cfg():
    from qdexplorer.lang.compat.config_view import cfg  # the language's own `qd.cfg`
    return cfg


class _Program:
    """`impl.get_runtime().prog`: what the Program reports of the latest call. qdexplorer builds no CUDA
    graphs on any backend, so its graph cache is always empty and never used."""

    @staticmethod
    def get_num_offloaded_tasks_on_last_call():
        from qdexplorer.lang.calls import runtime_api
        return runtime_api.last_call_tasks()

    @staticmethod
    def get_graph_cache_size():
        return 0

    @staticmethod
    def config():  # `prog.config().arch` (test_adstack): what impl.current_cfg() answers
        return _Cfg()

    @staticmethod
    def get_graph_cache_used_on_last_call():
        return False

    @staticmethod
    def get_graph_num_nodes_on_last_call():
        return 0


class _Runtime:
    prog = _Program()

    @staticmethod
    def get_num_compiled_functions():
        from qdexplorer.lang.calls import runtime_api
        return runtime_api.num_compiled()

    @staticmethod
    def _set_default(key, dt):  # `impl.get_runtime().default_ip = qd.u32`: what qd.init(default_ip=...) sets
        from qdexplorer.lang.calls import runtime_api
        runtime_api._config[key] = dt

    default_fp = property(lambda self: _Cfg().default_fp, lambda self, dt: self._set_default("default_fp", dt))
    default_ip = property(lambda self: _Cfg().default_ip, lambda self, dt: self._set_default("default_ip", dt))


def _impl():
    qd = _qd()
    return {"current_cfg": _Cfg, "get_runtime": _Runtime, "Kernel": qd.Kernel,
            "QuadrantsSyntaxError": qd.QuadrantsSyntaxError}


def _test_tools():
    qd = _qd()

    def qd_init_same_arch(**options):
        from qdexplorer.lang.calls import runtime_api
        qd.init(arch=runtime_api.current_arch(), **options)

    return {"qd_init_same_arch": qd_init_same_arch}


def _load_kernel_string():
    import linecache
    import types

    def load_kernel_from_string(source: str, name: str):
        mod = types.ModuleType(f"qdx_kernel_string_{abs(hash(source))}")
        filename = f"<kernel string {name}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), mod.__dict__)  # noqa: S102 - the test's own source
        return getattr(mod, name)

    return {"load_kernel_from_string": load_kernel_from_string}


def _kernel_types():
    from qdexplorer.lang.calls.launch_stats import KernelBatchedArgType
    return {"KernelBatchedArgType": KernelBatchedArgType}


def _tensor_internals():
    qd = _qd()

    from qdexplorer.lang.tensor import _with_layout

    return {"_with_layout": _with_layout, "Tensor": qd.Tensor, "Backend": qd.Backend, "tensor": qd.tensor}


HARNESS = {
    "quadrants._tensor": _tensor_internals,
    "quadrants.lang._kernel_types": _kernel_types,
    "quadrants._lib": lambda: {},
    "quadrants._lib.core": _core,
    "quadrants.lang.misc": _misc,
    "quadrants.lang.impl": _impl,
    "quadrants._test_tools": _test_tools,
    "quadrants._test_tools.load_kernel_string": _load_kernel_string,
}


def install():
    from qdexplorer.lang.compat.module_paths import alias_quadrants
    alias_quadrants(HARNESS)
    import quadrants.lang.impl  # noqa: F401 - upstream's approx() reads qd.lang.impl without importing it
    assert sys.modules["quadrants"].__name__ == "qdexplorer.lang"
