# Quadrants' tests/python/conftest.py (Genesis-Embodied-AI/quadrants, commit 009f0a2d, Apache-2.0),
# as benchmarks/upstream_suite.py installs it: its fixtures unchanged (offline cache directory,
# gc after each test, `wanted_arch`, `temporary_module`, `pytest_generate_tests`); left out are the
# Vulkan warm-up and the hooks that kill an xdist worker after every failure to reset GPU state
# (on the CPU they only cost a worker restart per failing case).
import gc
import importlib
import os
import sys

import pytest

import quadrants as qd


@pytest.fixture(scope="session", autouse=True)
def _offline_cache_dir(tmp_path_factory):
    cache_dir = tmp_path_factory.mktemp("qdcache")
    os.environ["QD_OFFLINE_CACHE"] = "1"
    os.environ["QD_OFFLINE_CACHE_FILE_PATH"] = str(cache_dir)
    os.environ.setdefault("QD_OFFLINE_CACHE_CLEANING_POLICY", "never")


@pytest.fixture(autouse=True)
def run_gc_after_test():
    yield
    gc.collect()
    gc.collect()


@pytest.fixture(autouse=True)
def wanted_arch(request, req_arch, req_options):
    if req_arch is not None:
        if req_arch in (qd.cuda, qd.amdgpu):
            if not request.node.get_closest_marker("run_in_serial"):
                req_options = {"device_memory_GB": 0.3, **req_options}
                if req_arch == qd.cuda:
                    req_options = {"cuda_stack_limit": 1024, **req_options}
            else:
                req_options = {"device_memory_GB": 1, **req_options}
        if "print_full_traceback" not in req_options:
            req_options["print_full_traceback"] = True
        qd.init(arch=req_arch, enable_fallback=False, **req_options)
    yield
    if req_arch is not None:
        qd.reset()


def pytest_generate_tests(metafunc):
    if not getattr(metafunc.function, "__qd_test__", False):
        metafunc.parametrize("req_arch,req_options", [(None, None)], ids=["none"])


@pytest.fixture
def temporary_module():
    modules_to_delete = []

    def _import(module_name):
        assert module_name not in sys.modules
        mod = importlib.import_module(module_name)
        modules_to_delete.append(module_name)
        return mod

    yield _import

    for name in modules_to_delete:
        del sys.modules[name]
