# corpus: voxel_example1
# source: github:taichi-dev/voxel-challenge@94c28c8c37d6ff1547daf47becf9731be41dc2e5 example1.py
# license: NOASSERTION
# area: raytracing
# port: ti->qd (taichi.math -> quadrants.math); math_utils.py, renderer.py, scene.py inlined before example1.py (their cross-imports and 'import __main__' dropped); Scene: qd.init(arch=qd.cpu, cpu_max_num_threads=1) (was vulkan; one thread so qd.random() in the renderer and in initialize_voxels is the same run to run), SCREEN_RES 1280x720 -> 160x90, qd.ui.Window replaced by a no-op stub, the screenshot folder not created, finish()'s interactive loop (camera input, adaptive spp from wall-clock, screenshots, display) replaced by 3 frames of 2 samples each and checksum lines; in example1's initialize_voxels the two qd.random() calls read a numpy-seeded field _init_rand[i, j, 0/1] instead (the scene must not depend on the random stream); the image checksums are means (the renderer draws qd.random() throughout and ours draws a different qd.random() sequence by design (docs/language.md 'Random numbers'))
# tolerance: rtol=3e-2 atol=1e-6    -- statistical checksums (image means of a Monte Carlo render, 6 samples per pixel): ours draws a different qd.random() sequence by design (docs/language.md 'Random numbers')
# ===== inlined: math_utils.py =====
import math
import quadrants as qd
import numpy as np

eps = 1e-4
inf = 1e10


@qd.func
def out_dir(n):
    u = qd.Vector([1.0, 0.0, 0.0])
    if qd.abs(n[1]) < 1 - 1e-3:
        u = n.cross(qd.Vector([0.0, 1.0, 0.0])).normalized()
    v = n.cross(u)
    phi = 2 * math.pi * qd.random(qd.f32)
    r = qd.random(qd.f32)
    ay = qd.sqrt(r)
    ax = qd.sqrt(1 - r)
    return ax * (qd.cos(phi) * u + qd.sin(phi) * v) + ay * n


@qd.func
def ray_aabb_intersection(box_min, box_max, o, d):
    intersect = 1

    near_int = -inf
    far_int = inf

    for i in qd.static(range(3)):
        if d[i] == 0:
            if o[i] < box_min[i] or o[i] > box_max[i]:
                intersect = 0
        else:
            i1 = (box_min[i] - o[i]) / d[i]
            i2 = (box_max[i] - o[i]) / d[i]

            new_far_int = qd.max(i1, i2)
            new_near_int = qd.min(i1, i2)

            far_int = qd.min(new_far_int, far_int)
            near_int = qd.max(new_near_int, near_int)

    if near_int > far_int:
        intersect = 0
    return intersect, near_int, far_int


def np_normalize(v):
    # https://stackoverflow.com/a/51512965/12003165
    return v / np.sqrt(np.sum(v**2))


def np_rotate_matrix(axis, theta):
    """
    Return the rotation matrix associated with counterclockwise rotation about
    the given axis by theta radians.
    """
    # https://stackoverflow.com/a/6802723/12003165
    axis = np_normalize(axis)
    a = math.cos(theta / 2.0)
    b, c, d = -axis * math.sin(theta / 2.0)
    aa, bb, cc, dd = a * a, b * b, c * c, d * d
    bc, ad, ac, ab, bd, cd = b * c, a * d, a * c, a * b, b * d, c * d
    return np.array([[aa + bb - cc - dd, 2 * (bc + ad), 2 * (bd - ac), 0],
                     [2 * (bc - ad), aa + cc - bb - dd, 2 * (cd + ab), 0],
                     [2 * (bd + ac), 2 * (cd - ab), aa + dd - bb - cc, 0],
                     [0, 0, 0, 1]])

# ===== inlined: renderer.py =====
import quadrants as qd


MAX_RAY_DEPTH = 4
use_directional_light = True

DIS_LIMIT = 100


