# corpus: benchmark_smallpt
# source: github:taichi-dev/taichi_benchmark@7a8c8a5d27748e118355cdf794a959d75bc112ad suites/smallpt/src/taichi/path_tracing.py
# license: Apache-2.0
# area: raytracing
# port: ti->qd; ray_tracing_models.py inlined (relative import dropped); qd.init(arch=qd.cpu, cpu_max_num_threads=1) (was cuda; one thread so the per-thread qd.random() streams, hence the image, are the same run to run); image 1024x768 -> 128x96, samples_per_pixel 256 -> 4, nIters 20 -> 1 (time); run() returns statistical checksums (canvas means) instead of fps: the path tracer draws qd.random() throughout and ours draws a different qd.random() sequence by design (docs/language.md 'Random numbers'); checksum lines added
# tolerance: rtol=3e-2 atol=1e-6    -- statistical checksums (means over 12288 pixels x 4 paths of a Monte Carlo render): ours draws a different qd.random() sequence by design (docs/language.md 'Random numbers')
import quadrants as qd
import numpy as np
import argparse
from time import perf_counter
# ---- inlined: ray_tracing_models.py ----
import quadrants as qd

PI = 3.14159265


@qd.func
def rand3():
    return qd.Vector([qd.random(), qd.random(), qd.random()])


@qd.func
def random_in_unit_sphere():
    p = 2.0 * rand3() - qd.Vector([1, 1, 1])
    while p.norm() >= 1.0:
        p = 2.0 * rand3() - qd.Vector([1, 1, 1])
    return p


@qd.func
def random_unit_vector():
    return random_in_unit_sphere().normalized()


@qd.func
def to_light_source(hit_point, light_source):
    return light_source - hit_point


@qd.func
def reflect(v, normal):
    return v - 2 * v.dot(normal) * normal


@qd.func
def refract(uv, n, etai_over_etat):
    cos_theta = min(n.dot(-uv), 1.0)
    r_out_perp = etai_over_etat * (uv + cos_theta * n)
    r_out_parallel = -qd.sqrt(abs(1.0 - r_out_perp.dot(r_out_perp))) * n
    return r_out_perp + r_out_parallel


@qd.func
def reflectance(cosine, ref_idx):
    # Use Schlick's approximation for reflectance.
    r0 = (1 - ref_idx) / (1 + ref_idx)
    r0 = r0 * r0
    return r0 + (1 - r0) * pow((1 - cosine), 5)


@qd.data_oriented
class Ray:

    def __init__(self, origin, direction):
        self.origin = origin
        self.direction = direction

    @qd.func
    def at(self, t):
        return self.origin + t * self.direction


@qd.data_oriented
class Sphere:

    def __init__(self, center, radius, material, color):
        self.center = center
        self.radius = radius
        self.material = material
        self.color = color

    @qd.func
    def hit(self, ray, t_min=0.001, t_max=10e8):
        oc = ray.origin - self.center
        a = ray.direction.dot(ray.direction)
        b = 2.0 * oc.dot(ray.direction)
        c = oc.dot(oc) - self.radius * self.radius
        discriminant = b * b - 4 * a * c
        is_hit = False
        front_face = False
        root = 0.0
        hit_point = qd.Vector([0.0, 0.0, 0.0])
        hit_point_normal = qd.Vector([0.0, 0.0, 0.0])
        if discriminant > 0:
            sqrtd = qd.sqrt(discriminant)
            root = (-b - sqrtd) / (2 * a)
            if root < t_min or root > t_max:
                root = (-b + sqrtd) / (2 * a)
                if root >= t_min and root <= t_max:
                    is_hit = True
            else:
                is_hit = True
        if is_hit:
            hit_point = ray.at(root)
            hit_point_normal = (hit_point - self.center) / self.radius
            # Check which side does the ray hit, we set the hit point normals always point outward from the surface
            if ray.direction.dot(hit_point_normal) < 0:
                front_face = True
            else:
                hit_point_normal = -hit_point_normal
        return is_hit, root, hit_point, hit_point_normal, front_face, self.material, self.color


