# corpus: benchmark_xpbd_fem
# source: github:taichi-dev/taichi_benchmark@7a8c8a5d27748e118355cdf794a959d75bc112ad suites/svd3/src/taichi/XPBD_FEM.py
# license: Apache-2.0
# area: fem
# port: ti->qd; from taichi.lang.ops import sqrt -> from quadrants.lang.ops import sqrt; qd.init(arch=qd.cpu) keeping kernel_profiler (was gpu); GUI loop replaced by 60 frames with a scripted attractor (pos (0.3, 0.3), strength 1 on frames 10-29, else 0) as a stand-in for the mouse; drawing and the wall-clock draw-ratio print removed; checksum lines added
"""
Then we use XPBD-FEM (gpu version, Jacobian solver) to simulate the deformation of 2D object
"""
import quadrants as qd
import time
from quadrants.lang.ops import sqrt

qd.init(arch=qd.cpu, kernel_profiler=True)

h = 0.003  # timestep size

compliance = 1.0e-3  # Fat Tissuse compliance, for more specific material,please see: http://blog.mmacklin.com/2016/10/12/xpbd-slides-and-stiffness/
alpha = compliance * (1.0 / h / h
                      )  # timestep related compliance, see XPBD paper
N = 10
NF = 2 * N**2  # number of faces
NV = (N + 1)**2  # number of vertices
pos = qd.Vector.field(2, float, NV)
oldPos = qd.Vector.field(2, float, NV)
vel = qd.Vector.field(2, float, NV)  # velocity of particles
invMass = qd.field(float, NV)  #inverse mass of particles
f2v = qd.Vector.field(3, int, NF)  # ids of three vertices of each face
B = qd.Matrix.field(2, 2, float, NF)  # D_m^{-1}
F = qd.Matrix.field(2, 2, float, NF)  # deformation gradient
lagrangian = qd.field(float, NF)  # lagrangian multipliers
gravity = qd.Vector([0, -1.2])
MaxIte = 20
NumSteps = 5

gradient = qd.Vector.field(2,float, 3 * NF)
dLambda = qd.field(float, NF)
omega = 0.5
# For validation
dualResidual = qd.field(float,())
primalResidual = qd.field(float,())

attractor_pos = qd.Vector.field(2, float, ())
attractor_strength = qd.field(float, ())


@qd.kernel
def init_pos():
    for i, j in qd.ndrange(N + 1, N + 1):
        k = i * (N + 1) + j
        pos[k] = qd.Vector([i, j]) * 0.05 + qd.Vector([0.25, 0.25])
        oldPos[k] = pos[k]
        vel[k] = qd.Vector([0, 0])
        invMass[k] = 1.0
    for i in range(N + 1):
        k = i * (N + 1) + N
        invMass[k] = 0.0
    k0 = N
    k1 = (N + 2) * N
    invMass[k0] = 0.0
    invMass[k1] = 0.0
    for i in range(NF):
        ia, ib, ic = f2v[i]
        a, b, c = pos[ia], pos[ib], pos[ic]
        B_i_inv = qd.Matrix.cols([b - a, c - a])
        B[i] = B_i_inv.inverse()


@qd.kernel
def init_mesh():
    for i, j in qd.ndrange(N, N):
        k = (i * N + j) * 2
        a = i * (N + 1) + j
        b = a + 1
        c = a + N + 2
        d = a + N + 1
        f2v[k + 0] = [a, b, c]
        f2v[k + 1] = [c, d, a]


@qd.kernel
def resetLagrangian():
    for i in range(NF):
        lagrangian[i] = 0.0

@qd.func
def computeGradient(idx, U, S, V):
    isSuccess = True
    sumSigma = sqrt((S[0, 0] - 1)**2 + (S[1, 1] - 1)**2)
    if sumSigma < 1.0e-6:
        isSuccess = False

    dcdS = 1.0 / sumSigma * qd.Vector([S[0, 0] - 1, S[1, 1] - 1
                                       ])  # (dcdS11, dcdS22)
    dsdx2 = qd.Vector([
        B[idx][0, 0] * U[0, 0] * V[0, 0] + B[idx][0, 1] * U[0, 0] * V[1, 0],
        B[idx][0, 0] * U[0, 1] * V[0, 1] + B[idx][0, 1] * U[0, 1] * V[1, 1]
    ])  #(ds11dx2, ds22dx2)
    dsdx3 = qd.Vector([
        B[idx][0, 0] * U[1, 0] * V[0, 0] + B[idx][0, 1] * U[1, 0] * V[1, 0],
        B[idx][0, 0] * U[1, 1] * V[0, 1] + B[idx][0, 1] * U[1, 1] * V[1, 1]
    ])  #(ds11dx3, ds22dx3)
    dsdx4 = qd.Vector([
        B[idx][1, 0] * U[0, 0] * V[0, 0] + B[idx][1, 1] * U[0, 0] * V[1, 0],
        B[idx][1, 0] * U[0, 1] * V[0, 1] + B[idx][1, 1] * U[0, 1] * V[1, 1]
    ])  #(ds11dx4, ds22dx4)
    dsdx5 = qd.Vector([
        B[idx][1, 0] * U[1, 0] * V[0, 0] + B[idx][1, 1] * U[1, 0] * V[1, 0],
        B[idx][1, 0] * U[1, 1] * V[0, 1] + B[idx][1, 1] * U[1, 1] * V[1, 1]
    ])  #(ds11dx5, ds22dx5)
    dsdx0 = -(dsdx2 + dsdx4)
    dsdx1 = -(dsdx3 + dsdx5)
    # constraint gradient
    dcdx0 = dcdS.dot(dsdx0)
    dcdx1 = dcdS.dot(dsdx1)
    dcdx2 = dcdS.dot(dsdx2)
    dcdx3 = dcdS.dot(dsdx3)
    dcdx4 = dcdS.dot(dsdx4)
    dcdx5 = dcdS.dot(dsdx5)

    g0 = qd.Vector([dcdx0, dcdx1]) # constraint gradient with respect to x0
    g1 = qd.Vector([dcdx2, dcdx3]) # constraint gradient with respect to x1
    g2 = qd.Vector([dcdx4, dcdx5]) # constraint gradient with respect to x2

    return g0, g1, g2, isSuccess