@qd.data_oriented
class Renderer:
    def __init__(self, dx, image_res, up, voxel_edges, exposure=3):
        self.image_res = image_res
        self.aspect_ratio = image_res[0] / image_res[1]
        self.vignette_strength = 0.9
        self.vignette_radius = 0.0
        self.vignette_center = [0.5, 0.5]
        self.current_spp = 0

        self.color_buffer = qd.Vector.field(3, dtype=qd.f32)
        self.bbox = qd.Vector.field(3, dtype=qd.f32, shape=2)
        self.fov = qd.field(dtype=qd.f32, shape=())
        self.voxel_color = qd.Vector.field(3, dtype=qd.u8)
        self.voxel_material = qd.field(dtype=qd.i8)

        self.light_direction = qd.Vector.field(3, dtype=qd.f32, shape=())
        self.light_direction_noise = qd.field(dtype=qd.f32, shape=())
        self.light_color = qd.Vector.field(3, dtype=qd.f32, shape=())

        self.cast_voxel_hit = qd.field(qd.i32, shape=())
        self.cast_voxel_index = qd.Vector.field(3, qd.i32, shape=())

        self.voxel_edges = voxel_edges
        self.exposure = exposure

        self.camera_pos = qd.Vector.field(3, dtype=qd.f32, shape=())
        self.look_at = qd.Vector.field(3, dtype=qd.f32, shape=())
        self.up = qd.Vector.field(3, dtype=qd.f32, shape=())

        self.floor_height = qd.field(dtype=qd.f32, shape=())
        self.floor_color = qd.Vector.field(3, dtype=qd.f32, shape=())

        self.background_color = qd.Vector.field(3, dtype=qd.f32, shape=())

        self.voxel_dx = dx
        self.voxel_inv_dx = 1 / dx
        # Note that voxel_inv_dx == voxel_grid_res iff the box has width = 1
        self.voxel_grid_res = 128
        voxel_grid_offset = [-self.voxel_grid_res // 2 for _ in range(3)]

        qd.root.dense(qd.ij, image_res).place(self.color_buffer)
        qd.root.dense(qd.ijk,
                      self.voxel_grid_res).place(self.voxel_color,
                                                 self.voxel_material,
                                                 offset=voxel_grid_offset)

        self._rendered_image = qd.Vector.field(3, float, image_res)
        self.set_up(*up)
        self.set_fov(0.23)

        self.floor_height[None] = 0
        self.floor_color[None] = (1, 1, 1)

    def set_directional_light(self, direction, light_direction_noise,
                              light_color):
        direction_norm = (direction[0]**2 + direction[1]**2 +
                          direction[2]**2)**0.5
        self.light_direction[None] = (direction[0] / direction_norm,
                                      direction[1] / direction_norm,
                                      direction[2] / direction_norm)
        self.light_direction_noise[None] = light_direction_noise
        self.light_color[None] = light_color

    @qd.func
    def inside_grid(self, ipos):
        return ipos.min() >= -self.voxel_grid_res // 2 and ipos.max(
        ) < self.voxel_grid_res // 2

    @qd.func
    def query_density(self, ipos):
        inside = self.inside_grid(ipos)
        ret = 0.0
        if inside:
            ret = self.voxel_material[ipos]
        else:
            ret = 0.0
        return ret

    @qd.func
    def _to_voxel_index(self, pos):
        p = pos * self.voxel_inv_dx
        voxel_index = qd.floor(p).cast(qd.i32)
        return voxel_index

    @qd.func
    def voxel_surface_color(self, pos):
        p = pos * self.voxel_inv_dx
        p -= qd.floor(p)
        voxel_index = self._to_voxel_index(pos)

        boundary = self.voxel_edges
        count = 0
        for i in qd.static(range(3)):
            if p[i] < boundary or p[i] > 1 - boundary:
                count += 1

        f = 0.0
        if count >= 2:
            f = 1.0

        voxel_color = qd.Vector([0.0, 0.0, 0.0])
        is_light = 0
        if self.inside_particle_grid(voxel_index):
            voxel_color = self.voxel_color[voxel_index] * (1.0 / 255)
            if self.voxel_material[voxel_index] == 2:
                is_light = 1

        return voxel_color * (1.3 - 1.2 * f), is_light

    @qd.func
    def ray_march(self, p, d):
        dist = inf
        if d[1] < -eps:
            dist = (self.floor_height[None] - p[1]) / d[1]
        return dist

    @qd.func
    def sdf_normal(self, p):
        return qd.Vector([0.0, 1.0, 0.0])  # up

    @qd.func
    def sdf_color(self, p):
        return self.floor_color[None]

    @qd.func
    def dda_voxel(self, eye_pos, d):
        for i in qd.static(range(3)):
            if abs(d[i]) < 1e-6:
                d[i] = 1e-6
        rinv = 1.0 / d
        rsign = qd.Vector([0, 0, 0])
        for i in qd.static(range(3)):
            if d[i] > 0:
                rsign[i] = 1
            else:
                rsign[i] = -1

        bbox_min = self.bbox[0]
        bbox_max = self.bbox[1]
        inter, near, far = ray_aabb_intersection(bbox_min, bbox_max, eye_pos,
                                                 d)
        hit_distance = inf
        hit_light = 0
        normal = qd.Vector([0.0, 0.0, 0.0])
        c = qd.Vector([0.0, 0.0, 0.0])
        voxel_index = qd.Vector([0, 0, 0])
        if inter:
            near = max(0, near)

            pos = eye_pos + d * (near + 5 * eps)

            o = self.voxel_inv_dx * pos
            ipos = int(qd.floor(o))
            dis = (ipos - o + 0.5 + rsign * 0.5) * rinv
            running = 1
            i = 0
            hit_pos = qd.Vector([0.0, 0.0, 0.0])
            while running:
                last_sample = int(self.query_density(ipos))
                if not self.inside_particle_grid(ipos):
                    running = 0

                if last_sample:
                    mini = (ipos - o + qd.Vector([0.5, 0.5, 0.5]) -
                            rsign * 0.5) * rinv
                    hit_distance = mini.max() * self.voxel_dx + near
                    hit_pos = eye_pos + (hit_distance + 1e-3) * d
                    voxel_index = self._to_voxel_index(hit_pos)
                    c, hit_light = self.voxel_surface_color(hit_pos)
                    running = 0
                else:
                    mm = qd.Vector([0, 0, 0])
                    if dis[0] <= dis[1] and dis[0] < dis[2]:
                        mm[0] = 1
                    elif dis[1] <= dis[0] and dis[1] <= dis[2]:
                        mm[1] = 1
                    else:
                        mm[2] = 1
                    dis += mm * rsign * rinv
                    ipos += mm * rsign
                    normal = -mm * rsign
                i += 1
        return hit_distance, normal, c, hit_light, voxel_index

    @qd.func
    def inside_particle_grid(self, ipos):
        pos = ipos * self.voxel_dx
        return self.bbox[0][0] <= pos[0] and pos[0] < self.bbox[1][
            0] and self.bbox[0][1] <= pos[1] and pos[1] < self.bbox[1][
                1] and self.bbox[0][2] <= pos[2] and pos[2] < self.bbox[1][2]

    @qd.func
    def next_hit(self, pos, d, t):
        closest = inf
        normal = qd.Vector([0.0, 0.0, 0.0])
        c = qd.Vector([0.0, 0.0, 0.0])
        hit_light = 0
        closest, normal, c, hit_light, vx_idx = self.dda_voxel(pos, d)

        ray_march_dist = self.ray_march(pos, d)
        if ray_march_dist < DIS_LIMIT and ray_march_dist < closest:
            closest = ray_march_dist
            normal = self.sdf_normal(pos + d * closest)
            c = self.sdf_color(pos + d * closest)

        # Highlight the selected voxel
        if self.cast_voxel_hit[None]:
            cast_vx_idx = self.cast_voxel_index[None]
            if all(cast_vx_idx == vx_idx):
                c = qd.Vector([1.0, 0.65, 0.0])
                # For light sources, we actually invert the material to make it
                # more obvious
                hit_light = 1 - hit_light
        return closest, normal, c, hit_light

    @qd.kernel
    def set_camera_pos(self, x: qd.f32, y: qd.f32, z: qd.f32):
        self.camera_pos[None] = qd.Vector([x, y, z])

    @qd.kernel
    def set_up(self, x: qd.f32, y: qd.f32, z: qd.f32):
        self.up[None] = qd.Vector([x, y, z]).normalized()

    @qd.kernel
    def set_look_at(self, x: qd.f32, y: qd.f32, z: qd.f32):
        self.look_at[None] = qd.Vector([x, y, z])

    @qd.kernel
    def set_fov(self, fov: qd.f32):
        self.fov[None] = fov

    @qd.func
    def get_cast_dir(self, u, v):
        fov = self.fov[None]
        d = (self.look_at[None] - self.camera_pos[None]).normalized()
        fu = (2 * fov * (u + qd.random(qd.f32)) / self.image_res[1] -
              fov * self.aspect_ratio - 1e-5)
        fv = 2 * fov * (v + qd.random(qd.f32)) / self.image_res[1] - fov - 1e-5
        du = d.cross(self.up[None]).normalized()
        dv = du.cross(d).normalized()
        d = (d + fu * du + fv * dv).normalized()
        return d

    @qd.kernel
    def render(self):
        qd.loop_config(block_dim=256)
        for u, v in self.color_buffer:
            d = self.get_cast_dir(u, v)
            pos = self.camera_pos[None]
            t = 0.0

            contrib = qd.Vector([0.0, 0.0, 0.0])
            throughput = qd.Vector([1.0, 1.0, 1.0])
            c = qd.Vector([1.0, 1.0, 1.0])

            depth = 0
            hit_light = 0
            hit_background = 0

            # Tracing begin
            for bounce in range(MAX_RAY_DEPTH):
                depth += 1
                closest, normal, c, hit_light = self.next_hit(pos, d, t)
                hit_pos = pos + closest * d
                if not hit_light and normal.norm() != 0 and closest < 1e8:
                    d = out_dir(normal)
                    pos = hit_pos + 1e-4 * d
                    throughput *= c

                    if qd.static(use_directional_light):
                        dir_noise = qd.Vector([
                            qd.random() - 0.5,
                            qd.random() - 0.5,
                            qd.random() - 0.5
                        ]) * self.light_direction_noise[None]
                        light_dir = (self.light_direction[None] +
                                     dir_noise).normalized()
                        dot = light_dir.dot(normal)
                        if dot > 0:
                            hit_light_ = 0
                            dist, _, _, hit_light_ = self.next_hit(
                                pos, light_dir, t)
                            if dist > DIS_LIMIT:
                                # far enough to hit directional light
                                contrib += throughput * \
                                    self.light_color[None] * dot
                else:  # hit background or light voxel, terminate tracing
                    hit_background = 1
                    break

                # Russian roulette
                max_c = throughput.max()
                if qd.random() > max_c:
                    throughput = [0, 0, 0]
                    break
                else:
                    throughput /= max_c
            # Tracing end

            if hit_light:
                contrib += throughput * c
            else:
                if depth == 1 and hit_background:
                    # Direct hit to background
                    contrib = self.background_color[None]
            self.color_buffer[u, v] += contrib

    @qd.kernel
    def _render_to_image(self, samples: qd.i32):
        for i, j in self.color_buffer:
            u = 1.0 * i / self.image_res[0]
            v = 1.0 * j / self.image_res[1]

            darken = 1.0 - self.vignette_strength * max((qd.sqrt(
                (u - self.vignette_center[0])**2 +
                (v - self.vignette_center[1])**2) - self.vignette_radius), 0)

            for c in qd.static(range(3)):
                self._rendered_image[i, j][c] = qd.sqrt(
                    self.color_buffer[i, j][c] * darken * self.exposure /
                    samples)

    @qd.kernel
    def recompute_bbox(self):
        for d in qd.static(range(3)):
            self.bbox[0][d] = 1e9
            self.bbox[1][d] = -1e9
        for I in qd.grouped(self.voxel_material):
            if self.voxel_material[I] != 0:
                for d in qd.static(range(3)):
                    qd.atomic_min(self.bbox[0][d], (I[d] - 1) * self.voxel_dx)
                    qd.atomic_max(self.bbox[1][d], (I[d] + 2) * self.voxel_dx)

    def reset_framebuffer(self):
        self.current_spp = 0
        self.color_buffer.fill(0)

    def accumulate(self):
        self.render()
        self.current_spp += 1

    def fetch_image(self):
        self._render_to_image(self.current_spp)
        return self._rendered_image

    @staticmethod
    @qd.func
    def to_vec3u(c):
        c = qd.math.clamp(c, 0.0, 1.0)
        r = qd.Vector([qd.u8(0), qd.u8(0), qd.u8(0)])
        for i in qd.static(range(3)):
            r[i] = qd.cast(c[i] * 255, qd.u8)
        return r

    @staticmethod
    @qd.func
    def to_vec3(c):
        r = qd.Vector([0.0, 0.0, 0.0])
        for i in qd.static(range(3)):
            r[i] = qd.cast(c[i], qd.f32) / 255.0
        return r

    @qd.func
    def set_voxel(self, idx, mat, color):
        self.voxel_material[idx] = qd.cast(mat, qd.i8)
        self.voxel_color[idx] = self.to_vec3u(color)

    @qd.func
    def get_voxel(self, ijk):
        mat = self.voxel_material[ijk]
        color = self.voxel_color[ijk]
        return mat, self.to_vec3(color)

