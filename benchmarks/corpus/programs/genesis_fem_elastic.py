# corpus: genesis_fem_elastic
# source: github:Genesis-Embodied-AI/Genesis@7bf5f6a7bf2946efc3a1e93667700011456078b5 genesis/engine/materials/FEM/elastic.py genesis/engine/materials/FEM/base.py
# license: Apache-2.0
# area: fem
# port: FEM material Base (base.py, from the class on) and Elastic (elastic.py, from partialJpartialF on) copied verbatim; genesis.typing, Options and Material (pydantic models) -> minimal pydantic stand-ins; fem_solver -> SimpleNamespace(_B, n_elements) for build; `gs` -> stand-in namespace (+ no-op logger); driver kernel over 2x256 numpy-seeded deformation gradients calling pre_compute, update_stress, compute_energy_gradient_hessian, compute_energy_gradient and compute_energy of the linear, stable Neo-Hookean and linear corotated models (those each model implements); checksum lines added
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


from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, StrictBool, model_validator

gs.logger = types.SimpleNamespace(warning=lambda *a, **k: None, debug=lambda *a, **k: None, info=lambda *a, **k: None)

# ---- stand-ins for genesis.typing and genesis.options.options.Options / materials.base.Material (pydantic models) ----
PositiveFloat = Annotated[float, Field(gt=0)]
NonNegativeFloat = Annotated[float, Field(ge=0)]
ValidFloat = float
StrictInt = int


class Options(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True)


EntityT = TypeVar("EntityT")


class Material(Options, Generic[EntityT]):
    pass


# ---- genesis/engine/materials/FEM/base.py (verbatim from class Base on) ----
class Base(Material["FEMEntity"]):
    """
    The base class of FEM materials.

    Note
    ----
    This class should *not* be instantiated directly.

    Parameters
    ----------
    E : float, optional
        Young's modulus, which controls stiffness. Default is 1e6.
    nu : float, optional
        Poisson ratio, describing the material's volume change under stress. Default is 0.2.
    rho : float, optional
        Material density (kg/m³). Default is 1000.
    hydroelastic_modulus : float, optional
        Hydroelastic modulus for hydroelastic contact. Default is 1e7.
    friction_mu : float, optional
        Friction coefficient. Default is 0.1.
    contact_resistance : float | None, optional
        IPC contact resistance/stiffness override for this material. ``None`` means
        use the IPC coupler global default (``IPCCouplerOptions.contact_resistance``).
    hessian_invariant : bool, optional
        If True, Hessian is computed only once. Default is False.
    """

    E: PositiveFloat = 1e6
    nu: Annotated[ValidFloat, Field(gt=-1.0, lt=0.5)] = 0.2
    rho: PositiveFloat = 1000.0
    hydroelastic_modulus: PositiveFloat = 1e7
    friction_mu: NonNegativeFloat = 0.1
    contact_resistance: PositiveFloat | None = None
    hessian_invariant: StrictBool = False

    # Dispatch fields — set by subclass model_post_init, not user-specified.
    build: Any = Field(default=None, exclude=True, repr=False)
    pre_compute: Any = Field(default=None, exclude=True, repr=False)
    update_stress: Any = Field(default=None, exclude=True, repr=False)
    compute_energy_gradient_hessian: Any = Field(default=None, exclude=True, repr=False)
    compute_energy_gradient: Any = Field(default=None, exclude=True, repr=False)
    compute_energy: Any = Field(default=None, exclude=True, repr=False)

    # Auto-generated fields — computed in model_post_init, not user-specified.
    mu: ValidFloat = Field(default=0.0, exclude=True)
    lam: ValidFloat = Field(default=0.0, exclude=True)
    idx: StrictInt | None = Field(default=None, exclude=True)

    # Internal solver state — does not belong in an options class, kept pending larger refactor.
    _hessian_ready: bool = PrivateAttr(default=False)

    def model_post_init(self, context: Any) -> None:
        self.mu = self.E / (2.0 * (1.0 + self.nu))
        self.lam = self.E * self.nu / ((1.0 + self.nu) * (1.0 - 2.0 * self.nu))

        # Set dispatch defaults
        if self.build is None:
            self.build = self._build_noop
        if self.pre_compute is None:
            self.pre_compute = self._pre_compute_noop
        if self.update_stress is None:
            self.update_stress = self._update_stress_noop
        if self.compute_energy_gradient_hessian is None:
            self.compute_energy_gradient_hessian = self._compute_energy_gradient_hessian_noop
        if self.compute_energy_gradient is None:
            self.compute_energy_gradient = self._compute_energy_gradient_noop
        if self.compute_energy is None:
            self.compute_energy = self._compute_energy_noop

    def _build_noop(self, fem_solver):
        pass

    @qd.func
    def _pre_compute_noop(self, J, F, i_e, i_b):
        pass

    @qd.func
    def _update_stress_noop(self, mu, lam, J, F, actu, m_dir):
        raise NotImplementedError

    @qd.func
    def _compute_energy_gradient_hessian_noop(self, mu, lam, J, F, actu, m_dir, i_e, i_b, hessian_field):
        raise NotImplementedError

    @qd.func
    def _compute_energy_gradient_noop(self, mu, lam, J, F, actu, m_dir, i_e, i_b):
        raise NotImplementedError

    @qd.func
    def _compute_energy_noop(self, mu, lam, J, F, actu, m_dir, i_e, i_b):
        raise NotImplementedError