@qd.data_oriented
class Hittable_list:

    def __init__(self):
        self.objects = []

    def add(self, obj):
        self.objects.append(obj)

    def clear(self):
        self.objects = []

    @qd.func
    def hit(self, ray, t_min=0.001, t_max=10e8):
        closest_t = t_max
        is_hit = False
        front_face = False
        hit_point = qd.Vector([0.0, 0.0, 0.0])
        hit_point_normal = qd.Vector([0.0, 0.0, 0.0])
        color = qd.Vector([0.0, 0.0, 0.0])
        material = 1
        for index in qd.static(range(len(self.objects))):
            is_hit_tmp, root_tmp, hit_point_tmp, hit_point_normal_tmp, front_face_tmp, material_tmp, color_tmp = self.objects[
                index].hit(ray, t_min, closest_t)
            if is_hit_tmp:
                closest_t = root_tmp
                is_hit = is_hit_tmp
                hit_point = hit_point_tmp
                hit_point_normal = hit_point_normal_tmp
                front_face = front_face_tmp
                material = material_tmp
                color = color_tmp
        return is_hit, hit_point, hit_point_normal, front_face, material, color

    @qd.func
    def hit_shadow(self, ray, t_min=0.001, t_max=10e8):
        is_hit_source = False
        is_hit_source_temp = False
        hitted_dielectric_num = 0
        is_hitted_non_dielectric = False
        # Compute the t_max to light source
        is_hit_tmp, root_light_source, hit_point_tmp, hit_point_normal_tmp, front_face_tmp, material_tmp, color_tmp = \
        self.objects[0].hit(ray, t_min)
        for index in qd.static(range(len(self.objects))):
            is_hit_tmp, root_tmp, hit_point_tmp, hit_point_normal_tmp, front_face_tmp, material_tmp, color_tmp = self.objects[
                index].hit(ray, t_min, root_light_source)
            if is_hit_tmp:
                if material_tmp != 3 and material_tmp != 0:
                    is_hitted_non_dielectric = True
                if material_tmp == 3:
                    hitted_dielectric_num += 1
                if material_tmp == 0:
                    is_hit_source_temp = True
        if is_hit_source_temp and (
                not is_hitted_non_dielectric) and hitted_dielectric_num == 0:
            is_hit_source = True
        return is_hit_source, hitted_dielectric_num, is_hitted_non_dielectric


@qd.data_oriented
class Camera:

    def __init__(self, fov=60, aspect_ratio=1.0):
        # Camera parameters
        self.lookfrom = qd.Vector.field(3, dtype=qd.f32, shape=())
        self.lookat = qd.Vector.field(3, dtype=qd.f32, shape=())
        self.vup = qd.Vector.field(3, dtype=qd.f32, shape=())
        self.fov = fov
        self.aspect_ratio = aspect_ratio

        self.cam_lower_left_corner = qd.Vector.field(3, dtype=qd.f32, shape=())
        self.cam_horizontal = qd.Vector.field(3, dtype=qd.f32, shape=())
        self.cam_vertical = qd.Vector.field(3, dtype=qd.f32, shape=())
        self.cam_origin = qd.Vector.field(3, dtype=qd.f32, shape=())
        self.reset()

    @qd.kernel
    def reset(self):
        self.lookfrom[None] = [0.0, 1.0, -5.0]
        self.lookat[None] = [0.0, 1.0, -1.0]
        self.vup[None] = [0.0, 1.0, 0.0]
        theta = self.fov * (PI / 180.0)
        half_height = qd.tan(theta / 2.0)
        half_width = self.aspect_ratio * half_height
        self.cam_origin[None] = self.lookfrom[None]
        w = (self.lookfrom[None] - self.lookat[None]).normalized()
        u = (self.vup[None].cross(w)).normalized()
        v = w.cross(u)
        self.cam_lower_left_corner[None] = self.cam_origin[
            None] - half_width * u - half_height * v - w
        self.cam_horizontal[None] = 2 * half_width * u
        self.cam_vertical[None] = 2 * half_height * v

    @qd.func
    def get_ray(self, u, v):
        return Ray(
            self.cam_origin[None],
            self.cam_lower_left_corner[None] + u * self.cam_horizontal[None] +
            v * self.cam_vertical[None] - self.cam_origin[None])
# ---- end inlined ----

# Rendering parameters
# max_depth = 10, sample_on_unit_sphere_surface = True
# image_size = 1024 x 768