# ===== inlined: scene.py =====
import time
import os
from datetime import datetime
import numpy as np
import quadrants as qd


class _GUIStub:  # stand-in for qd.GUI: drawing is ignored

    running = True

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _rgb_to_hex(c):  # stand-in for ti.rgb_to_hex (GUI colours only)
    return 0



VOXEL_DX = 1 / 64
SCREEN_RES = (160, 90)
TARGET_FPS = 30
UP_DIR = (0, 1, 0)
HELP_MSG = '''
====================================================
Camera:
* Drag with your left mouse button to rotate
* Press W/A/S/D/Q/E to move
====================================================
'''

MAT_LAMBERTIAN = 1
MAT_LIGHT = 2

class Camera:
    def __init__(self, window, up):
        self._window = window
        self._camera_pos = np.array((0.4, 0.5, 2.0))
        self._lookat_pos = np.array((0.0, 0.0, 0.0))
        self._up = np_normalize(np.array(up))
        self._last_mouse_pos = None

    @property
    def mouse_exclusive_owner(self):
        return True

    def update_camera(self):
        res = self._update_by_wasd()
        res = self._update_by_mouse() or res
        return res

    def _update_by_mouse(self):
        win = self._window
        if not self.mouse_exclusive_owner or not win.is_pressed(qd.ui.LMB):
            self._last_mouse_pos = None
            return False
        mouse_pos = np.array(win.get_cursor_pos())
        if self._last_mouse_pos is None:
            self._last_mouse_pos = mouse_pos
            return False
        # Makes camera rotation feels right
        dx, dy = self._last_mouse_pos - mouse_pos
        self._last_mouse_pos = mouse_pos

        out_dir = self._lookat_pos - self._camera_pos
        leftdir = self._compute_left_dir(np_normalize(out_dir))

        scale = 3
        rotx = np_rotate_matrix(self._up, dx * scale)
        roty = np_rotate_matrix(leftdir, dy * scale)

        out_dir_homo = np.array(list(out_dir) + [0.0])
        new_out_dir = np.matmul(np.matmul(roty, rotx), out_dir_homo)[:3]
        self._lookat_pos = self._camera_pos + new_out_dir

        return True

    def _update_by_wasd(self):
        win = self._window
        tgtdir = self.target_dir
        leftdir = self._compute_left_dir(tgtdir)
        lut = [
            ('w', tgtdir),
            ('a', leftdir),
            ('s', -tgtdir),
            ('d', -leftdir),
            ('e', [0, -1, 0]),
            ('q', [0, 1, 0]),
        ]
        dir = np.array([0.0, 0.0, 0.0])
        pressed = False
        for key, d in lut:
            if win.is_pressed(key):
                pressed = True
                dir += np.array(d)
        if not pressed:
            return False
        dir *= 0.05
        self._lookat_pos += dir
        self._camera_pos += dir
        return True

    @property
    def position(self):
        return self._camera_pos

    @property
    def look_at(self):
        return self._lookat_pos

    @property
    def target_dir(self):
        return np_normalize(self.look_at - self.position)

    def _compute_left_dir(self, tgtdir):
        cos = np.dot(self._up, tgtdir)
        if abs(cos) > 0.999:
            return np.array([-1.0, 0.0, 0.0])
        return np.cross(self._up, tgtdir)