# ---- genesis/engine/materials/FEM/elastic.py (verbatim from partialJpartialF on) ----
@qd.func
def partialJpartialF(F):
    pJpF0 = F[:, 1].cross(F[:, 2])
    pJpF1 = F[:, 2].cross(F[:, 0])
    pJpF2 = F[:, 0].cross(F[:, 1])
    pJpF = qd.Matrix.cols([pJpF0, pJpF1, pJpF2])
    return pJpF


@qd.data_oriented
class Elastic(Base):
    """
    The elastic material class for FEM.

    Parameters
    ----------
    E : float, optional
        Young's modulus, which controls stiffness. Default is 1e6.
    nu : float, optional
        Poisson ratio, describing the material's volume change under stress. Default is 0.2.
    rho : float, optional
        Material density (kg/m³). Default is 1000.
    hydroelastic_modulus : float, optional
        Hydroelastic modulus for hydroelastic contact. Default is 1e7.
    friction_mu : float, optional
        Friction coefficient. Default is 0.1.
    model : str, optional
        Constitutive model to use for stress computation. Options are:
        - 'linear': Linear elasticity model
        - 'stable_neohookean': A numerically stable Neo-Hookean model
        - 'linear_corotated': Linear corotated elasticity model
        Default is 'linear'.
    contact_resistance : float | None, optional
        IPC contact resistance/stiffness override. ``None`` uses the coupler global
        default. Default is None.
    """

    model: Literal["linear", "stable_neohookean", "linear_corotated"] = "linear"

    # Internal buffer for linear corotated rotation matrix
    _R: Any = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _resolve_deprecated_model(cls, data: dict) -> dict:
        if data.get("model") == "stable_neohooken":
            gs.logger.warning("The 'stable_neohooken' model is deprecated. Use 'stable_neohookean' instead.")
            data["model"] = "stable_neohookean"
        return data

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)

        if self.model == "linear":
            self.update_stress = self._update_stress_linear
            self.compute_energy_gradient_hessian = self._compute_energy_gradient_hessian_linear
            self.compute_energy_gradient = self._compute_energy_gradient_linear
            self.compute_energy = self._compute_energy_linear
            self.hessian_invariant = True
        elif self.model == "stable_neohookean":
            self.update_stress = self._update_stress_stable_neohookean
            self.compute_energy_gradient_hessian = self._compute_energy_gradient_hessian_stable_neohookean
            self.compute_energy_gradient = self._compute_energy_gradient_stable_neohookean
            self.compute_energy = self._compute_energy_stable_neohookean
            self.hessian_invariant = False
        elif self.model == "linear_corotated":
            self.build = self._build_linear_corotated
            self.pre_compute = self._pre_compute_linear_corotated
            self.update_stress = self._update_stress_linear_corotated
            self.compute_energy_gradient_hessian = self._compute_energy_gradient_hessian_linear_corotated
            self.compute_energy_gradient = self._compute_energy_gradient_linear_corotated
            self.compute_energy = self._compute_energy_linear_corotated

    def _build_linear_corotated(self, fem_solver):
        self._R = qd.field(dtype=gs.qd_mat3, shape=(fem_solver._B, fem_solver.n_elements))

    @qd.func
    def _pre_compute_linear_corotated(self, J, F, i_e, i_b):
        U, S, V = qd.svd(F)
        R = U @ V.transpose()
        self._R[i_b, i_e] = R

    # ─── Linear model ───

    @qd.func
    def _update_stress_linear(self, mu, lam, J, F, actu, m_dir):
        I = qd.Matrix.identity(dt=gs.qd_float, n=3)
        stress = mu * (F + F.transpose() - 2 * I) + lam * (F - I).trace() * I
        return stress

    @qd.func
    def _compute_energy_gradient_hessian_linear(self, mu, lam, J, F, actu, m_dir, i_e, i_b, hessian_field):
        I = qd.Matrix.identity(dt=gs.qd_float, n=3)
        eps = 0.5 * (F + F.transpose()) - I
        trEps = eps.trace()
        energy = mu * eps.norm_sqr() + 0.5 * lam * trEps**2
        gradient = 2.0 * mu * eps + lam * trEps * I

        for i in qd.static(qd.grouped(qd.ndrange(3, 3))):
            hessian_field[i_b, i, i_e].fill(0.0)

        for i, k in qd.static(qd.ndrange(3, 3)):
            hessian_field[i_b, i, i, i_e][k, k] = mu

        hessian_field[i_b, 0, 0, i_e][0, 0] += mu + lam
        hessian_field[i_b, 1, 1, i_e][1, 1] += mu + lam
        hessian_field[i_b, 2, 2, i_e][2, 2] += mu + lam

        hessian_field[i_b, 0, 1, i_e][1, 0] = hessian_field[i_b, 1, 0, i_e][0, 1] = mu
        hessian_field[i_b, 0, 2, i_e][2, 0] = hessian_field[i_b, 2, 0, i_e][0, 2] = mu
        hessian_field[i_b, 1, 2, i_e][2, 1] = hessian_field[i_b, 2, 1, i_e][1, 2] = mu

        hessian_field[i_b, 0, 1, i_e][0, 1] = hessian_field[i_b, 0, 2, i_e][0, 2] = lam
        hessian_field[i_b, 1, 0, i_e][1, 0] = hessian_field[i_b, 2, 0, i_e][2, 0] = lam
        hessian_field[i_b, 1, 2, i_e][1, 2] = hessian_field[i_b, 2, 1, i_e][2, 1] = lam
        return energy, gradient

    @qd.func
    def _compute_energy_gradient_linear(self, mu, lam, J, F, actu, m_dir, i_e, i_b):
        I = qd.Matrix.identity(dt=gs.qd_float, n=3)
        eps = 0.5 * (F + F.transpose()) - I
        trEps = eps.trace()
        energy = mu * eps.norm_sqr() + 0.5 * lam * trEps**2
        gradient = 2.0 * mu * eps + lam * trEps * I
        return energy, gradient

    @qd.func
    def _compute_energy_linear(self, mu, lam, J, F, actu, m_dir, i_e, i_b):
        I = qd.Matrix.identity(dt=gs.qd_float, n=3)
        eps = 0.5 * (F + F.transpose()) - I
        trEps = eps.trace()
        energy = mu * eps.norm_sqr() + 0.5 * lam * trEps**2
        return energy

    # ─── Stable Neo-Hookean model ───

    @qd.func
    def _update_stress_stable_neohookean(self, mu, lam, J, F, actu, m_dir):
        IC = F.norm_sqr()
        dJdF0 = F[:, 1].cross(F[:, 2])
        dJdF1 = F[:, 2].cross(F[:, 0])
        dJdF2 = F[:, 0].cross(F[:, 1])
        dJdF = qd.Matrix.cols([dJdF0, dJdF1, dJdF2])
        alpha = 1 + 0.75 * mu / lam
        stress = mu * (1 - 1 / (IC + 1)) * F + lam * (J - alpha) * dJdF
        return stress

    @qd.func
    def _compute_energy_gradient_hessian_stable_neohookean(self, mu, lam, J, F, actu, m_dir, i_e, i_b, hessian_field):
        raise NotImplementedError("Hessian computation is not implemented for stable_neohookean model.")

    @qd.func
    def _compute_energy_gradient_stable_neohookean(self, mu, lam, J, F, actu, m_dir, i_e, i_b):
        gs.raise_exception("Gradient computation is not implemented for stable_neohookean model.")

    @qd.func
    def _compute_energy_stable_neohookean(self, mu, lam, J, F, actu, m_dir, i_e, i_b):
        _lambda = lam + mu
        _alpha = 1.0 + mu / _lambda
        Ic = F.norm_sqr()
        Jminus1 = J - _alpha
        energy = 0.5 * (mu * (Ic - 3.0) + _lambda * Jminus1**2)
        return energy

    # ─── Linear Corotated model ───

    @qd.func
    def _update_stress_linear_corotated(self, mu, lam, J, F, actu, m_dir):
        gs.raise_exception("Linear corotated stress update is not implemented yet.")

    @qd.func
    def _compute_energy_gradient_hessian_linear_corotated(self, mu, lam, J, F, actu, m_dir, i_e, i_b, hessian_field):
        R = self._R[i_b, i_e]
        F_hat = R.transpose() @ F
        eps = 0.5 * (F_hat + F_hat.transpose())
        for i in qd.static(range(3)):
            eps[i, i] -= 1.0
        trEps = eps.trace()
        energy = mu * eps.norm_sqr() + 0.5 * lam * trEps**2
        gradient = 2.0 * mu * R @ eps + lam * trEps * R

        for i in qd.static(qd.grouped(qd.ndrange(3, 3))):
            hessian_field[i_b, i, i_e].fill(0.0)

        for i, k in qd.static(qd.ndrange(3, 3)):
            hessian_field[i_b, i, i, i_e][k, k] = mu

        for i, j, alpha, beta in qd.ndrange(3, 3, 3, 3):
            hessian_field[i_b, j, beta, i_e][i, alpha] += mu * R[i, beta] * R[alpha, j] + lam * R[alpha, beta] * R[i, j]

        return energy, gradient

    @qd.func
    def _compute_energy_gradient_linear_corotated(self, mu, lam, J, F, actu, m_dir, i_e, i_b):
        F_hat = self._R[i_b, i_e].transpose() @ F
        eps = 0.5 * (F_hat + F_hat.transpose())
        for i in qd.static(range(3)):
            eps[i, i] -= 1.0
        trEps = eps.trace()
        energy = mu * eps.norm_sqr() + 0.5 * lam * trEps**2
        gradient = 2.0 * mu * self._R[i_b, i_e] @ eps + lam * trEps * self._R[i_b, i_e]
        return energy, gradient

    @qd.func
    def _compute_energy_linear_corotated(self, mu, lam, J, F, actu, m_dir, i_e, i_b):
        F_hat = self._R[i_b, i_e].transpose() @ F
        eps = 0.5 * (F_hat + F_hat.transpose())
        for i in qd.static(range(3)):
            eps[i, i] -= 1.0
        trEps = eps.trace()
        energy = mu * eps.norm_sqr() + 0.5 * lam * trEps**2
        return energy