@qd.kernel
def semiEuler():
    # semi-Euler update pos & vel
    for i in range(NV):
        if (invMass[i] != 0.0):
            vel[i] += h * gravity + attractor_strength[None] * (
                attractor_pos[None] - pos[i]).normalized(1e-5)
            oldPos[i] = pos[i]
            pos[i] += h * vel[i]
@qd.kernel
def computeGradientVector():
    for i in range(NF):
        ia, ib, ic = f2v[i]
        a, b, c = pos[ia], pos[ib], pos[ic]
        invM0, invM1, invM2 = invMass[ia], invMass[ib], invMass[ic]
        sumInvMass = invM0 + invM1 + invM2
        if sumInvMass < 1.0e-6:
            print("wrong invMass function")
        D_s = qd.Matrix.cols([b - a, c - a])
        F[i] = D_s @ B[i]
        U, S, V = qd.svd(F[i])
        constraint = sqrt((S[0, 0] - 1)**2 + (S[1, 1] - 1)**2)
        g0, g1, g2, isSuccess = computeGradient(i, U, S, V)
        if isSuccess:
            l = invM0 * g0.norm_sqr() + invM1 * g1.norm_sqr(
            ) + invM2 * g2.norm_sqr()
            dLambda[i] = -(constraint + alpha * lagrangian[i]) / (l + alpha)
            lagrangian[i] = lagrangian[i] + dLambda[i]
            gradient[3 * i + 0]  = g0
            gradient[3 * i + 1]  = g1
            gradient[3 * i + 2]  = g2

@qd.kernel
def updatePos():
    for i in range(NF):
        ia, ib, ic = f2v[i]
        invM0, invM1, invM2 = invMass[ia], invMass[ib], invMass[ic]
        if (invM0 != 0.0):
            pos[ia] += omega * invM0 * dLambda[i] * gradient[3 * i + 0]
        if (invM1 != 0.0):
            pos[ib] += omega * invM1 * dLambda[i] * gradient[3 * i + 1]
        if (invM2 != 0.0):
            pos[ic] += omega * invM2 * dLambda[i] * gradient[3 * i + 2]

@qd.kernel
def updteVelocity():
    # update velocity
    for i in range(NV):
        if (invMass[i] != 0.0):
            vel[i] = (pos[i] - oldPos[i]) / h

@qd.func
def computeConstriant(idx, x0, x1, x2):
    D_s = qd.Matrix.cols([x1 - x0, x2 - x0])
    F = D_s @ B[idx]
    U, S, V = qd.svd(F)
    constraint = sqrt((S[0, 0] - 1)**2 + (S[1, 1] - 1)**2)
    return constraint


init_mesh()
init_pos()
pause = False
for frame in range(60):
    attractor_pos[None] = [0.3, 0.3]  # stand-in for the mouse
    attractor_strength[None] = 1 if 10 <= frame < 30 else 0
    if not pause:
        for i in range(NumSteps):
            semiEuler()
            resetLagrangian()
            for ite in range(MaxIte):
                computeGradientVector()
                updatePos()
            updteVelocity()
    qd.sync()
P_ = pos.to_numpy()
print('checksum pos_sum', repr(float(P_.sum())))
print('checksum pos_abs_sum', repr(float(abs(P_).sum())))
print('checksum vel_abs_sum', repr(float(abs(vel.to_numpy()).sum())))
print('checksum lagrangian_sum', repr(float(lagrangian.to_numpy().sum())))
print('checksum pos0_0', repr(float(P_[0, 0])))
print('checksum pos0_1', repr(float(P_[0, 1])))