class Scene:
    def __init__(self, voxel_edges=0.06, exposure=3):
        qd.init(arch=qd.cpu, cpu_max_num_threads=1)
        print(HELP_MSG)
        self.window = _GUIStub()  # was qd.ui.Window("Taichi Voxel Renderer", SCREEN_RES, vsync=True)
        self.camera = Camera(self.window, up=UP_DIR)
        self.renderer = Renderer(dx=VOXEL_DX,
                                 image_res=SCREEN_RES,
                                 up=UP_DIR,
                                 voxel_edges=voxel_edges,
                                 exposure=exposure)

        self.renderer.set_camera_pos(*self.camera.position)

    @staticmethod
    @qd.func
    def round_idx(idx_):
        idx = qd.cast(idx_, qd.f32)
        return qd.Vector(
            [qd.round(idx[0]),
             qd.round(idx[1]),
             qd.round(idx[2])]).cast(qd.i32)

    @qd.func
    def set_voxel(self, idx, mat, color):
        self.renderer.set_voxel(self.round_idx(idx), mat, color)

    @qd.func
    def get_voxel(self, idx):
        mat, color = self.renderer.get_voxel(self.round_idx(idx))
        return mat, color

    def set_floor(self, height, color):
        self.renderer.floor_height[None] = height
        self.renderer.floor_color[None] = color

    def set_directional_light(self, direction, direction_noise, color):
        self.renderer.set_directional_light(direction, direction_noise, color)

    def set_background_color(self, color):
        self.renderer.background_color[None] = color

    def finish(self):
        self.renderer.recompute_bbox()
        spp = 2  # fixed (was adapted to the wall-clock frame time)
        for frame in range(3):  # was: while self.window.running (camera input, screenshots, display removed)
            for _ in range(spp):
                self.renderer.accumulate()
            img = self.renderer.fetch_image()
        img = img.to_numpy()
        print('checksum img_mean', repr(float(img.astype(np.float64).mean())))
        for c in range(3):
            print('checksum img_mean_%d' % c, repr(float(img[..., c].astype(np.float64).mean())))
        print('checksum voxel_material_sum', int(self.renderer.voxel_material.to_numpy().astype(np.int64).sum()))

