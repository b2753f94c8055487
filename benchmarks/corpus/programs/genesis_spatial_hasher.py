# corpus: genesis_spatial_hasher
# source: github:Genesis-Embodied-AI/Genesis@7bf5f6a7bf2946efc3a1e93667700011456078b5 genesis/utils/geom.py
# license: Apache-2.0
# area: sph
# port: SpatialHasher copied verbatim from geom.py; `gs` -> stand-in namespace; driver: 3000 numpy-seeded particles in 2 batches (10% inactive), compute_reordered_idx from a kernel, then for_all_neighbors with a small task func counting neighbours within the cell size (as the SPH/PBD solvers do); per-slot order depends on atomics, so per-particle results are checksummed as sorted multisets; checksum lines added
import math
import types

import numpy as np
import quadrants as qd

# ---- stand-in for `import genesis as gs`: what genesis.init(precision="32") sets on the CPU ----
gs = types.SimpleNamespace()
gs.qd_float, gs.np_float = qd.f32, np.float32
gs.qd_int, gs.np_int = qd.i32, np.int32
gs.qd_bool, gs.np_bool = qd.u1, np.bool_
gs.qd_vec2 = qd.types.vector(2, gs.qd_float)
gs.qd_vec3 = qd.types.vector(3, gs.qd_float)
gs.qd_vec4 = qd.types.vector(4, gs.qd_float)
gs.qd_vec6 = qd.types.vector(6, gs.qd_float)
gs.qd_vec7 = qd.types.vector(7, gs.qd_float)
gs.qd_vec11 = qd.types.vector(11, gs.qd_float)
gs.qd_mat3 = qd.types.matrix(3, 3, gs.qd_float)
gs.qd_mat4 = qd.types.matrix(4, 4, gs.qd_float)
gs.qd_ivec2 = qd.types.vector(2, gs.qd_int)
gs.qd_ivec3 = qd.types.vector(3, gs.qd_int)
gs.qd_ivec4 = qd.types.vector(4, gs.qd_int)
gs.EPS = float(max(1e-15, np.finfo(gs.np_float).eps))
gs.raise_exception = lambda msg="": (_ for _ in ()).throw(RuntimeError(msg))

# the qd.init kwargs genesis.init() passes on the CPU (arch cpu, debug off, seed unset)
qd.init(
    arch=qd.cpu,
    enable_fallback=False,
    debug=False,
    check_out_of_bound=False,
    force_scalarize_matrix=True,
    advanced_optimization=True,
    cfg_optimization=False,
    fast_math=True,
    default_ip=gs.qd_int,
    default_fp=gs.qd_float,
    unrolling_limit=100,
    cpu_max_num_threads=1,
)

def report(label, arr):
    a = np.asarray(arr)
    if a.dtype.kind in "iub":
        a = a.astype(np.int64)
        print(f"checksum {label}", int(a.sum()))
        print(f"checksum {label}_w", int((a.ravel() * (np.arange(a.size) % 97 + 1)).sum()))
    else:
        a = a.astype(np.float64)
        fin = np.isfinite(a)
        # signed sums of fields like pressure cancel to ~0 and are brittle under rtol: use magnitudes
        w = (np.arange(a.size) % 89 + 1).reshape(a.shape)
        print(f"checksum {label}_abs", repr(float(np.abs(a[fin]).sum())))
        print(f"checksum {label}_sq", repr(float(np.square(a[fin]).sum())))
        print(f"checksum {label}_wabs", repr(float(np.abs(a * w)[fin].sum())))
        if not fin.all():
            print(f"checksum {label}_nonfinite", int((~fin).sum()))