# ---- stand-in driver: per-element stress, energy, gradient and Hessian blocks on numpy-seeded deformation gradients ----
B, n_e = 2, 256
fem_solver = types.SimpleNamespace(_B=B, n_elements=n_e)
mats = [Elastic(model="linear"), Elastic(model="stable_neohookean", E=2e5, nu=0.35), Elastic(model="linear_corotated", E=5e5)]
for m in mats:
    m.build(fem_solver)
rng = np.random.default_rng(81)
R = np.linalg.qr(rng.standard_normal((B, n_e, 3, 3)))[0]
F_np = (R @ (np.eye(3) + 0.1 * rng.standard_normal((B, n_e, 3, 3)))).astype(np.float32)
F = qd.field(gs.qd_mat3, shape=(B, n_e))
F.from_numpy(F_np)
nm = len(mats)
o_stress = qd.field(gs.qd_mat3, shape=(2, B, n_e))
o_grad = qd.field(gs.qd_mat3, shape=(nm, B, n_e))
o_energy = qd.field(gs.qd_float, shape=(nm, 2, B, n_e))
o_pJ = qd.field(gs.qd_mat3, shape=(B, n_e))
hess = [qd.field(gs.qd_mat3, shape=(B, 3, 3, n_e)) for _ in range(2)]


