# corpus: imgproc_gaussian_filter
# source: github:taichi-dev/image-processing-with-taichi@c68af21ff66bd0ce9cf00eab4b9e6d2c69305417 gaussian_filter_separate.py
# license: MIT
# area: image
# port: ti->qd; import taichi.math -> import quadrants.math; qd.init(arch=qd.cpu) (was gpu); images/mountain.jpg (cv2.imread) replaced by a deterministic 240x320 numpy stand-in (uint8, 3 channels); cv2.imshow/waitKey removed; checksum lines added
import numpy as np


def _stand_in_image(h, w):  # deterministic stand-in for images/mountain.jpg (cv2.imread: HxWx3 uint8, BGR)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    rng = np.random.RandomState(0)
    img = np.stack([128 + 100 * np.sin(xx / 9.0) * np.cos(yy / 13.0),
                    255 * (xx + yy) / (h + w),
                    np.where((xx // 16 + yy // 16) % 2 == 0, 200.0, 40.0)], axis=-1)
    img += rng.randint(-20, 21, size=img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


import quadrants as qd
import quadrants.math as tm

qd.init(arch=qd.cpu)

img_blurred = qd.Vector.field(3, dtype=qd.u8, shape=(1024, 1024))
weights = qd.field(dtype=qd.f32, shape=1024, offset=-512)

img2d = qd.types.ndarray(element_dim=1)


@qd.func
def compute_weights(radius, sigma):
    total = 0.0

    # Not much computation here - serialize the for loop to save two more GPU kernel launch costs
    qd.loop_config(serialize=True)
    for i in range(-radius, radius + 1):
        # Drop the normal distribution constant coefficients since we need to normalize later anyway
        val = qd.exp(-0.5 * (i / sigma)**2)
        weights[i] = val
        total += val

    qd.loop_config(serialize=True)
    for i in range(-radius, radius + 1):
        weights[i] /= total


@qd.kernel
def gaussian_blur(img: img2d, sigma: qd.f32):
    img_blurred.fill(0)
    n, m = img.shape[0], img.shape[1]

    blur_radius = qd.ceil(sigma * 3, int)
    compute_weights(blur_radius, sigma)

    for i, j in qd.ndrange(n, m):
        l_begin, l_end = qd.max(0, i - blur_radius), qd.min(n, i + blur_radius + 1)
        total_rgb = tm.vec3(0.0)
        total_weight = 0.0
        for l in range(l_begin, l_end):
            w = weights[i - l]
            total_rgb += img[l, j] * w
            total_weight += w

        img_blurred[i, j] = (total_rgb / total_weight).cast(qd.u8)

    for i, j in qd.ndrange(n, m):
        l_begin, l_end = qd.max(0, j - blur_radius), qd.min(m, j + blur_radius + 1)
        total_rgb = tm.vec3(0.0)
        total_weight = 0.0
        for l in range(l_begin, l_end):
            w = weights[j - l]
            total_rgb += img_blurred[i, l] * w
            total_weight += w

        img[i, j] = (total_rgb / total_weight).cast(qd.u8)


img = _stand_in_image(240, 320)
gaussian_blur(img, 10)
print('checksum img_sum', int(img.astype(np.int64).sum()))
print('checksum img_sq_sum', int((img.astype(np.int64) ** 2).sum()))
print('checksum img_px_0', int(img[17, 23, 0]))
print('checksum img_px_1', int(img[17, 23, 1]))
print('checksum img_px_2', int(img[17, 23, 2]))
