# corpus: benchmark_nbody
# source: github:taichi-dev/taichi_benchmark@7a8c8a5d27748e118355cdf794a959d75bc112ad suites/n_body/taichi/nbody.py
# license: Apache-2.0
# area: misc
# port: ti->qd; core.taichi.TaichiBenchmark (the benchmark runner base class) replaced by an empty stand-in class; the runner's qd.init(arch=..., device_memory_GB, offline_cache=False) replaced by qd.init(arch=qd.cpu, offline_cache=False); init() additionally keeps self.bodies/self.velocities so the driver can read them; a driver added: n=512, the qd.random() bodies/velocities overwritten with numpy-seeded ones of the same range (Quadrants runs disagreed), 10 run_iter() calls; checksum lines added
# -*- coding: utf-8 -*-

# -- stdlib --
from typing import Dict

# -- third party --
import quadrants as qd

# -- own --


class TaichiBenchmark:  # stand-in for core.taichi.TaichiBenchmark (runner scaffolding)
    pass


# -- code --
class NBodyNaive(TaichiBenchmark):
    name = 'nbody'
    tags = {'variant': 'Naive'}
    archs = [qd.cuda, qd.vulkan]
    matrix = {
        'n': [128, 256, 512, 262144]
    }

    def init(self, n):
        self.n = n
        bodies = qd.field(shape=(n, 3), dtype=qd.float32)
        velocities = qd.field(shape=(n, 3), dtype=qd.float32)

        softening = 1e-9
        dt = 0.01

        @qd.kernel
        def randomizeBodies():
            for i, j in bodies:
                bodies[i, j] = 2.0 * qd.random(dtype=qd.float32) - 1.0
            for i, j in velocities:
                velocities[i, j] = 2.0 * qd.random(dtype=qd.float32) - 1.0

        @qd.kernel
        def bodyForce():
            qd.loop_config(block_dim=256)
            for i in range(n):
                Fx = 0.0
                Fy = 0.0
                Fz = 0.0
                for j in range(n):

                    dx = bodies[j, 0] - bodies[i, 0]
                    dy = bodies[j, 1] - bodies[i, 1]
                    dz = bodies[j, 2] - bodies[i, 2]
                    distSqr = dx * dx + dy * dy + dz * dz + softening
                    invDist = 1.0 / qd.sqrt(distSqr)
                    invDist3 = invDist * invDist * invDist
                    Fx += dx * invDist3
                    Fy += dy * invDist3
                    Fz += dz * invDist3
                velocities[i, 0] += dt * Fx
                velocities[i, 1] += dt * Fy
                velocities[i, 2] += dt * Fz

            for i in range(n):
                bodies[i, 0] += velocities[i, 0] * dt
                bodies[i, 1] += velocities[i, 1] * dt
                bodies[i, 2] += velocities[i, 2] * dt

        randomizeBodies()
        self.bodyForce = bodyForce
        self.bodies, self.velocities = bodies, velocities  # added: read by the driver

    def run_iter(self):
        self.bodyForce()

    def get_metrics(self, avg_time: float) -> Dict[str, float]:
        return {
            'bips': self.n * self.n / avg_time / 1e9,
        }


if __name__ == '__main__':
    import numpy as np
    qd.init(arch=qd.cpu, offline_cache=False)
    bm = NBodyNaive()
    bm.init(n=512)
    # stand-in for the qd.random() initial state (two Quadrants runs disagree): numpy-seeded, same range
    rng = np.random.RandomState(0)
    bm.bodies.from_numpy((2.0 * rng.rand(512, 3) - 1.0).astype(np.float32))
    bm.velocities.from_numpy((2.0 * rng.rand(512, 3) - 1.0).astype(np.float32))
    for _ in range(10):
        bm.run_iter()
    b = bm.bodies.to_numpy()
    print('checksum bodies_sum', repr(float(b.sum())))
    print('checksum bodies_abs_sum', repr(float(abs(b).sum())))
    print('checksum velocities_abs_sum', repr(float(abs(bm.velocities.to_numpy()).sum())))
    print('checksum body7_0', repr(float(b[7, 0])))
    print('checksum body7_1', repr(float(b[7, 1])))
    print('checksum body7_2', repr(float(b[7, 2])))
