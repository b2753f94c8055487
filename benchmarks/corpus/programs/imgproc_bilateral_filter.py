# corpus: imgproc_bilateral_filter
# source: github:taichi-dev/image-processing-with-taichi@c68af21ff66bd0ce9cf00eab4b9e6d2c69305417 bilateral_filter.py
# license: MIT
# area: image
# port: ti->qd; import taichi.math -> import quadrants.math; qd.init(arch=qd.cpu) keeping debug=True (was gpu); images/happy_face.png (cv2.imread) replaced by a deterministic 96x128 numpy stand-in (uint8, 3 channels); cv2.imshow/waitKey removed; checksum lines added
import numpy as np


def _stand_in_image(h, w):  # deterministic stand-in for images/happy_face.png (cv2.imread: HxWx3 uint8, BGR)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    rng = np.random.RandomState(0)
    img = np.stack([128 + 100 * np.sin(xx / 9.0) * np.cos(yy / 13.0),
                    255 * (xx + yy) / (h + w),
                    np.where((xx // 16 + yy // 16) % 2 == 0, 200.0, 40.0)], axis=-1)
    img += rng.randint(-20, 21, size=img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


import quadrants as qd
import quadrants.math as tm

qd.init(arch=qd.cpu, debug=True)

img_filtered = qd.Vector.field(3, dtype=qd.u8, shape=(1024, 1024))

img2d = qd.types.ndarray(element_dim=1)


@qd.kernel
def bilateral_filter(img: img2d, sigma_s: qd.f32, sigma_r: qd.f32):
    n, m = img.shape[0], img.shape[1]

    blur_radius_s = qd.ceil(sigma_s * 3, int)

    for i, j in qd.ndrange(n, m):
        k_begin, k_end = qd.max(0,
                             i - blur_radius_s), qd.min(n, i + blur_radius_s + 1)
        l_begin, l_end = qd.max(0,
                             j - blur_radius_s), qd.min(m, j + blur_radius_s + 1)

        total_rgb = tm.vec3(0.0)
        total_weight = 0.0
        for k, l in qd.ndrange((k_begin, k_end), (l_begin, l_end)):
            dist = ((i - k)**2 + (j - l)**2) / sigma_s**2
            # No need to compute Gaussian coeffs here since we normalize in the end anyway
            w = qd.exp(-0.5 * dist)
            total_rgb += img[k, l] * w
            total_weight += w

        img_filtered[i, j] = (total_rgb / total_weight).cast(qd.u8)

    for i, j in qd.ndrange(n, m):
        img[i, j] = img_filtered[i, j]


img = _stand_in_image(96, 128)
bilateral_filter(img, 6, 30)
print('checksum img_sum', int(img.astype(np.int64).sum()))
print('checksum img_sq_sum', int((img.astype(np.int64) ** 2).sum()))
print('checksum img_px_0', int(img[17, 23, 0]))
print('checksum img_px_1', int(img[17, 23, 1]))
print('checksum img_px_2', int(img[17, 23, 2]))
