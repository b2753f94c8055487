# corpus: genesis_sph_solver
# source: github:Genesis-Embodied-AI/Genesis@7bf5f6a7bf2946efc3a1e93667700011456078b5 genesis/engine/solvers/sph_solver.py genesis/utils/geom.py genesis/engine/boundaries/boundaries.py
# license: Apache-2.0
# area: sph
# port: SPHSolver (sph_solver.py from the class on), SpatialHasher (geom.py) and CubeBoundary (boundaries.py) copied verbatim; Solver base -> stand-in with the attributes used; SPHEntity -> stand-in adding a regular 10^3 block via the solver's own _kernel_add_particles with the Liquid material defaults; options/sim/coupler -> SimpleNamespace stand-ins (SPHOptions defaults, cell size = support radius, box 0.4x0.4x0.6, dt 2e-3); gs.logger -> no-op; runs WCSPH 15 substeps and DFSPH 6 substeps; checksum lines added
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


gs.logger = types.SimpleNamespace(warning=lambda *a, **k: None, debug=lambda *a, **k: None, info=lambda *a, **k: None)


def brief(x):  # stand-in for genesis.utils.repr.brief (used by __repr__ only)
    return repr(x)


# ---- stand-in for genesis.engine.solvers.base_solver.Solver (the attributes SPHSolver uses) ----
class Solver:
    def __init__(self, scene, sim, options):
        self._sim = sim
        self._scene = scene
        self._dt = options.dt
        self._substep_dt = options.dt / sim.substeps
        self._init_gravity = getattr(options, "gravity", None)
        self._gravity = None
        self._entities = []
        self._ffs = list()

    def build(self):
        self._B = self._sim._B
        if self._init_gravity is not None:
            gravity = np.tile(np.asarray(self._init_gravity, dtype=gs.np_float), (self._B, 1))
            self._gravity = qd.field(dtype=gs.qd_vec3, shape=(self._B,))
            self._gravity.from_numpy(gravity)

    @property
    def sim(self):
        return self._sim

    @property
    def scene(self):
        return self._scene

    @property
    def dt(self):
        return self._dt

    @property
    def substep_dt(self):
        return self._substep_dt

    @property
    def is_built(self):
        return self._built

    @property
    def entities(self):
        return self._entities


# ---- genesis/utils/geom.py: class SpatialHasher (verbatim), as module gu ----
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

gu = types.SimpleNamespace(SpatialHasher=SpatialHasher, qd_nowhere=None)

# ---- genesis/engine/boundaries/boundaries.py: class CubeBoundary (verbatim) ----
@qd.data_oriented
class CubeBoundary:
    def __init__(self, lower, upper, restitution=0.0):
        self.restitution = restitution

        self.upper = np.array(upper, dtype=gs.np_float)
        self.lower = np.array(lower, dtype=gs.np_float)
        assert (self.upper >= self.lower).all()

        self.upper_qd = qd.Vector(upper, dt=gs.qd_float)
        self.lower_qd = qd.Vector(lower, dt=gs.qd_float)

    @qd.func
    def impose_pos_vel(self, pos, vel):
        for i in qd.static(range(3)):
            if pos[i] >= self.upper_qd[i] and vel[i] >= 0:
                vel[i] *= -self.restitution
            elif pos[i] <= self.lower_qd[i] and vel[i] <= 0:
                vel[i] *= -self.restitution

        pos = qd.max(qd.min(pos, self.upper_qd), self.lower_qd)

        return pos, vel

    @qd.func
    def impose_pos(self, pos):
        pos = qd.max(qd.min(pos, self.upper_qd), self.lower_qd)
        return pos

    def is_inside(self, pos):
        return np.all(pos < self.upper) and np.all(pos > self.lower)

    def __repr__(self):
        return (
            f"{brief(self)}\n"
            f"lower       : {brief(self.lower)}\n"
            f"upper       : {brief(self.upper)}\n"
            f"restitution : {brief(self.restitution)}"
        )


