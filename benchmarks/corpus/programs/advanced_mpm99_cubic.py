# corpus: advanced_mpm99_cubic
# source: github:taichi-dev/advanced_examples@4e76f884d6f541f993da3b915963819ed4be6e06 mpm/mpm99_cubic.py
# license: Apache-2.0
# area: mpm
# port: ti->qd; qd.init(arch=qd.cpu, cpu_max_num_threads=1) (was gpu; one thread because float atomics in p2g made two Quadrants runs differ); initialize()'s qd.random() positions overwritten right after it with numpy-seeded ones of the same ranges (ours draws a different random sequence by design); GUI loop replaced by 25 frames of the same substeps; drawing removed; checksum lines added
import quadrants as qd
import numpy as np
qd.init(arch=qd.cpu, cpu_max_num_threads=1) # Try to run on GPU
quality = 1 # Use a larger value for higher-res simulations
n_particles, n_grid = 9000 * quality ** 2, 128 * quality
dx, inv_dx = 1 / n_grid, float(n_grid)
dt = 1e-4 / quality
p_vol, p_rho = (dx * 0.5)**2, 1
p_mass = p_vol * p_rho
E, nu = 0.1e4, 0.2 # Young's modulus and Poisson's ratio
mu_0, lambda_0 = E / (2 * (1 + nu)), E * nu / ((1+nu) * (1 - 2 * nu)) # Lame parameters
x = qd.Vector.field(2, dtype=float, shape=n_particles) # position
v = qd.Vector.field(2, dtype=float, shape=n_particles) # velocity
C = qd.Matrix.field(2, 2, dtype=float, shape=n_particles) # affine velocity field
F = qd.Matrix.field(2, 2, dtype=float, shape=n_particles) # deformation gradient
material = qd.field(dtype=int, shape=n_particles) # material id
Jp = qd.field(dtype=float, shape=n_particles) # plastic deformation
grid_v = qd.Vector.field(2, dtype=float, shape=(n_grid, n_grid)) # grid node momentum/velocity
grid_m = qd.field(dtype=float, shape=(n_grid, n_grid)) # grid node mass