@qd.kernel
def run(hess0: qd.template(), hess1: qd.template()):
    for i_b, i_e in qd.ndrange(B, n_e):
        Fe = F[i_b, i_e]
        J = Fe.determinant()
        o_pJ[i_b, i_e] = partialJpartialF(Fe)
        for m in qd.static(range(nm)):
            mats[m].pre_compute(J, Fe, i_e, i_b)
        for m in qd.static(range(2)):
            o_stress[m, i_b, i_e] = mats[m].update_stress(mats[m].mu, mats[m].lam, J, Fe, 0.0, qd.Vector([0.0, 0.0, 1.0]))
        e0, g0 = mats[0].compute_energy_gradient_hessian(mats[0].mu, mats[0].lam, J, Fe, 0.0, qd.Vector([0.0, 0.0, 1.0]), i_e, i_b, hess0)
        e2, g2 = mats[2].compute_energy_gradient_hessian(mats[2].mu, mats[2].lam, J, Fe, 0.0, qd.Vector([0.0, 0.0, 1.0]), i_e, i_b, hess1)
        e0b, g0b = mats[0].compute_energy_gradient(mats[0].mu, mats[0].lam, J, Fe, 0.0, qd.Vector([0.0, 0.0, 1.0]), i_e, i_b)
        e2b, g2b = mats[2].compute_energy_gradient(mats[2].mu, mats[2].lam, J, Fe, 0.0, qd.Vector([0.0, 0.0, 1.0]), i_e, i_b)
        o_grad[0, i_b, i_e] = g0 + g0b
        o_grad[2, i_b, i_e] = g2 + g2b
        o_energy[0, 0, i_b, i_e] = e0 + e0b
        o_energy[2, 0, i_b, i_e] = e2 + e2b
        for m in qd.static(range(nm)):
            o_energy[m, 1, i_b, i_e] = mats[m].compute_energy(mats[m].mu, mats[m].lam, J, Fe, 0.0, qd.Vector([0.0, 0.0, 1.0]), i_e, i_b)


run(hess[0], hess[1])
report("pJpF", o_pJ.to_numpy())
report("stress", o_stress.to_numpy() / 1e5)
report("grad", o_grad.to_numpy() / 1e5)
report("energy", o_energy.to_numpy() / 1e3)
report("hess_linear", hess[0].to_numpy() / 1e5)
report("hess_corotated", hess[1].to_numpy() / 1e5)
report("R", mats[2]._R.to_numpy())