# ---- genesis/engine/solvers/sph_solver.py (verbatim from class SPHSolver on) ----
@qd.data_oriented
class SPHSolver(Solver):
    # ------------------------------------------------------------------------------------
    # --------------------------------- Initialization -----------------------------------
    # ------------------------------------------------------------------------------------

    def __init__(self, scene, sim, options):
        super().__init__(scene, sim, options)

        # options
        self._particle_size = options.particle_size
        self._support_radius = options._support_radius
        self._pressure_solver = options.pressure_solver

        # DFSPH parameters
        self._df_max_error_div = options.max_divergence_error
        self._df_max_error_den = options.max_density_error_percent
        self._df_max_div_iters = options.max_divergence_solver_iterations
        self._df_max_den_iters = options.max_density_solver_iterations
        self._df_eps = 1e-5

        self._upper_bound = np.array(options.upper_bound)
        self._lower_bound = np.array(options.lower_bound)

        self._particle_volume = 0.8 * self._particle_size**3  # 0.8 is an empirical value

        # spatial hasher
        self.sh = gu.SpatialHasher(
            cell_size=options.hash_grid_cell_size,
            grid_res=options._hash_grid_res,
        )
        # boundary
        self.setup_boundary()

        # Coefficient for computing stable timestep
        self._stable_dt_coef = 1.0

    def setup_boundary(self):
        self.boundary = CubeBoundary(
            lower=self._lower_bound,
            upper=self._upper_bound,
            # restitution=0.5,
        )

    def init_particle_fields(self):
        # dynamic particle state
        struct_particle_state = qd.types.struct(
            pos=gs.qd_vec3,  # position
            vel=gs.qd_vec3,  # velocity
            acc=gs.qd_vec3,  # acceleration
            rho=gs.qd_float,  # density
            p=gs.qd_float,  # pressure
            dfsph_factor=gs.qd_float,  # DFSPH use: Factor for Divergence and density solver
            drho=gs.qd_float,  # density deritivate
        )

        # dynamic particle state without gradient
        struct_particle_state_ng = qd.types.struct(
            reordered_idx=gs.qd_int,
            active=gs.qd_bool,
        )

        # static particle info
        struct_particle_info = qd.types.struct(
            rho=gs.qd_float,  # rest density
            mass=gs.qd_float,  # mass
            stiffness=gs.qd_float,
            exponent=gs.qd_float,
            mu=gs.qd_float,  # viscosity
            gamma=gs.qd_float,  # surface tension
        )

        # single frame particle state for rendering
        struct_particle_state_render = qd.types.struct(
            pos=gs.qd_vec3,
            vel=gs.qd_vec3,
            active=gs.qd_bool,
        )

        # construct fields
        self.particles = struct_particle_state.field(
            shape=(self._n_particles, self._B), needs_grad=False, layout=qd.Layout.SOA
        )
        self.particles_ng = struct_particle_state_ng.field(
            shape=(self._n_particles, self._B), needs_grad=False, layout=qd.Layout.SOA
        )
        self.particles_info = struct_particle_info.field(
            shape=(self._n_particles,), needs_grad=False, layout=qd.Layout.SOA
        )
        self.particles_reordered = struct_particle_state.field(
            shape=(self._n_particles, self._B), needs_grad=False, layout=qd.Layout.SOA
        )
        self.particles_ng_reordered = struct_particle_state_ng.field(
            shape=(self._n_particles, self._B), needs_grad=False, layout=qd.Layout.SOA
        )
        self.particles_info_reordered = struct_particle_info.field(
            shape=(self._n_particles, self._B), needs_grad=False, layout=qd.Layout.SOA
        )

        self.particles_render = struct_particle_state_render.field(
            shape=(self._n_particles, self._B), needs_grad=False, layout=qd.Layout.SOA
        )

    def init_ckpt(self):
        self._ckpt = dict()

    def reset_grad(self):
        pass

    def build(self):
        super().build()

        self._B = self._sim._B

        # particles and entities
        self._n_particles = self.n_particles

        self._coupler = self.sim._coupler

        if self.is_active:
            self.sh.build(self._B)
            self.init_particle_fields()
            self.init_ckpt()

            for entity in self.entities:
                entity._add_to_solver()

            # Compute stable timestep for the given particle properties (mu) and support radius and print warning
            # if the current timestep is larger than the stable timestep. This formula is derived from
            # [_task_compute_non_pressure_forces] function, which computes the acceleration due to non-pressure forces.
            stable_dt = (
                self._stable_dt_coef * (0.01 * self._support_radius**2) / self.particles_info.mu.to_numpy().max()
            )
            if self.substep_dt > stable_dt:
                gs.logger.warning(
                    f"Current timestep ({self.substep_dt:.4g}) is larger than the stable timestep "
                    f"({stable_dt:.4g}) for SPH solver. "
                    "Please consider reducing the timestep, liquid viscosity (mu), or increasing the particle size."
                )

            # TODO: Support per-particle density
            self._density0 = self.particles_info[0].rho

        # Overwrite gravity because only field is supported for now
        if self._gravity is not None:
            gravity = self._gravity.to_numpy()
            self._gravity = qd.field(dtype=gs.qd_vec3, shape=(self._B,))
            self._gravity.from_numpy(gravity)

    # ------------------------------------------------------------------------------------
    # -------------------------------------- misc ----------------------------------------
    # ------------------------------------------------------------------------------------

    @property
    def is_active(self):
        return self.n_particles > 0

    def add_entity(self, idx, material, morph, surface, name: str | None = None) -> "SPHEntity":
        entity = SPHEntity(
            scene=self.scene,
            solver=self,
            material=material,
            morph=morph,
            surface=surface,
            particle_size=self._particle_size,
            idx=idx,
            particle_start=self.n_particles,
            name=name,
        )

        self.entities.append(entity)
        return entity

    # ------------------------------------------------------------------------------------
    # ----------------------------------- simulation -------------------------------------
    # ------------------------------------------------------------------------------------

    @qd.kernel
    def _kernel_reorder_particles(self, f: qd.i32):
        self.sh.compute_reordered_idx(
            self._n_particles, self.particles.pos, self.particles_ng.active, self.particles_ng.reordered_idx
        )

        # copy to reordered
        self.particles_ng_reordered.active.fill(False)

        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng[i_p, i_b].active:
                reordered_idx = self.particles_ng[i_p, i_b].reordered_idx

                self.particles_reordered[reordered_idx, i_b] = self.particles[i_p, i_b]
                self.particles_info_reordered[reordered_idx, i_b] = self.particles_info[i_p]
                self.particles_ng_reordered[reordered_idx, i_b].active = self.particles_ng[i_p, i_b].active

        if qd.static(self._coupler._rigid_sph):
            for i_p, i_g, i_b in qd.ndrange(self._n_particles, self._coupler.rigid_solver.n_geoms, self._B):
                if self.particles_ng[i_p, i_b].active:
                    self._coupler.sph_rigid_normal_reordered[self.particles_ng[i_p, i_b].reordered_idx, i_g, i_b] = (
                        self._coupler.sph_rigid_normal[i_p, i_g, i_b]
                    )

    @qd.kernel
    def _kernel_copy_from_reordered(self, f: qd.i32):
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng[i_p, i_b].active:
                # only need to copy back dynamic state, i.e. self.particles
                self.particles[i_p, i_b] = self.particles_reordered[self.particles_ng[i_p, i_b].reordered_idx, i_b]

        if qd.static(self._coupler._rigid_sph):
            for i_p, i_g, i_b in qd.ndrange(self._n_particles, self._coupler.rigid_solver.n_geoms, self._B):
                if self.particles_ng[i_p, i_b].active:
                    self._coupler.sph_rigid_normal[i_p, i_g, i_b] = self._coupler.sph_rigid_normal_reordered[
                        self.particles_ng[i_p, i_b].reordered_idx, i_g, i_b
                    ]

    @qd.func
    def _task_compute_rho(self, i, j, ret: qd.template(), i_b):
        ret += self._particle_volume * self.cubic_kernel(
            (self.particles_reordered[i, i_b].pos - self.particles_reordered[j, i_b].pos).norm()
        )

    @qd.kernel
    def _kernel_compute_rho(self, f: qd.i32):
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng_reordered[i_p, i_b].active:
                # Base density using the kernel at distance 0
                self.particles_reordered[i_p, i_b].rho = self._particle_volume * self.cubic_kernel(0.0)

                den = gs.qd_float(0.0)
                self.sh.for_all_neighbors(
                    i_p, self.particles_reordered.pos, self._support_radius, den, self._task_compute_rho, i_b
                )
                self.particles_reordered[i_p, i_b].rho += den

                self.particles_reordered[i_p, i_b].rho *= self.particles_info_reordered[i_p, i_b].rho

    @qd.func
    def _task_compute_non_pressure_forces(self, i, j, ret: qd.template(), i_b: qd.i32):
        d_ij = self.particles_reordered[i, i_b].pos - self.particles_reordered[j, i_b].pos
        dist = d_ij.norm()

        gamma_i = self.particles_info_reordered[i, i_b].gamma
        mass_i = self.particles_info_reordered[i, i_b].mass
        mu_i = self.particles_info_reordered[i, i_b].mu

        mass_j = self.particles_info_reordered[j, i_b].mass

        # -----------------------------
        # Surface Tension term
        # -----------------------------
        # If distance is bigger than _particle_size, use d_ij.norm() directly; otherwise clamp.
        effective_dist = dist if dist > self._particle_size else self._particle_size

        ret -= gamma_i / mass_i * mass_j * d_ij * self.cubic_kernel(effective_dist)

        # -----------------------------
        # Viscosity Force
        # -----------------------------
        v_ij = (self.particles_reordered[i, i_b].vel - self.particles_reordered[j, i_b].vel).dot(d_ij)

        # Some constant factor used in the viscosity formula
        d = 2 * (3 + 2)

        # The density of the neighbor j in batch b
        rho_j = self.particles_reordered[j, i_b].rho

        f_v = (
            d
            * mu_i
            * (mass_j / rho_j)
            * v_ij
            / (dist**2 + 0.01 * self._support_radius**2)
            * self.cubic_kernel_derivative(d_ij)
        )
        ret += f_v

    @qd.kernel
    def _kernel_compute_non_pressure_forces(self, f: qd.i32, t: qd.f32):
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng_reordered[i_p, i_b].active:
                acc = self._gravity[i_b]
                self.sh.for_all_neighbors(
                    i_p,
                    self.particles_reordered.pos,
                    self._support_radius,
                    acc,
                    self._task_compute_non_pressure_forces,
                    i_b,
                )

                # external force fields
                for i_ff in qd.static(range(len(self._ffs))):
                    acc += self._ffs[i_ff].get_acc(
                        self.particles_reordered[i_p, i_b].pos, self.particles_reordered[i_p, i_b].vel, t, i_p
                    )
                self.particles_reordered[i_p, i_b].acc = acc

    @qd.func
    def _task_compute_pressure_forces(self, i, j, ret: qd.template(), i_b):
        dp_i = self.particles_reordered[i, i_b].p / self.particles_reordered[i, i_b].rho ** 2
        rho_j = (
            self.particles_reordered[j, i_b].rho
            * self.particles_info_reordered[j, i_b].rho
            / self.particles_info_reordered[j, i_b].rho
        )
        dp_j = self.particles_reordered[j, i_b].p / rho_j**2

        # Compute the pressure force contribution, Symmetric Formula
        ret += (
            -self.particles_info_reordered[j, i_b].rho
            * self._particle_volume
            * (dp_i + dp_j)
            * self.cubic_kernel_derivative(self.particles_reordered[i, i_b].pos - self.particles_reordered[j, i_b].pos)
        )

    @qd.kernel
    def _kernel_compute_pressure_forces(self, f: qd.i32):
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng_reordered[i_p, i_b].active:
                rho0 = self.particles_info_reordered[i_p, i_b].rho
                stiff = self.particles_info_reordered[i_p, i_b].stiffness
                expnt = self.particles_info_reordered[i_p, i_b].exponent

                self.particles_reordered[i_p, i_b].rho = qd.max(self.particles_reordered[i_p, i_b].rho, rho0)

                self.particles_reordered[i_p, i_b].p = stiff * (
                    qd.pow(self.particles_reordered[i_p, i_b].rho / rho0, expnt) - 1.0
                )

        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng_reordered[i_p, i_b].active:
                acc = qd.Vector.zero(gs.qd_float, 3)

                self.sh.for_all_neighbors(
                    i_p,
                    self.particles_reordered.pos,  # shape [n_particles, B, 3] or similar
                    self._support_radius,
                    acc,
                    self._task_compute_pressure_forces,
                    i_b,
                )
                self.particles_reordered[i_p, i_b].acc += acc

    @qd.kernel
    def _kernel_advect_velocity(self, f: qd.i32):
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng_reordered[i_p, i_b].active:
                self.particles_reordered[i_p, i_b].vel += self._substep_dt * self.particles_reordered[i_p, i_b].acc

    @qd.kernel
    def _kernel_advect_position(self, f: qd.i32):
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng_reordered[i_p, i_b].active:
                pos = self.particles_reordered[i_p, i_b].pos
                new_vel = self.particles_reordered[i_p, i_b].vel

                # advect
                new_pos = pos + self._substep_dt * new_vel

                # impose boundary (pass b if needed)
                corrected_pos, corrected_vel = self.boundary.impose_pos_vel(new_pos, new_vel)

                # update
                self.particles_reordered[i_p, i_b].vel = corrected_vel
                self.particles_reordered[i_p, i_b].pos = corrected_pos

    # ------------------------------------------------------------------------------------
    # ------------------------------------- DFSPH ----------------------------------------
    # ------------------------------------------------------------------------------------
    @qd.func
    def _task_compute_DFSPH_factor(self, i, j, ret: qd.template(), i_b):
        # Fluid neighbors
        grad_j = -self._particle_volume * self.cubic_kernel_derivative(
            self.particles_reordered[i, i_b].pos - self.particles_reordered[j, i_b].pos
        )
        ret[3] += grad_j.norm_sqr()  # sum_grad_p_k
        for ii in qd.static(range(3)):  # grad_p_i
            ret[ii] -= grad_j[ii]

    @qd.kernel
    def _kernel_compute_DFSPH_factor(self, f: qd.i32):
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng_reordered[i_p, i_b].active:
                sum_grad_p_k = gs.qd_float(0.0)
                grad_p_i = qd.Vector.zero(gs.qd_float, 3)

                # `ret` concatenates `grad_p_i` and `sum_grad_p_k`
                ret = qd.Vector.zero(gs.qd_float, 4)

                self.sh.for_all_neighbors(
                    i_p, self.particles_reordered.pos, self._support_radius, ret, self._task_compute_DFSPH_factor, i_b
                )

                sum_grad_p_k = ret[3]
                for ii in qd.static(range(3)):
                    grad_p_i[ii] = ret[ii]
                sum_grad_p_k += grad_p_i.norm_sqr()

                # Compute pressure stiffness denominator
                factor = gs.qd_float(0.0)
                if sum_grad_p_k > 1e-6:
                    factor = -1.0 / sum_grad_p_k
                else:
                    factor = 0.0
                self.particles_reordered[i_p, i_b].dfsph_factor = factor

    @qd.func
    def _task_compute_density_time_derivative(self, i, j, ret: qd.template(), i_b):
        v_i = self.particles_reordered[i, i_b].vel
        v_j = self.particles_reordered[j, i_b].vel

        x_i = self.particles_reordered[i, i_b].pos
        x_j = self.particles_reordered[j, i_b].pos

        # Fluid neighbors
        ret.drho += self._particle_volume * (v_i - v_j).dot(self.cubic_kernel_derivative(x_i - x_j))
        ret.num_neighbors += 1

    @qd.kernel
    def _kernel_compute_density_time_derivative(self):
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng_reordered[i_p, i_b].active:
                ret = qd.Struct(drho=0.0, num_neighbors=0)
                self.sh.for_all_neighbors(
                    i_p,
                    self.particles_reordered.pos,
                    self._support_radius,
                    ret,
                    self._task_compute_density_time_derivative,
                    i_b,
                )

                # only correct positive divergence
                drho = qd.max(ret.drho, 0.0)
                num_neighbors = ret.num_neighbors

                # Do not perform divergence solve when paritlce deficiency happens
                if num_neighbors < 20:
                    drho = 0.0

                self.particles_reordered[i_p, i_b].drho = drho

    @qd.func
    def _task_divergence_solver_iteration(self, i, j, ret: qd.template(), i_b):
        # Fluid neighbors
        b_j = self.particles_reordered[j, i_b].drho
        k_j = b_j * self.particles_reordered[j, i_b].dfsph_factor
        k_sum = (
            self._density0 / self._density0 * ret.k_i + k_j
        )  # TODO: make the neighbor density different for multiphase fluid
        if qd.abs(k_sum) > self._df_eps:
            grad_p_j = -self._particle_volume * self.cubic_kernel_derivative(
                self.particles_reordered.pos[i, i_b] - self.particles_reordered.pos[j, i_b]
            )
            ret.dv -= (
                k_sum * grad_p_j
            )  # ki, kj already contain inverse density, i.e., density canceled if not mutiphase flow

    @qd.kernel
    def _kernel_divergence_solver_iteration(self):
        # Perform Jacobi iteration
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng_reordered[i_p, i_b].active:
                # evaluate rhs
                b_i = self.particles_reordered[i_p, i_b].drho
                k_i = b_i * self.particles_reordered[i_p, i_b].dfsph_factor
                ret = qd.Struct(dv=qd.Vector.zero(gs.qd_float, 3), k_i=k_i)
                # TODO: if warm start
                # get_kappa_V += k_i
                self.sh.for_all_neighbors(
                    i_p,
                    self.particles_reordered.pos,
                    self._support_radius,
                    ret,
                    self._task_divergence_solver_iteration,
                    i_b,
                )
                self.particles_reordered.vel[i_p, i_b] = self.particles_reordered.vel[i_p, i_b] + ret.dv

    @qd.kernel
    def _kernel_compute_density_error(self, offset: float) -> float:
        density_error = gs.qd_float(0.0)
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng_reordered[i_p, i_b].active:
                density_error += self._density0 * self.particles_reordered[i_p, i_b].drho - offset
        return density_error

    def _divergence_solver_iteration(self):
        self._kernel_divergence_solver_iteration()
        self._kernel_compute_density_time_derivative()
        density_err = self._kernel_compute_density_error(0.0)
        return density_err / self._n_particles

    def _divergence_solve(self, f: qd.i32):
        # TODO: warm start
        # Compute velocity of density change
        self._kernel_compute_density_time_derivative()
        inv_dt = 1 / self._substep_dt
        # self._kernel_multiply_time_step(self.ps.dfsph_factor, inv_dt)

        # Start solver
        iteration = 0
        avg_density_err = 0.0
        while iteration < self._df_max_div_iters:
            avg_density_err = self._divergence_solver_iteration()
            # Max allowed density fluctuation
            # The SI unit for divergence is s^-1, use max density error divided by time step size
            eta = inv_dt * self._df_max_error_div * 0.01 * self._density0
            if avg_density_err <= eta:
                break
            iteration += 1

        gs.logger.debug(f"DFSPH - iteration V: {iteration} Avg divergence err: {avg_density_err / self._density0:.4f}")

        # Multiply by h, the time step size has to be removed
        # to make the stiffness value independent
        # of the time step size

        # TODO: if warm start
        # also remove for kappa v

        # self._kernel_multiply_time_step(self.ps.dfsph_factor, self.dt[None])

    @qd.kernel
    def _kernel_predict_velocity(self, f: qd.i32):
        # compute new velocities only considering non-pressure forces
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng_reordered[i_p, i_b].active:
                self.particles_reordered[i_p, i_b].vel += self._substep_dt * self.particles_reordered[i_p, i_b].acc

    @qd.func
    def _task_compute_density_star(self, i, j, ret: qd.template(), i_b):
        v_i = self.particles_reordered[i, i_b].vel
        v_j = self.particles_reordered[j, i_b].vel
        x_i = self.particles_reordered[i, i_b].pos
        x_j = self.particles_reordered[j, i_b].pos
        ret += self._particle_volume * (v_i - v_j).dot(self.cubic_kernel_derivative(x_i - x_j))

    @qd.kernel
    def _kernel_compute_density_star(self):
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng_reordered[i_p, i_b].active:
                delta = gs.qd_float(0.0)
                self.sh.for_all_neighbors(
                    i_p, self.particles_reordered.pos, self._support_radius, delta, self._task_compute_density_star, i_b
                )
                drho = self.particles_reordered[i_p, i_b].rho / self._density0 + self._substep_dt * delta
                self.particles_reordered[i_p, i_b].drho = qd.max(drho, 1.0)  # - 1.0

    @qd.func
    def density_solve_iteration_task(self, i, j, ret: qd.template(), i_b):
        # Fluid neighbors
        b_j = self.particles_reordered[j, i_b].drho - 1.0
        k_j = b_j * self.particles_reordered[j, i_b].dfsph_factor
        k_sum = (
            self._density0 / self._density0 * ret.k_i + k_j
        )  # TODO: make the neighbor density0 different for multiphase fluid
        if qd.abs(k_sum) > self._df_eps:
            grad_p_j = -self._particle_volume * self.cubic_kernel_derivative(
                self.particles_reordered[i, i_b].pos - self.particles_reordered[j, i_b].pos
            )
            # Directly update velocities instead of storing pressure accelerations
            ret.dv -= (
                self._substep_dt * k_sum * grad_p_j
            )  # ki, kj already contain inverse density, i.e., density canceled if not mutiphase flow

    @qd.kernel
    def _kernel_density_solve_iteration(self):
        # Compute pressure forces
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng_reordered[i_p, i_b].active:
                # Evaluate rhs
                b_i = self.particles_reordered[i_p, i_b].drho - 1.0
                k_i = b_i * self.particles_reordered[i_p, i_b].dfsph_factor

                ret = qd.Struct(dv=qd.Vector.zero(gs.qd_float, 3), k_i=k_i)

                # TODO: if warmstart
                # get kappa V
                self.sh.for_all_neighbors(
                    i_p, self.particles_reordered.pos, self._support_radius, ret, self.density_solve_iteration_task, i_b
                )
                self.particles_reordered[i_p, i_b].vel = self.particles_reordered[i_p, i_b].vel + ret.dv

    def _density_solve_iteration(self):
        self._kernel_density_solve_iteration()
        self._kernel_compute_density_star()
        density_err = self._kernel_compute_density_error(self._density0)
        return density_err / self._n_particles

    @qd.kernel
    def _kernel_multiply_time_step(self, field: qd.template(), time_step: float):
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng_reordered[i_p, i_b].active:
                field[i_p, i_b] *= time_step

    def _density_solve(self, f: qd.i32):
        inv_dt2 = 1.0 / self._substep_dt**2

        # Compute density star
        self._kernel_compute_density_star()

        self._kernel_multiply_time_step(self.particles_reordered.dfsph_factor, inv_dt2)

        # Start solver
        iteration = 0
        avg_density_err = 0.0
        while iteration < self._df_max_den_iters:
            avg_density_err = self._density_solve_iteration()
            # Max allowed density fluctuation
            eta = self._df_max_error_den * 0.01 * self._density0
            if avg_density_err <= eta:
                break
            iteration += 1

        gs.logger.debug(f"DFSPH - iterations: {iteration} Avg density err: {avg_density_err:.4f} kg/m^3")

    # ------------------------------------------------------------------------------------
    # ------------------------------------- utils ----------------------------------------
    # ------------------------------------------------------------------------------------

    @qd.func
    def cubic_kernel(self, r_norm):
        """
        Cubic spline smoothing kernel.
        """
        res = gs.qd_float(0.0)
        h = self._support_radius
        k = 8.0 / np.pi / h**3
        q = r_norm / h
        if q <= 1.0:
            if q <= 0.5:
                q2 = q**2
                q3 = q2 * q
                res = k * (6.0 * q3 - 6.0 * q2 + 1.0)
            else:
                res = 2 * k * (1.0 - q) ** 3
        return res

    @qd.func
    def cubic_kernel_derivative(self, r):
        """
        Derivative of cubic spline smoothing kernel.
        """
        res = qd.Vector.zero(gs.qd_float, 3)

        r_norm = r.norm()
        h = self._support_radius
        k = 8.0 / np.pi / h**3
        q = r_norm / h
        if r_norm > 1e-5 and q <= 1.0:
            grad_q = r / (r_norm * h)
            if q <= 0.5:
                res = 6.0 * k * q * (3.0 * q - 2.0) * grad_q
            else:
                res = -6.0 * k * (1.0 - q) ** 2 * grad_q
        return res

    # ------------------------------------------------------------------------------------
    # ------------------------------------ stepping --------------------------------------
    # ------------------------------------------------------------------------------------

    def process_input(self, in_backward=False):
        for entity in self.entities:
            entity.process_input(in_backward=in_backward)

    def process_input_grad(self):
        for entity in self.entities[::-1]:
            entity.process_input_grad()

    def substep_pre_coupling(self, f):
        if self.is_active:
            self._kernel_reorder_particles(f)
            if self._pressure_solver == "WCSPH":
                self._kernel_compute_rho(f)
                self._kernel_compute_non_pressure_forces(f, self._sim.cur_t)
                self._kernel_compute_pressure_forces(f)
                self._kernel_advect_velocity(f)
            elif self._pressure_solver == "DFSPH":
                self._kernel_compute_rho(f)
                self._kernel_compute_DFSPH_factor(f)
                self._divergence_solve(f)
                self._kernel_advect_velocity(f)
                self._kernel_compute_non_pressure_forces(f, self._sim.cur_t)
                self._kernel_predict_velocity(f)
                self._density_solve(f)

    def substep_pre_coupling_grad(self, f):
        pass

    def substep_post_coupling(self, f):
        if self.is_active:
            self._kernel_advect_position(f)
            self._kernel_copy_from_reordered(f)

    def substep_post_coupling_grad(self, f):
        pass

    # ------------------------------------------------------------------------------------
    # ------------------------------------ gradient --------------------------------------
    # ------------------------------------------------------------------------------------

    def collect_output_grads(self):
        """
        Collect gradients from downstream queried states.
        """
        pass

    def add_grad_from_state(self, state):
        pass

    # ------------------------------------------------------------------------------------
    # --------------------------------------- io -----------------------------------------
    # ------------------------------------------------------------------------------------

    def save_ckpt(self, ckpt_name):
        pass

    def load_ckpt(self, ckpt_name):
        pass

    def set_state(self, f, state, envs_idx=None):
        if self.is_active:
            self._kernel_set_state(f, state.pos, state.vel, state.active)

    @qd.kernel
    def _kernel_set_state(
        self,
        f: qd.i32,
        pos: qd.types.ndarray(),
        vel: qd.types.ndarray(),
        active: qd.types.ndarray(),
    ):
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            for j in qd.static(range(3)):
                self.particles[i_p, i_b].pos[j] = pos[i_b, i_p, j]
                self.particles[i_p, i_b].vel[j] = vel[i_b, i_p, j]
            self.particles_ng[i_p, i_b].active = active[i_b, i_p]

    def get_state(self, f):
        if self.is_active:
            state = SPHSolverState(self.scene)
            self._kernel_get_state(f, state.pos, state.vel, state.active)
        else:
            state = None
        return state

    @qd.kernel
    def _kernel_get_state(
        self,
        f: qd.i32,
        pos: qd.types.ndarray(),
        vel: qd.types.ndarray(),
        active: qd.types.ndarray(),
    ):
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            for j in qd.static(range(3)):
                pos[i_b, i_p, j] = self.particles[i_p, i_b].pos[j]
                vel[i_b, i_p, j] = self.particles[i_p, i_b].vel[j]
            active[i_b, i_p] = self.particles_ng[i_p, i_b].active

    def update_render_fields(self):
        self._kernel_update_render_fields(self.sim.cur_substep_local)

    @qd.kernel
    def _kernel_update_render_fields(self, f: qd.i32):
        for i_p, i_b in qd.ndrange(self._n_particles, self._B):
            if self.particles_ng[i_p, i_b].active:
                self.particles_render[i_p, i_b].pos = self.particles[i_p, i_b].pos
                self.particles_render[i_p, i_b].vel = self.particles[i_p, i_b].vel
            else:
                self.particles_render[i_p, i_b].pos = gu.qd_nowhere()
            self.particles_render[i_p, i_b].active = self.particles_ng[i_p, i_b].active

    @qd.kernel
    def _kernel_add_particles(
        self,
        f: qd.i32,
        active: qd.i32,
        particle_start: qd.i32,
        n_particles: qd.i32,
        mat_rho: qd.f32,
        mat_stiffness: qd.f32,
        mat_exponent: qd.f32,
        mat_mu: qd.f32,
        mat_gamma: qd.f32,
        pos: qd.types.ndarray(),
    ):
        for i_p_, i_b in qd.ndrange(n_particles, self._B):
            i_p = i_p_ + particle_start
            self.particles_ng[i_p, i_b].active = qd.cast(active, gs.qd_bool)
            for i in qd.static(range(3)):
                self.particles[i_p, i_b].pos[i] = pos[i_p_, i]
            self.particles[i_p, i_b].vel = qd.Vector.zero(gs.qd_float, 3)
            self.particles[i_p, i_b].p = 0

        for i_p_ in range(n_particles):
            i_p = i_p_ + particle_start
            self.particles_info[i_p].rho = mat_rho
            self.particles_info[i_p].stiffness = mat_stiffness
            self.particles_info[i_p].exponent = mat_exponent
            self.particles_info[i_p].mu = mat_mu
            self.particles_info[i_p].gamma = mat_gamma
            self.particles_info[i_p].mass = self._particle_volume * mat_rho

    # ----------------------------------------------------------------------

    @qd.kernel
    def _kernel_set_particles_pos(
        self,
        particles_idx: qd.types.ndarray(),
        envs_idx: qd.types.ndarray(),
        poss: qd.types.ndarray(),
    ):
        for i_p_, i_b_ in qd.ndrange(particles_idx.shape[1], envs_idx.shape[0]):
            i_p = particles_idx[i_b_, i_p_]
            i_b = envs_idx[i_b_]
            for i in qd.static(range(3)):
                self.particles[i_p, i_b].pos[i] = poss[i_b_, i_p_, i]
            self.particles[i_p, i_b].vel.fill(0.0)
            self.particles[i_p, i_b].acc.fill(0.0)

    @qd.kernel
    def _kernel_get_particles_pos(
        self,
        particle_start: qd.i32,
        n_particles: qd.i32,
        envs_idx: qd.types.ndarray(),
        poss: qd.types.ndarray(),
    ):
        for i_p_, i_b_ in qd.ndrange(n_particles, envs_idx.shape[0]):
            i_p = i_p_ + particle_start
            i_b = envs_idx[i_b_]
            for i in qd.static(range(3)):
                poss[i_b_, i_p_, i] = self.particles[i_p, i_b].pos[i]

    @qd.kernel
    def _kernel_set_particles_vel(
        self,
        particles_idx: qd.types.ndarray(),
        envs_idx: qd.types.ndarray(),
        vels: qd.types.ndarray(),
    ):
        for i_p_, i_b_ in qd.ndrange(particles_idx.shape[1], envs_idx.shape[0]):
            i_p = particles_idx[i_b_, i_p_]
            i_b = envs_idx[i_b_]
            for i in qd.static(range(3)):
                self.particles[i_p, i_b].vel[i] = vels[i_b_, i_p_, i]
            self.particles[i_p, i_b].acc = qd.Vector.zero(gs.qd_float, 3)

    @qd.kernel
    def _kernel_get_particles_vel(
        self,
        particle_start: qd.i32,
        n_particles: qd.i32,
        envs_idx: qd.types.ndarray(),
        vels: qd.types.ndarray(),
    ):
        for i_p_, i_b_ in qd.ndrange(n_particles, envs_idx.shape[0]):
            i_p = i_p_ + particle_start
            i_b = envs_idx[i_b_]
            for i in qd.static(range(3)):
                vels[i_b_, i_p_, i] = self.particles[i_p, i_b].vel[i]

    @qd.kernel
    def _kernel_set_particles_active(
        self,
        particles_idx: qd.types.ndarray(),
        envs_idx: qd.types.ndarray(),
        actives: qd.types.ndarray(),  # shape [B, n_particles]
    ):
        for i_p_, i_b_ in qd.ndrange(particles_idx.shape[1], envs_idx.shape[0]):
            i_p = particles_idx[i_b_, i_p_]
            i_b = envs_idx[i_b_]
            self.particles_ng[i_p, i_b].active = actives[i_b_, i_p_]

    @qd.kernel
    def _kernel_get_particles_active(
        self,
        particle_start: qd.i32,
        n_particles: qd.i32,
        envs_idx: qd.types.ndarray(),
        actives: qd.types.ndarray(),  # shape [B, n_particles]
    ):
        for i_p_, i_b_ in qd.ndrange(n_particles, envs_idx.shape[0]):
            i_p = i_p_ + particle_start
            i_b = envs_idx[i_b_]
            actives[i_b_, i_p_] = self.particles_ng[i_p, i_b].active

    @qd.kernel
    def _kernel_get_mass(
        self, particle_start: qd.i32, n_particles: qd.i32, mass: qd.types.ndarray(), envs_idx: qd.types.ndarray()
    ):
        for i_p_, i_b_ in qd.ndrange(n_particles, envs_idx.shape[0]):
            i_p = i_p_ + particle_start
            i_b = envs_idx[i_b_]
            mass[i_b_] += self.particles[i_p, i_b].m

    # ------------------------------------------------------------------------------------
    # ----------------------------------- properties -------------------------------------
    # ------------------------------------------------------------------------------------

    @property
    def n_particles(self):
        if self.is_built:
            return self._n_particles
        else:
            return sum([entity.n_particles for entity in self._entities])

    @property
    def particle_volume(self):
        return self._particle_volume

    @property
    def particle_size(self):
        return self._particle_size

    @property
    def particle_radius(self):
        return self._particle_size / 2.0

    @property
    def support_radius(self):
        return self._support_radius

    @property
    def hash_grid_res(self):
        return self.sh.grid_res

    @property
    def hash_grid_cell_size(self):
        return self.sh.cell_size

    @property
    def upper_bound(self):
        return self._upper_bound

    @property
    def lower_bound(self):
        return self._lower_bound