# ===== inlined: example1.py =====
import quadrants as qd
from quadrants.math import *
import numpy as np

scene = Scene(exposure=10)
scene.set_floor(-0.05, (1.0, 1.0, 1.0))


# stand-in for the two qd.random() draws per cell of initialize_voxels (ours draws another sequence by design)
_init_rand = qd.field(qd.f32, shape=(50, 50, 2))
_init_rand.from_numpy(np.random.RandomState(0).rand(50, 50, 2).astype(np.float32))


@qd.kernel
def initialize_voxels():
    n = 50
    for i, j in qd.ndrange(n, n):
        if min(i, j) == 0 or max(i, j) == n - 1:
            scene.set_voxel(vec3(i, 0, j), 2, vec3(0.9, 0.1, 0.1))
        else:
            scene.set_voxel(vec3(i, 0, j), 1, vec3(0.9, 0.1, 0.1))

            if _init_rand[i, j, 0] < 0.04:
                height = int(_init_rand[i, j, 1] * 20)

                for k in range(1, height):
                    scene.set_voxel(vec3(i, k, j), 1, vec3(0.0, 0.5, 0.9))
                if height:
                    scene.set_voxel(vec3(i, height, j), 2, vec3(1, 1, 1))


initialize_voxels()

scene.finish()

