# corpus: genesis_sf_smoke
# source: github:Genesis-Embodied-AI/Genesis@7bf5f6a7bf2946efc3a1e93667700011456078b5 genesis/engine/solvers/sf_solver.py examples/smoke.py
# license: Apache-2.0
# area: fluids
# port: SFSolver (sf_solver.py, from the class on, with TexPair) and Jet (examples/smoke.py) copied verbatim; Solver base -> stand-in with the attributes used (dt, _B); `gs` -> stand-in namespace; scene, options and sim -> SimpleNamespace stand-ins with the example's values at its test resolution (res 384 -> 24, solver_iters 200 -> 30, 6 substeps, jet_radius 0.02 -> 0.08 so jets cover cells at this resolution); video output dropped; checksum lines added
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


# ---- stand-in for genesis.engine.solvers.base_solver.Solver (the attributes SFSolver uses) ----
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

    @property
    def dt(self):
        return self._dt

    @property
    def substep_dt(self):
        return self._substep_dt


# ---- genesis/engine/solvers/sf_solver.py (verbatim from class SFSolver on, incl. TexPair) ----
@qd.data_oriented
class SFSolver(Solver):
    """
    Stable Fluid solver for eulerian-based gaseous simulation.
    """

    # ------------------------------------------------------------------------------------
    # --------------------------------- Initialization -----------------------------------
    # ------------------------------------------------------------------------------------

    def __init__(self, scene, sim, options):
        super().__init__(scene, sim, options)

        if options is None:
            return

        self.n_grid = options.res
        self.dx = 1 / self.n_grid
        self.res = (self.n_grid, self.n_grid, self.n_grid)
        self.solver_iters = options.solver_iters
        self.decay = options.decay

        self.t = 0.0
        self.inlet_s = options.inlet_s

        self.jets = ()

    def setup_fields(self):
        assert self.jets

        cell_state = qd.types.struct(
            v=gs.qd_vec3,
            v_tmp=gs.qd_vec3,
            div=gs.qd_float,
            p=gs.qd_float,
            q=qd.types.vector(len(self.jets), gs.qd_float),
        )

        self.grid = cell_state.field(shape=self.res, layout=qd.Layout.SOA)

        # swap area for pressure projection solver
        self.p_swap = TexPair(
            cur=qd.field(dtype=gs.qd_float, shape=self.res),
            nxt=qd.field(dtype=gs.qd_float, shape=self.res),
        )

    @qd.kernel
    def init_fields(self):
        for I in qd.grouped(qd.ndrange(*self.res)):
            for q in qd.static(range(self.grid.q.n)):
                self.grid.q[I][q] = 0.0

    def reset_grad(self):
        pass

    def build(self):
        super().build()

        if self.is_active:
            self.t = 0.0
            self.setup_fields()
            self.init_fields()

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
        return bool(self.jets)

    def set_jets(self, jets):
        assert isinstance(jets, (list, tuple))
        self.jets = tuple(jets)

    def reset_swap(self):
        self.p_swap.cur.fill(0)
        self.p_swap.nxt.fill(0)

    # ------------------------------------------------------------------------------------
    # ----------------------------------- simulation -------------------------------------
    # ------------------------------------------------------------------------------------

    @qd.kernel
    def pressure_jacobi(self, pf: qd.template(), new_pf: qd.template()):
        for u, v, w in qd.ndrange(*self.res):
            pl = pf[self.compute_location(u, v, w, -1, 0, 0)]
            pr = pf[self.compute_location(u, v, w, 1, 0, 0)]
            pb = pf[self.compute_location(u, v, w, 0, -1, 0)]
            pt = pf[self.compute_location(u, v, w, 0, 1, 0)]
            pp = pf[self.compute_location(u, v, w, 0, 0, -1)]
            pq = pf[self.compute_location(u, v, w, 0, 0, 1)]

            new_pf[u, v, w] = (pl + pr + pb + pt + pp + pq - self.grid[u, v, w].div) / 6.0

    @qd.kernel
    def advect_and_impulse(self, f: qd.i32, t: qd.f32):
        for i, j, k in qd.ndrange(*self.res):
            p = qd.Vector([i, j, k], dt=gs.qd_float) + 0.5
            p = self.backtrace(self.grid.v, p, self.dt)
            v_tmp = self.trilerp(self.grid.v, p)

            for q in qd.static(range(self.grid.q.n)):
                q_f = self.trilerp_scalar(self.grid.q, p, q)

                imp_dir = self.jets[q].get_tan_dir(t)
                factor = self.jets[q].get_factor(i, j, k, self.dx, t)
                momentum = (imp_dir * self.inlet_s * factor) * self.dt

                v_tmp += momentum

                self.grid.q[i, j, k][q] = (1 - factor) * q_f + factor
                # self.grid.q[i, j, k][q] *= self.decay
                self.grid.q[i, j, k][q] -= self.decay * self.dt
                self.grid.q[i, j, k][q] = max(0.0, self.grid.q[i, j, k][q])

            self.grid.v_tmp[i, j, k] = v_tmp

    @qd.kernel
    def divergence(self):
        for u, v, w in qd.ndrange(*self.res):
            vl = self.grid.v_tmp[self.compute_location(u, v, w, -1, 0, 0)]
            vr = self.grid.v_tmp[self.compute_location(u, v, w, 1, 0, 0)]
            vb = self.grid.v_tmp[self.compute_location(u, v, w, 0, -1, 0)]
            vt = self.grid.v_tmp[self.compute_location(u, v, w, 0, 1, 0)]
            vp = self.grid.v_tmp[self.compute_location(u, v, w, 0, 0, -1)]
            vq = self.grid.v_tmp[self.compute_location(u, v, w, 0, 0, 1)]
            vc = self.grid.v_tmp[self.compute_location(u, v, w, 0, 0, 0)]

            if not self.is_free(u, v, w, -1, 0, 0):
                vl.x = -vc.x
            if not self.is_free(u, v, w, 1, 0, 0):
                vr.x = -vc.x
            if not self.is_free(u, v, w, 0, -1, 0):
                vb.y = -vc.y
            if not self.is_free(u, v, w, 0, 1, 0):
                vt.y = -vc.y
            if not self.is_free(u, v, w, 0, 0, -1):
                vp.z = -vc.z
            if not self.is_free(u, v, w, 0, 0, 1):
                vq.z = -vc.z

            self.grid.div[u, v, w] = 0.5 * (vr.x - vl.x + vt.y - vb.y + vq.z - vp.z)

    @qd.kernel
    def pressure_to_swap(self):
        for I in qd.grouped(qd.ndrange(*self.res)):
            self.p_swap.cur[I] = self.grid.p[I]

    @qd.kernel
    def pressure_from_swap(self):
        for I in qd.grouped(qd.ndrange(*self.res)):
            self.grid.p[I] = self.p_swap.cur[I]

    @qd.kernel
    def subtract_gradient(self):
        for I in qd.grouped(qd.ndrange(*self.res)):
            u, v, w = I
            pl = self.grid.p[self.compute_location(u, v, w, -1, 0, 0)]
            pr = self.grid.p[self.compute_location(u, v, w, 1, 0, 0)]
            pb = self.grid.p[self.compute_location(u, v, w, 0, -1, 0)]
            pt = self.grid.p[self.compute_location(u, v, w, 0, 1, 0)]
            pp = self.grid.p[self.compute_location(u, v, w, 0, 0, -1)]
            pq = self.grid.p[self.compute_location(u, v, w, 0, 0, 1)]

            self.grid.v[I] = self.grid.v_tmp[I] - 0.5 * qd.Vector([pr - pl, pt - pb, pq - pp], dt=gs.qd_float)

    @qd.func
    def compute_location(self, u, v, w, du, dv, dw):
        I = qd.Vector([u + du, v + dv, w + dw], dt=gs.qd_int)
        return qd.math.clamp(I, 0, self.n_grid - 1)

    @qd.func
    def is_free(self, u, v, w, du, dv, dw):
        I = qd.Vector([u + du, v + dv, w + dw], dt=gs.qd_int)
        return gs.qd_bool((0 <= I).all() and (I < self.n_grid).all())

    @qd.func
    def trilerp_scalar(self, qf, p, qf_idx):
        """
        p: position, within (0, 1).
        qf: field for interpolation
        """
        # convert position to grid index
        base_I = qd.floor(p - 0.5, gs.qd_int)
        p_I = p - 0.5

        q = 0.0
        w_total = 0.0
        for offset in qd.static(qd.grouped(qd.ndrange(2, 2, 2))):
            grid_I = base_I + offset
            w_xyz = 1 - qd.abs(p_I - grid_I)
            w = w_xyz[0] * w_xyz[1] * w_xyz[2]
            grid_I_ = self.compute_location(grid_I[0], grid_I[1], grid_I[2], 0, 0, 0)
            q += w * qf[grid_I_][qf_idx]
            w_total += w
        # w_total is less then one when at boundary
        q /= w_total
        return q

    @qd.func
    def trilerp(self, qf, p):
        """
        p: position, within (0, 1).
        qf: field for interpolation
        """
        # convert position to grid index
        base_I = qd.floor(p - 0.5, gs.qd_int)
        p_I = p - 0.5

        q = qd.Vector([0.0, 0.0, 0.0], dt=gs.qd_float)
        w_total = 0.0
        for offset in qd.static(qd.grouped(qd.ndrange(2, 2, 2))):
            grid_I = base_I + offset
            w_xyz = 1 - qd.abs(p_I - grid_I)
            w = w_xyz[0] * w_xyz[1] * w_xyz[2]
            grid_I_ = self.compute_location(grid_I[0], grid_I[1], grid_I[2], 0, 0, 0)
            q += w * qf[grid_I_]
            w_total += w
        # w_total is less then one when at boundary
        q /= w_total
        return q

    # RK3
    @qd.func
    def backtrace(self, vf, p, dt):
        """
        vf: velocity field
        """
        v1 = self.trilerp(vf, p)
        p1 = p - 0.5 * dt * v1
        v2 = self.trilerp(vf, p1)
        p2 = p - 0.75 * dt * v2
        v3 = self.trilerp(vf, p2)
        p -= dt * ((2 / 9) * v1 + (1 / 3) * v2 + (4 / 9) * v3)
        return p

    # ------------------------------------------------------------------------------------
    # ------------------------------------ stepping --------------------------------------
    # ------------------------------------------------------------------------------------

    def process_input(self, in_backward):
        return None

    def substep_pre_coupling(self, f):
        self.advect_and_impulse(f, self.t)
        self.divergence()

        # projection
        self.reset_swap()
        self.pressure_to_swap()
        for _ in range(self.solver_iters):
            self.pressure_jacobi(self.p_swap.cur, self.p_swap.nxt)
            self.p_swap.swap()
        self.pressure_from_swap()
        self.reset_swap()

        self.subtract_gradient()
        self.t += self.dt

    def substep_post_coupling(self, f):
        return

    # ------------------------------------------------------------------------------------
    # ------------------------------------ gradient --------------------------------------
    # ------------------------------------------------------------------------------------

    def collect_output_grads(self):
        pass

    def add_grad_from_state(self, state):
        pass

    # ------------------------------------------------------------------------------------
    # --------------------------------------- io -----------------------------------------
    # ------------------------------------------------------------------------------------

    def get_state(self, f):
        pass

    def set_state(self, f, state, envs_idx=None):
        pass

    def save_ckpt(self, ckpt_name):
        pass

    def load_ckpt(self, ckpt_name):
        pass


