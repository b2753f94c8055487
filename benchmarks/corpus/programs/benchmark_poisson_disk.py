# corpus: benchmark_poisson_disk
# source: github:taichi-dev/taichi_benchmark@7a8c8a5d27748e118355cdf794a959d75bc112ad suites/poisson/src/taichi/poisson_disk.py
# license: Apache-2.0
# area: misc
# port: ti->qd; qd.init(arch=qd.cpu) kept; the timing harness: repeats 15->2, run() returns statistical checksums (the sample count as a float, the mean sample position) instead of the time: the sampling draws qd.random() inside the algorithm, and ours draws a different qd.random() sequence by design (docs/language.md 'Random numbers'); checksum lines added
# tolerance: rtol=5e-3 atol=1e-6    -- statistical checksums of a random sampling (count, mean position): ours draws a different qd.random() sequence by design (docs/language.md 'Random numbers')
import quadrants as qd
import os
import math

def run_poisson(desired_samples = 100000):
    qd.init(arch=qd.cpu)
    
    run_test = False
    output_frames = False
    
    grid_n = 400
    res = (grid_n, grid_n)
    dx = 1 / res[0]
    inv_dx = res[0]
    radius = dx * math.sqrt(2)
    
    grid = qd.field(dtype=int, shape=res)
    samples = qd.Vector.field(2, dtype=float, shape=desired_samples)
    
    
    @qd.kernel
    def random_sample(desired_samples: int):
        if True:
            for i in range(desired_samples):
                samples[i] = qd.Vector([qd.random(), qd.random()])
    
    
    @qd.func
    def place_sample(sample_id, x):
        grid_index = int(qd.floor(x * inv_dx))
        grid[grid_index] = sample_id
    
    
    @qd.kernel
    def poisson_disk_sample(desired_samples: int) -> int:
        samples[0] = qd.Vector([0.5, 0.5])
        grid[int(grid_n * 0.5), int(grid_n * 0.5)] = 0
        head, tail = 0, 1
        # This kernel is serial since Taichi does not automatically parallelize top-level while loops
        while head < tail and head < desired_samples:
            source_x = samples[head]
            head += 1
    
            for repeats in range(100):
                theta = qd.random() * 2 * math.pi
                offset = qd.Vector([qd.cos(theta), qd.sin(theta)
                                    ]) * (1 + qd.random()) * radius
                new_x = source_x + offset
                new_index = qd.floor(new_x * inv_dx).cast(int)
    
                if 0 <= new_x[0] < 1 and 0 < new_x[1] < 1:
                    collision = False
                    for i in range(max(0, new_index[0] - 2),
                                   min(grid_n, new_index[0] + 3)):
                        for j in range(max(0, new_index[1] - 2),
                                       min(grid_n, new_index[1] + 3)):
                            if grid[i, j] != -1:
                                collision_x = samples[grid[i, j]]
                                if (collision_x - new_x).norm() < radius - 1e-6:
                                    collision = True
    
                    if not collision and tail < desired_samples:
                        samples[tail] = new_x
                        grid[new_index] = tail
                        tail += 1
        return tail
    
    
    @qd.kernel
    def test(num_samples: int):
        min_dist = 100.0
        for i in range(num_samples):
            for j in range(i + 1, num_samples):
                qd.atomic_min(min_dist, (samples[i] - samples[j]).norm())
        print('min distance=', min_dist, ' desired distance=', radius)
    
    
    def sample():
        grid.fill(-1)
        num_samples = poisson_disk_sample(desired_samples)
    
        if run_test:
            test(num_samples)
    
        return num_samples
    
    def run():
        import time
        sample()  # Warm up
        repeats = 2

        for i in range(repeats):
            n = sample()
        s = samples.to_numpy()[:n]
        return {'num_samples_f': float(n), 'samples_mean_x': float(s[:, 0].mean()), 'samples_mean_y': float(s[:, 1].mean())}
    return run()

if __name__ == '__main__':
    desired_samples = 100000
    for k, val in run_poisson(desired_samples).items():
        print('checksum', k, repr(val))