def run_smallpt(samples_per_pixel=128, nIters=20):
    qd.init(arch=qd.cpu, cpu_max_num_threads=1)

    camera = Camera()
    scene = Hittable_list()

    # Light source
    scene.add(
        Sphere(center=qd.Vector([0, 5.4, -1]),
               radius=3.0,
               material=0,
               color=qd.Vector([10.0, 10.0, 10.0])))
    # Ground
    scene.add(
        Sphere(center=qd.Vector([0, -100.5, -1]),
               radius=100.0,
               material=1,
               color=qd.Vector([0.8, 0.8, 0.8])))
    # ceiling
    scene.add(
        Sphere(center=qd.Vector([0, 102.5, -1]),
               radius=100.0,
               material=1,
               color=qd.Vector([0.8, 0.8, 0.8])))
    # back wall
    scene.add(
        Sphere(center=qd.Vector([0, 1, 101]),
               radius=100.0,
               material=1,
               color=qd.Vector([0.8, 0.8, 0.8])))
    # right wall
    scene.add(
        Sphere(center=qd.Vector([-101.5, 0, -1]),
               radius=100.0,
               material=1,
               color=qd.Vector([0.6, 0.0, 0.0])))
    # left wall
    scene.add(
        Sphere(center=qd.Vector([101.5, 0, -1]),
               radius=100.0,
               material=1,
               color=qd.Vector([0.0, 0.6, 0.0])))

    # Diffuse ball
    scene.add(
        Sphere(center=qd.Vector([0, -0.2, -1.5]),
               radius=0.3,
               material=1,
               color=qd.Vector([0.8, 0.3, 0.3])))
    # Metal ball
    scene.add(
        Sphere(center=qd.Vector([-0.8, 0.2, -1]),
               radius=0.7,
               material=2,
               color=qd.Vector([0.6, 0.8, 0.8])))
    # Glass ball
    scene.add(
        Sphere(center=qd.Vector([0.7, 0, -0.5]),
               radius=0.5,
               material=3,
               color=qd.Vector([1.0, 1.0, 1.0])))
    # Metal ball-2
    scene.add(
        Sphere(center=qd.Vector([0.6, -0.3, -2.0]),
               radius=0.2,
               material=4,
               color=qd.Vector([0.8, 0.6, 0.2])))

    # Canvas
    aspect_ratio = 1.0
    image_width = 128
    image_height = 96
    canvas = qd.Vector.field(3,
                             dtype=qd.f32,
                             shape=(image_width, image_height))

    # Rendering parameters
    max_depth = 10
    sample_on_unit_sphere_surface = True

    @qd.kernel
    def render():
        for i, j in canvas:
            u = (i + qd.random()) / image_width
            v = (j + qd.random()) / image_height
            color = qd.Vector([0.0, 0.0, 0.0])
            for n in range(samples_per_pixel):
                ray = camera.get_ray(u, v)
                color += ray_color(ray)
            color /= samples_per_pixel
            canvas[i, j] += color

    # Path tracing
    @qd.func
    def ray_color(ray):
        color_buffer = qd.Vector([0.0, 0.0, 0.0])
        brightness = qd.Vector([1.0, 1.0, 1.0])
        scattered_origin = ray.origin
        scattered_direction = ray.direction
        p_RR = 0.8
        for n in range(max_depth):
            if qd.random() > p_RR:
                break
            is_hit, hit_point, hit_point_normal, front_face, material, color = scene.hit(
                Ray(scattered_origin, scattered_direction))
            if is_hit:
                if material == 0:
                    color_buffer = color * brightness
                    break
                else:
                    # Diffuse
                    if material == 1:
                        target = hit_point + hit_point_normal
                        if sample_on_unit_sphere_surface:
                            target += random_unit_vector()
                        else:
                            target += random_in_unit_sphere()
                        scattered_direction = target - hit_point
                        scattered_origin = hit_point
                        brightness *= color
                    # Metal and Fuzz Metal
                    elif material == 2 or material == 4:
                        fuzz = 0.0
                        if material == 4:
                            fuzz = 0.4
                        scattered_direction = reflect(
                            scattered_direction.normalized(), hit_point_normal)
                        if sample_on_unit_sphere_surface:
                            scattered_direction += fuzz * random_unit_vector()
                        else:
                            scattered_direction += fuzz * random_in_unit_sphere(
                            )
                        scattered_origin = hit_point
                        if scattered_direction.dot(hit_point_normal) < 0:
                            break
                        else:
                            brightness *= color
                    # Dielectric
                    elif material == 3:
                        refraction_ratio = 1.5
                        if front_face:
                            refraction_ratio = 1 / refraction_ratio
                        cos_theta = min(
                            -scattered_direction.normalized().dot(
                                hit_point_normal), 1.0)
                        sin_theta = qd.sqrt(1 - cos_theta * cos_theta)
                        # total internal reflection
                        if refraction_ratio * sin_theta > 1.0 or reflectance(
                                cos_theta, refraction_ratio) > qd.random():
                            scattered_direction = reflect(
                                scattered_direction.normalized(),
                                hit_point_normal)
                        else:
                            scattered_direction = refract(
                                scattered_direction.normalized(),
                                hit_point_normal, refraction_ratio)
                        scattered_origin = hit_point
                        brightness *= color
                    brightness /= p_RR
        return color_buffer

    def run():
        # skip first run
        render()

        # measurement
        t1_start = perf_counter()
        for _ in range(nIters):
            render()
        qd.sync()
        t1_stop = perf_counter()

        time_in_s = (t1_stop - t1_start) / nIters
        fps = 1.0 / time_in_s
        c = canvas.to_numpy()
        return {'spp': samples_per_pixel, 'canvas_mean': float(c.mean()), 'canvas_mean_r': float(c[..., 0].mean()), 'canvas_mean_b': float(c[..., 2].mean())}

    return run()


if __name__ == '__main__':
    samples_per_pixel = 4
    result = run_smallpt(samples_per_pixel, nIters=1)
    for k, val in result.items():
        print('checksum', k, repr(val))