# ---- genesis/utils/geom.py: class SpatialHasher (verbatim) ----
@qd.data_oriented
class SpatialHasher:
    def __init__(self, cell_size, grid_res, n_slots=None):
        self.cell_size = cell_size
        self.grid_res = grid_res

        if n_slots is None:
            self.n_slots = np.prod(grid_res)
        else:
            self.n_slots = n_slots

    def build(self, n_batch):
        self._B = n_batch
        # number of elements in each slot
        self.slot_size = qd.field(gs.qd_int, shape=(self.n_slots, self._B))
        # element index offset in each slot
        self.slot_start = qd.field(gs.qd_int, shape=(self.n_slots, self._B))
        self.cur_cnt = qd.field(gs.qd_int, shape=(self._B,))

    @qd.func
    def compute_reordered_idx(self, n, pos, active, reordered_idx):
        """
        Reordered element idx based on the given positions and active flags.

        Parameters:
            n (int)       : The number of elements in the positions and active arrays.
            pos           : The array of positions.
            active        : The array of active flags.
            reordered_idx : The array to store the computed reordered indices.

        Returns:
            None
        """

        self.slot_size.fill(0)
        self.slot_start.fill(0)
        self.cur_cnt.fill(0)

        for i_n, i_b in qd.ndrange(n, self._B):
            if active[i_n, i_b]:
                slot_idx = self.pos_to_slot(pos[i_n, i_b])
                qd.atomic_add(self.slot_size[slot_idx, i_b], 1)

        for i_n in range(self.n_slots):
            for i_b in range(self._B):
                self.slot_start[i_n, i_b] = qd.atomic_add(self.cur_cnt[i_b], self.slot_size[i_n, i_b])

        for i_n, i_b in qd.ndrange(n, self._B):
            if active[i_n, i_b]:
                slot_idx = self.pos_to_slot(pos[i_n, i_b])
                reordered_idx[i_n, i_b] = qd.atomic_add(self.slot_start[slot_idx, i_b], 1)

        # recover slot_start
        for i_s, i_b in qd.ndrange(self.n_slots, self._B):
            self.slot_start[i_s, i_b] -= self.slot_size[i_s, i_b]

    @qd.func
    def for_all_neighbors(self, i_p, pos, task_range, ret: qd.template(), task: qd.template(), i_b):
        """
        Iterates over all neighbors of a given position and performs a task on each neighbor.
        Elements are considered neighbors if they are within task_range.

        Parameters:
            i_p (int)  : Index of the querying particle.
            pos        : Template for the positions of all particles.
            task       : Template for the task to be performed on each neighbor of the querying particle.
            task_range : Range within which the task should be performed.
            ret        : Template for the return value of the task.

        Returns:
            None
        """
        base = self.pos_to_grid(pos[i_p, i_b])
        for offset in qd.grouped(qd.ndrange((-1, 2), (-1, 2), (-1, 2))):
            slot_idx = self.grid_to_slot(base + offset)
            for j_p in range(
                self.slot_start[slot_idx, i_b], self.slot_size[slot_idx, i_b] + self.slot_start[slot_idx, i_b]
            ):
                if i_p != j_p and (pos[i_p, i_b] - pos[j_p, i_b]).norm() < task_range:
                    task(i_p, j_p, ret, i_b)

    @qd.func
    def pos_to_grid(self, pos):
        return qd.floor(pos / self.cell_size, gs.qd_int)

    @qd.func
    def grid_to_pos(self, grid_id):
        return (grid_id + 0.5) * self.cell_size

    @qd.func
    def grid_to_slot(self, grid_id):
        return (
            grid_id[0] * self.grid_res[1] * self.grid_res[2] + grid_id[1] * self.grid_res[2] + grid_id[2]
        ) % self.n_slots

    @qd.func
    def pos_to_slot(self, pos):
        return self.grid_to_slot(self.pos_to_grid(pos))


# ---- stand-in driver: particles in 2 batches hashed, reordered, neighbours counted as SPH/PBD do ----
n, n_b = 3000, 2
rng = np.random.default_rng(61)
hasher = SpatialHasher(cell_size=0.05, grid_res=(20, 20, 20))
hasher.build(n_b)
pos = qd.field(gs.qd_vec3, shape=(n, n_b))
active = qd.field(gs.qd_int, shape=(n, n_b))
reordered = qd.field(gs.qd_int, shape=(n, n_b))
pos_sorted = qd.field(gs.qd_vec3, shape=(n, n_b))
nbr = qd.field(gs.qd_int, shape=(n, n_b))
nbr_w = qd.field(gs.qd_float, shape=(n, n_b))
pos.from_numpy(rng.uniform(0.0, 1.0, (n, n_b, 3)).astype(np.float32))
active.from_numpy((rng.random((n, n_b)) < 0.9).astype(np.int32))


@qd.func
def count_task(i, j, ret: qd.template(), i_b):
    ret[0] += 1
    ret[1] += (pos_sorted[i, i_b] - pos_sorted[j, i_b]).norm()


@qd.kernel
def reorder():
    hasher.compute_reordered_idx(n, pos, active, reordered)
    for i, i_b in qd.ndrange(n, n_b):
        if active[i, i_b]:
            pos_sorted[reordered[i, i_b], i_b] = pos[i, i_b]


@qd.kernel
def neighbours():
    for i_b in range(n_b):
        for i in range(hasher.cur_cnt[i_b]):
            ret = qd.Vector.zero(gs.qd_float, 2)
            hasher.for_all_neighbors(i, pos_sorted, 0.05, ret, count_task, i_b)
            nbr[i, i_b] = qd.cast(ret[0], gs.qd_int)
            nbr_w[i, i_b] = ret[1]


reorder()
neighbours()
act = active.to_numpy().astype(bool)
print("checksum cur_cnt", " ".join(str(int(c)) for c in hasher.cur_cnt.to_numpy()))
report("slot_size", hasher.slot_size.to_numpy())
report("slot_start", hasher.slot_start.to_numpy())
report("reordered_active_sorted", np.sort(reordered.to_numpy()[act]))
ps = pos_sorted.to_numpy()
report("pos_sorted_slotwise", np.sort(np.round(ps.sum(axis=2), 4).ravel()))
report("nbr_total", np.sort(nbr.to_numpy().ravel()))
report("nbr_w_total", np.sort(nbr_w.to_numpy().ravel()))
