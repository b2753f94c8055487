# corpus: imgproc_bilateral_grid
# source: github:taichi-dev/image-processing-with-taichi@c68af21ff66bd0ce9cf00eab4b9e6d2c69305417 bilateral_grid.py
# license: MIT
# area: image
# port: ti->qd; import taichi.math -> import quadrants.math; qd.init(arch=qd.cpu) keeping debug=True (was gpu); images/mountain.jpg (cv2.imread) replaced by a deterministic 240x320 numpy stand-in; the GUI loop (sliders at their initial values s_s=16, s_r=16, sigma_s=1, sigma_r=1) replaced by one pass of its body; set_image/show removed; checksum lines added
import quadrants as qd
import quadrants.math as tm
import numpy as np


def _stand_in_image(h, w):  # deterministic stand-in for images/mountain.jpg (cv2.imread: HxWx3 uint8, BGR)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    rng = np.random.RandomState(0)
    img = np.stack([128 + 100 * np.sin(xx / 9.0) * np.cos(yy / 13.0),
                    255 * (xx + yy) / (h + w),
                    np.where((xx // 16 + yy // 16) % 2 == 0, 200.0, 40.0)], axis=-1)
    img += rng.randint(-20, 21, size=img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)



qd.init(arch=qd.cpu, debug=True)

grid = qd.Vector.field(2, dtype=qd.f32, shape=(512, 512, 128))
grid_blurred = qd.Vector.field(2, dtype=qd.f32, shape=(512, 512, 128))
weights = qd.field(dtype=qd.f32, shape=(2, 512), offset=(0, -256))


@qd.func
def compute_weights(i, radius, sigma):
    total = 0.0

    # Not much computation here - serialize the for loop to save two more GPU kernel launch costs
    qd.loop_config(serialize=True)
    for j in range(-radius, radius + 1):
        # Drop the normal distribution constant coefficients since we need to normalize later anyway
        val = qd.exp(-0.5 * (j / sigma)**2)
        weights[i, j] = val
        total += val

    qd.loop_config(serialize=True)
    for j in range(-radius, radius + 1):
        weights[i, j] /= total


@qd.func
def sample_grid_spatial(i, j, k):
    g = qd.static(grid_blurred)  # Create an alias
    mix_i_0 = tm.mix(g[int(i), int(j), k], g[int(i) + 1, int(j), k],
                     tm.fract(i))
    mix_i_1 = tm.mix(g[int(i), int(j) + 1, k], g[int(i) + 1,
                                                 int(j) + 1, k], tm.fract(i))
    return tm.mix(mix_i_0, mix_i_1, tm.fract(j))


@qd.func
def sample_grid(i, j, k):
    return tm.mix(sample_grid_spatial(i, j, int(k)),
                  sample_grid_spatial(i, j,
                                      int(k) + 1), tm.fract(k))


@qd.kernel
def bilateral_filter(img: qd.types.ndarray(), s_s: qd.i32, s_r: qd.i32,
                     sigma_s: qd.f32, sigma_r: qd.f32):
    # Reset the grid
    grid.fill(0)
    grid_blurred.fill(0)
    for i, j in qd.ndrange(img.shape[0], img.shape[1]):
        lum = img[i, j]
        grid[qd.round(i / s_s, qd.i32),
             qd.round(j / s_s, qd.i32),
             qd.round(lum / s_r, qd.i32)] += tm.vec2(lum, 1)

    compute_weights(0, qd.ceil(sigma_s * 3, int), sigma_s)
    compute_weights(1, qd.ceil(sigma_r * 3, int), sigma_r)

    # Grid processing (blur)
    grid_n, grid_m = (img.shape[0] + s_s - 1) // s_s, (img.shape[1] + s_s -
                                                       1) // s_s
    grid_l = (255 + s_r - 1) // s_r
    blur_radius = qd.ceil(sigma_s * 3, int)

    # Since grids store affine attributes, no need to normalize in the following three loops (will normalize in slicing anyway)
    for i, j, k in qd.ndrange(grid_n, grid_m, grid_l):
        l_begin, l_end = qd.max(0, i - blur_radius), qd.min(grid_n,
                                                      i + blur_radius + 1)
        total = tm.vec2(0, 0)
        for l in range(l_begin, l_end):
            total += grid[l, j, k] * weights[0, i - l]

        grid_blurred[i, j, k] = total

    for i, j, k in qd.ndrange(grid_n, grid_m, grid_l):
        l_begin, l_end = qd.max(0, j - blur_radius), qd.min(grid_m,
                                                      j + blur_radius + 1)
        total = tm.vec2(0, 0)
        for l in range(l_begin, l_end):
            total += grid_blurred[i, l, k] * weights[0, j - l]

        grid[i, j, k] = total

    blur_radius = qd.ceil(sigma_r * 3, int)
    for i, j, k in qd.ndrange(grid_n, grid_m, grid_l):
        l_begin, l_end = qd.max(0, k - blur_radius), qd.min(grid_l,
                                                      k + blur_radius + 1)
        total = tm.vec2(0, 0)
        for l in range(l_begin, l_end):
            total += grid[i, j, l] * weights[1, k - l]

        grid_blurred[i, j, k] = total

    # Slicing
    for i, j in qd.ndrange(img.shape[0], img.shape[1]):
        lum = img[i, j]
        sample = sample_grid(i / s_s, j / s_s, lum / s_r)
        img[i, j] = qd.u8(sample[0] / sample[1])


src = _stand_in_image(240, 320)

gui_res = 512
s_s, sigma_s, s_r, sigma_r = 16, 1.0, 16, 1.0  # the sliders' initial values

for _frame in range(1):  # was: while gui.running
    img = src.copy()
    channels = [img[:, :, c].copy() for c in range(3)]
    for c in range(3):
        bilateral_filter(channels[c], int(s_s), int(s_r), sigma_s, sigma_r)
        img[:, :, c] = channels[c]
    img = img.swapaxes(0, 1)[:, ::-1, ::-1]
    img_padded = np.zeros(dtype=np.uint8, shape=(gui_res, gui_res, 3))
    img_padded[:img.shape[0], :img.shape[1]] = img
print('checksum img_sum', int(img_padded.astype(np.int64).sum()))
print('checksum img_sq_sum', int((img_padded.astype(np.int64) ** 2).sum()))
print('checksum img_px_0', int(img_padded[17, 23, 0]))
print('checksum img_px_1', int(img_padded[17, 23, 1]))
print('checksum img_px_2', int(img_padded[17, 23, 2]))
