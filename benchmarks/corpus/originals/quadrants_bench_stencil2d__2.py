from time import perf_counter

import quadrants as qd


class End2EndTimer:
    def __init__(self):
        self._ts1 = 0
        self._ts2 = 0

    def tick(self):
        qd.sync()
        self._ts1 = perf_counter()
        return self._ts1

    def tock(self):
        qd.sync()
        self._ts2 = perf_counter()
        return self._ts2 - self._ts1


def size2tag(size_in_byte):
    size_subsection = [
        (0.0, "B"),
        (1024.0, "KB"),
        (1048576.0, "MB"),
        (1073741824.0, "GB"),
        (float("inf"), "INF"),
    ]  # B KB MB GB
    for dsize, unit in reversed(size_subsection):
        if size_in_byte >= dsize:
            return str(int(size_in_byte / dsize)) + unit


def tags2name(tag_list):
    return "_".join(tag_list)


def dtype_size(qd_dtype):
    dtype_size_dict = {qd.i32: 4, qd.i64: 8, qd.f32: 4, qd.f64: 8}
    if qd_dtype not in dtype_size_dict:
        raise RuntimeError("Unsupported qd.dtype: " + str(type(qd_dtype)))
    else:
        return dtype_size_dict[qd_dtype]


def get_qd_arch(arch: str):
    arch_dict = {
        "cuda": qd.cuda,
        "vulkan": qd.vulkan,
        "opengl": qd.opengl,
        "metal": qd.metal,
        "x64": qd.x64,
        "cc": qd.cc,
    }
    return arch_dict[arch]


def scaled_repeat_times(arch: str, datasize, repeat=1):
    if (arch == "cuda") | (arch == "vulkan") | (arch == "opengl"):
        repeat *= 10
    if datasize <= 4 * 1024 * 1024:
        repeat *= 10
    return repeat


def fill_random(dst, dtype, container):
    @qd.kernel
    def fill_template(dst: qd.template()):
        for I in qd.grouped(dst):
            dst[I] = qd.random(dtype)

    @qd.kernel
    def fill_1d_array(dst: qd.types.ndarray()):
        for i in dst:
            dst[i] = qd.random(dtype)

    @qd.kernel
    def fill_2d_array(dst: qd.types.ndarray()):
        for i, j in dst:
            dst[i, j] = qd.random(dtype)

    if container == qd.ndarray:
        if len(dst.shape) == 1:
            fill_1d_array(dst)
        elif len(dst.shape) == 2:
            fill_2d_array(dst)
    else:
        fill_template(dst)
