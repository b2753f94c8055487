"""An image-style pipeline on `qd.ndarray`s: allocate once, `from_numpy`, run kernels, `to_numpy`.

Shows: `qd.ndarray(dtype, shape)` and `qd.Vector.ndarray`, `qd.types.ndarray(dtype=qd.math.vec3,
ndim=2)` arguments, `x.shape` inside kernels, a 2-D `qd.ndrange` and `for I in qd.grouped(x)`,
`fill`, reading ndarray elements from Python, kernels returning a scalar and a vector, and
integer kernel arguments with defaults taken from Python.
"""
import numpy as np

import quadrants as qd

H, W = 24, 32

qd.init(arch=qd.cpu)


@qd.kernel
def to_gray(rgb: qd.types.ndarray(dtype=qd.math.vec3, ndim=2), gray: qd.types.ndarray(dtype=qd.f32, ndim=2)):
    for i, j in qd.ndrange(rgb.shape[0], rgb.shape[1]):
        gray[i, j] = rgb[i, j].dot(qd.math.vec3(0.299, 0.587, 0.114))


@qd.kernel
def blur3(src: qd.types.ndarray(dtype=qd.f32, ndim=2), dst: qd.types.ndarray(dtype=qd.f32, ndim=2)):
    for I in qd.grouped(src):
        acc = 0.0
        cnt = 0
        for di, dj in qd.ndrange((-1, 2), (-1, 2)):
            ii, jj = I[0] + di, I[1] + dj
            if 0 <= ii < src.shape[0] and 0 <= jj < src.shape[1]:
                acc += src[ii, jj]
                cnt += 1
        dst[I] = acc / cnt


@qd.kernel
def threshold(src: qd.types.ndarray(dtype=qd.f32, ndim=2), mask: qd.types.ndarray(dtype=qd.u8, ndim=2),
              t: qd.f32) -> qd.i32:
    count = 0
    for i, j in src:
        if src[i, j] > t:
            mask[i, j] = 1
            count += 1
        else:
            mask[i, j] = 0
    return count


@qd.kernel
def mean_color(rgb: qd.types.ndarray(dtype=qd.math.vec3, ndim=2)) -> qd.math.vec3:
    s = qd.math.vec3(0.0)
    for i, j in rgb:
        s += rgb[i, j]
    return s / (rgb.shape[0] * rgb.shape[1])


@qd.kernel
def tint(rgb: qd.types.ndarray(dtype=qd.math.vec3, ndim=2), c: qd.math.vec3):
    for i, j in rgb:
        rgb[i, j] = qd.math.clamp(rgb[i, j] * c, 0.0, 1.0)


def main():
    rng = np.random.default_rng(11)
    img = qd.Vector.ndarray(3, qd.f32, shape=(H, W))
    img.from_numpy(rng.uniform(0, 1, (H, W, 3)).astype(np.float32))
    gray = qd.ndarray(qd.f32, shape=(H, W))
    soft = qd.ndarray(qd.f32, (H, W))
    mask = qd.ndarray(qd.u8, (H, W))
    mask.fill(7)
    to_gray(img, gray)
    blur3(gray, soft)
    n = threshold(soft, mask, 0.5)
    mean = mean_color(img)
    tint(img, qd.math.vec3(1.5, 1.0, 0.5))
    mean_after = mean_color(img)
    return {"gray": gray.to_numpy(), "soft": soft.to_numpy(), "mask": mask.to_numpy(), "n": np.int32(n),
            "mean": np.array(mean, np.float32), "mean_after": np.array(mean_after, np.float32),
            "pixel": np.float32(soft[3, 4]), "img": img.to_numpy()}


if __name__ == "__main__":
    for k, val in main().items():
        print(k, np.asarray(val).ravel()[:6])
