"""Quadrants' math module, imported as Quadrants programs import it: `import quadrants.math as tm`
and `from quadrants.math import ...`.

Shows: GLSL-style functions (`fract`, `step`, `smoothstep`, `sign`, `log2`, `mod`, `degrees`,
`radians`, `distance`, `reflect`, `refract`, `vdir`, `isnan`, `isinf`), complex numbers as vec2
(`cmul`, `cdiv`, `cconj`, `csqrt`, `cinv`, `cpow`, `cexp`, `clog`), transforms (`translate`,
`scale`, `rot_by_axis`, `rot_yaw_pitch_roll`, `rotation2d`, `rotation3d`, `eye`), `inverse` and
`determinant` up to 4x4, bit counts (`popcnt`, `clz`, `ffs`), `uvec2`, and the constants.
"""
import numpy as np

import quadrants as qd
import quadrants.math as tm
from quadrants.math import cmul, fract

qd.init(arch=qd.cpu)

out = qd.field(qd.f32, shape=(6, 48))
iout = qd.field(qd.i32, shape=(6, 8))

@qd.kernel
def evaluate():
    for r in range(6):
        x = 0.37 * r - 1.1
        v = tm.vec3(x, 2.0 * x + 0.3, -x * 0.5 + 0.25)
        c = 0
        out[r, c] = fract(x); c += 1
        out[r, c] = tm.step(0.0, x); c += 1
        out[r, c] = tm.smoothstep(-1.0, 1.0, x); c += 1
        out[r, c] = tm.sign(x); c += 1
        out[r, c] = tm.log2(1.5 + x * x); c += 1
        out[r, c] = tm.mod(x, 0.7); c += 1
        out[r, c] = tm.degrees(x); c += 1
        out[r, c] = tm.radians(x * 50); c += 1
        out[r, c] = tm.distance(v, tm.vec3(1.0, 0.0, 2.0)); c += 1
        rf = tm.reflect(v, tm.normalize(tm.vec3(0.0, 1.0, 1.0)))
        out[r, c] = rf[1]; c += 1
        rr = tm.refract(tm.normalize(v), tm.normalize(tm.vec3(0.0, 1.0, 0.0)), 0.9)
        out[r, c] = rr[0] + rr[1] + rr[2]; c += 1
        vd = tm.vdir(x)
        out[r, c] = vd[0] - vd[1]; c += 1
        z1 = tm.vec2(x, 0.5)
        z2 = tm.vec2(0.3, -x)
        m = cmul(z1, z2); out[r, c] = m[0]; c += 1; out[r, c] = m[1]; c += 1
        d = tm.cdiv(z1, z2); out[r, c] = d[0] + 2 * d[1]; c += 1
        cj = tm.cconj(z1); out[r, c] = cj[1]; c += 1
        s = tm.csqrt(z1); out[r, c] = s[0] + 3 * s[1]; c += 1
        iv = tm.cinv(z2); out[r, c] = iv[0] - iv[1]; c += 1
        p = tm.cpow(z1, 3); out[r, c] = p[0] + p[1]; c += 1
        ex = tm.cexp(z1); out[r, c] = ex[0] * ex[1]; c += 1
        lg = tm.clog(z2); out[r, c] = lg[0] + lg[1]; c += 1
        T = tm.translate(x, 1.0, 2.0) @ tm.scale(2.0, x, 0.5)
        out[r, c] = T[0, 3] + T[1, 1] + T[2, 2]; c += 1
        R = tm.rot_by_axis(v, x)
        out[r, c] = R[0, 1] + 2 * R[1, 2] - R[2, 0]; c += 1
        Y = tm.rot_yaw_pitch_roll(x, 0.2, -0.4)
        out[r, c] = Y[0, 0] + Y[1, 2] + Y[2, 1]; c += 1
        R2 = tm.rotation2d(x)
        out[r, c] = R2[0, 1]; c += 1
        R3 = tm.rotation3d(0.1, x, 0.3)
        out[r, c] = R3[2, 0] + R3[0, 2]; c += 1
        E = tm.eye(3)
        out[r, c] = E[1, 1] + E[0, 1]; c += 1
        M = tm.mat3([[2.0 + x, 0.5, 0.1], [0.3, 1.5, -0.2], [0.0, x, 3.0]])
        Mi = tm.inverse(M)
        out[r, c] = Mi[0, 0] + Mi[1, 2] + Mi[2, 1]; c += 1
        M2 = tm.mat2([[2.0 + x, 0.5], [0.3, 1.5]])
        Mi2 = M2.inverse()
        out[r, c] = Mi2[0, 1] + Mi2[1, 0]; c += 1
        M4 = tm.mat4([[2.0 + x, 0.5, 0.1, 0.0], [0.3, 1.5, -0.2, 0.4], [0.0, x, 3.0, 0.1], [0.2, 0.0, 0.3, 1.0]])
        Mi4 = M4.inverse()
        out[r, c] = Mi4[0, 0] + Mi4[1, 3] + Mi4[3, 2]; c += 1
        out[r, c] = M4.determinant(); c += 1
        out[r, c] = tm.isnan(x); c += 1
        out[r, c] = tm.isinf(x / (r - 2.0)) if r != 2 else tm.isinf(tm.inf); c += 1
        out[r, c] = tm.length(v) + tm.clamp(x, -0.5, 0.5) + tm.mix(1.0, 3.0, 0.25); c += 1
        fv = tm.fract(v * 1.7)
        out[r, c] = fv[0] + fv[1] + fv[2]; c += 1
        sg = tm.sign(v)
        out[r, c] = sg[0] + 2 * sg[1] + 4 * sg[2]; c += 1
        n = r * 1234567 - 3000000
        iout[r, 0] = tm.popcnt(n)
        iout[r, 1] = tm.clz(n)
        iout[r, 2] = tm.ffs(n)
        iout[r, 3] = tm.ffs(0) + tm.clz(0) * 100
        u = tm.uvec2(3, 4)
        iout[r, 4] = u[0] + u[1]
        iout[r, 5] = tm.popcnt(qd.cast(n, qd.i64) * 4096)


def main():
    evaluate()
    return {"values": out.to_numpy(), "bits": iout.to_numpy(),
            "constants": np.array([tm.pi, tm.e, tm.inf, tm.nan], np.float64)}


if __name__ == "__main__":
    for k, val in main().items():
        print(k, np.asarray(val).ravel()[:6])