@qd.kernel
def substep():
  for i, j in grid_m:
    grid_v[i, j] = [0, 0]
    grid_m[i, j] = 0
  for p in x: # Particle state update and scatter to grid (P2G)
    base = (x[p] * inv_dx).cast(int)
    fx = x[p] * inv_dx - base.cast(float)
    # Cubic kernels http://mpm.graphics Eqn. 122 with x=fx+1, fx, abs(fx-1), abs(fx-2)
    w = [1./6.*(2. - (fx + 1))**3, 0.5*fx**3 - fx**2 + 2./3., 0.5*(-(fx - 1.))**3 - (-(fx - 1.))**2 + 2./3., 1./6.*(2. + (fx - 2.))**3]
    F[p] = (qd.Matrix.identity(float, 2) + dt * C[p]) @ F[p] # deformation gradient update
    h = qd.exp(10 * (1.0 - Jp[p])) # Hardening coefficient: snow gets harder when compressed
    if material[p] == 1: # jelly, make it softer
      h = 0.3
    mu, la = mu_0 * h, lambda_0 * h
    if material[p] == 0: # liquid
      mu = 0.0
    U, sig, V = qd.svd(F[p])
    J = 1.0
    for d in qd.static(range(2)):
      new_sig = sig[d, d]
      if material[p] == 2:  # Snow
        new_sig = min(max(sig[d, d], 1 - 2.5e-2), 1 + 4.5e-3)  # Plasticity
      Jp[p] *= sig[d, d] / new_sig
      sig[d, d] = new_sig
      J *= new_sig
    if material[p] == 0:  # Reset deformation gradient to avoid numerical instability
      F[p] = qd.Matrix.identity(float, 2) * qd.sqrt(J)
    elif material[p] == 2:
      F[p] = U @ sig @ V.transpose() # Reconstruct elastic deformation gradient after plasticity
    stress = 2 * mu * (F[p] - U @ V.transpose()) @ F[p].transpose() + qd.Matrix.identity(float, 2) * la * J * (J - 1)
    stress = (-dt * p_vol * 3 * inv_dx * inv_dx) * stress
    affine = stress + p_mass * C[p]
    for i, j in qd.static(qd.ndrange(4, 4)): # Loop over 4x4 grid node neighborhood
      offset = qd.Vector([i, j]) - 1
      dpos = (offset.cast(float) - fx) * dx
      weight = w[i][0] * w[j][1]
      grid_v[base + offset] += weight * (p_mass * v[p] + affine @ dpos)
      grid_m[base + offset] += weight * p_mass
  for i, j in grid_m:
    if grid_m[i, j] > 0: # No need for epsilon here
      grid_v[i, j] = (1 / grid_m[i, j]) * grid_v[i, j] # Momentum to velocity
      grid_v[i, j][1] -= dt * 50 # gravity
      if i < 3 and grid_v[i, j][0] < 0: grid_v[i, j][0] = 0 # Boundary conditions
      if i > n_grid - 3 and grid_v[i, j][0] > 0: grid_v[i, j][0] = 0
      if j < 3 and grid_v[i, j][1] < 0: grid_v[i, j][1] = 0
      if j > n_grid - 3 and grid_v[i, j][1] > 0: grid_v[i, j][1] = 0
  for p in x: # grid to particle (G2P)
    base = (x[p] * inv_dx).cast(int)
    fx = x[p] * inv_dx - base.cast(float)
    w = [1./6.*(2. - (fx + 1))**3, 0.5*fx**3 - fx**2 + 2./3., 0.5*(-(fx - 1.))**3 - (-(fx - 1.))**2 + 2./3., 1./6.*(2. + (fx - 2.))**3]
    new_v = qd.Vector.zero(float, 2)
    new_C = qd.Matrix.zero(float, 2, 2)
    for i, j in qd.static(qd.ndrange(4, 4)): # loop over 4x4 grid node neighborhood
      dpos = qd.Vector([i, j]).cast(float) - fx - 1
      g_v = grid_v[base + qd.Vector([i, j]) - 1]
      weight = w[i][0] * w[j][1]
      new_v += weight * g_v
      new_C += 3 * inv_dx * weight * g_v.outer_product(dpos)
    v[p], C[p] = new_v, new_C
    x[p] += dt * v[p] # advection

group_size = n_particles // 3
@qd.kernel
def initialize():
  for i in range(n_particles):
    x[i] = [qd.random() * 0.2 + 0.3 + 0.10 * (i // group_size), qd.random() * 0.2 + 0.05 + 0.32 * (i // group_size)]
    material[i] = i // group_size # 0: fluid 1: jelly 2: snow
    v[i] = qd.Matrix([0, 0])
    F[i] = qd.Matrix([[1, 0], [0, 1]])
    Jp[i] = 1
initialize()
# stand-in for initialize()'s qd.random() positions (ours draws another sequence by design): numpy-seeded, same ranges
_r = np.random.RandomState(0).rand(n_particles, 2)
_g = (np.arange(n_particles) // group_size)[:, None]
x.from_numpy((_r * 0.2 + np.array([0.3, 0.05]) + _g * np.array([0.10, 0.32])).astype(np.float32))
for frame in range(25):
  for s in range(int(2e-3 // dt)):
    substep()
X = x.to_numpy()
print('checksum x_sum', repr(float(X.sum())))
print('checksum v_abs_sum', repr(float(np.abs(v.to_numpy()).sum())))
print('checksum Jp_sum', repr(float(Jp.to_numpy().sum())))
print('checksum x0_0', repr(float(X[0, 0])))
print('checksum x0_1', repr(float(X[0, 1])))