# ---- stand-in scene: a block of liquid (SPH Liquid material defaults) dropped in a box ----
class StandInEntity:
    """the part of SPHEntity the solver uses: a regular block of particles added with _kernel_add_particles"""

    def __init__(self, solver, pos):
        self.solver = solver
        self.pos = pos
        self.n_particles = pos.shape[0]

    def _add_to_solver(self):
        self.solver._kernel_add_particles(0, 1, 0, self.n_particles, 1000.0, 50000.0, 7.0, 0.005, 0.01, self.pos)

    def process_input(self, in_backward=False):
        pass


def run(pressure_solver, n_steps):
    particle_size = 0.02
    support_radius = 2 * particle_size
    lower, upper = np.array([0.0, 0.0, 0.0]), np.array([0.4, 0.4, 0.6])
    options = types.SimpleNamespace(
        dt=2e-3, gravity=(0.0, 0.0, -9.8), particle_size=particle_size, _support_radius=support_radius,
        pressure_solver=pressure_solver, max_divergence_error=0.1, max_density_error_percent=0.05,
        max_divergence_solver_iterations=100, max_density_solver_iterations=100,
        upper_bound=tuple(upper), lower_bound=tuple(lower), hash_grid_cell_size=support_radius,
        _hash_grid_res=np.minimum(np.ceil((upper - lower) / support_radius), 150).astype(np.int32),
    )
    sim = types.SimpleNamespace(_B=1, substeps=1, cur_t=0.0, _coupler=types.SimpleNamespace(_rigid_sph=False))
    solver = SPHSolver(None, sim, options)
    solver._built = False
    g = np.stack(np.meshgrid(*(np.arange(10),) * 3, indexing="ij"), -1).reshape(-1, 3)
    pos = (0.05 + g * particle_size * 1.0).astype(np.float32)
    solver._entities.append(StandInEntity(solver, pos))
    solver.build()
    solver._built = True
    for f in range(n_steps):
        solver.substep_pre_coupling(f)
        solver.substep_post_coupling(f)
        sim.cur_t += options.dt
    report(f"{pressure_solver}_pos", solver.particles.pos.to_numpy())
    report(f"{pressure_solver}_vel", solver.particles.vel.to_numpy())
    report(f"{pressure_solver}_rho", solver.particles.rho.to_numpy())


run("WCSPH", 15)
run("DFSPH", 6)