class TexPair:
    def __init__(self, cur, nxt):
        self.cur = cur
        self.nxt = nxt

    def swap(self):
        self.cur, self.nxt = self.nxt, self.cur


# ---- examples/smoke.py: class Jet (verbatim) ----
@qd.data_oriented
class Jet(object):
    def __init__(
        self,
        world_center,
        jet_radius,
        orbit_radius,
        orbit_radius_vel,
        orbit_init_degree,
        orbit_tau,
        sub_orbit_radius,
        sub_orbit_tau,
    ):
        self.world_center = qd.Vector(world_center)
        self.orbit_radius = orbit_radius
        self.orbit_radius_vel = orbit_radius_vel
        self.orbit_init_radian = math.radians(orbit_init_degree)
        self.orbit_tau = orbit_tau

        self.jet_radius = jet_radius

        self.num_sub_jets = 3
        self.sub_orbit_radian_delta = 2.0 * math.pi / self.num_sub_jets
        self.sub_orbit_radius = sub_orbit_radius
        self.sub_orbit_tau = sub_orbit_tau

    @qd.func
    def get_pos(self, t: float):
        rel_pos = qd.Vector([self.orbit_radius + t * self.orbit_radius_vel, 0.0, 0.0])
        rot_mat = qd.math.rot_by_axis(qd.Vector([0.0, 1.0, 0.0]), self.orbit_init_radian + t * self.orbit_tau)[:3, :3]
        rel_pos = rot_mat @ rel_pos
        return rel_pos

    @qd.func
    def get_factor(self, i: int, j: int, k: int, dx: float, t: float):
        rel_pos = self.get_pos(t)
        tan_dir = self.get_tan_dir(t)
        ijk = qd.Vector([i, j, k], dt=gs.qd_float) * dx
        dist = 2 * self.jet_radius
        for q in qd.static(range(self.num_sub_jets)):
            jet_pos = qd.Vector([0.0, self.sub_orbit_radius, 0.0])
            rot_mat = qd.math.rot_by_axis(tan_dir, self.sub_orbit_radian_delta * q + self.sub_orbit_tau * t)[:3, :3]
            jet_pos = (rot_mat @ jet_pos) + self.world_center + rel_pos
            dist_q = (ijk - jet_pos).norm(gs.EPS)
            if dist_q < dist:
                dist = dist_q
        factor = 0.0
        if dist < self.jet_radius:
            factor = 1.0
        return factor

    @qd.func
    def get_inward_dir(self, t: float):
        neg_pos = -self.get_pos(t)
        return neg_pos.normalized(gs.EPS)

    @qd.func
    def get_tan_dir(self, t: float):
        inward_dir = self.get_inward_dir(t)
        tan_rot_mat = qd.math.rot_by_axis(qd.Vector([0.0, 1.0, 0.0]), 0.0)[:3, :3]
        return tan_rot_mat @ inward_dir

# ---- stand-in scene (examples/smoke.py's set-up at its test size, fewer steps) ----
sim = types.SimpleNamespace(_B=1, substeps=1)
options = types.SimpleNamespace(dt=1e-2, res=24, solver_iters=30, decay=0.025, inlet_s=400.0)
solver = SFSolver(None, sim, options)
jets = [
    Jet(
        world_center=[0.5, 0.5, 0.5],
        orbit_radius=0.3,
        orbit_radius_vel=0.0,
        orbit_init_degree=orbit_init_degree,
        orbit_tau=0.2,
        sub_orbit_radius=0.03,
        jet_radius=0.02 * 4,
        sub_orbit_tau=3.0,
    )
    for orbit_init_degree in np.linspace(0, 360, 3, endpoint=False)
]
solver.set_jets(jets)
solver.build()
for f in range(6):
    solver.substep_pre_coupling(f)
    solver.substep_post_coupling(f)
g = solver.grid
report("q", g.q.to_numpy())
report("v", g.v.to_numpy())
report("p", g.p.to_numpy())
report("div", g.div.to_numpy())
print("checksum t", repr(float(solver.t)))
