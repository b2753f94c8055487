"""Two heat plates as `@qd.data_oriented` objects: kernels and funcs as methods, fields and an
ndarray as members.

Shows: `@qd.kernel` methods called on an object (`a.step(0.1)`; `self` is a compile-time value,
so each object gets its own specialisation), `self.t[i, j]` fields and a `self.src` qd.ndarray
reached through `self`, a `@qd.func` method (`self.at(i, j)`), plain attributes (`self.n`,
`self.k`) as constants, and a method kernel returning a value.
"""
import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu)


@qd.data_oriented
class Heat:
    def __init__(self, n, k):
        self.n, self.k = n, k
        self.t = qd.field(qd.f32, shape=(n, n))
        self.nxt = qd.field(qd.f32, shape=(n, n))
        self.src = qd.ndarray(qd.f32, shape=(n, n))
        self.total = qd.field(qd.f32, shape=())

    @qd.func
    def at(self, i, j):
        return self.t[qd.max(0, qd.min(self.n - 1, i)), qd.max(0, qd.min(self.n - 1, j))]

    @qd.kernel
    def seed(self):
        for i, j in self.t:
            self.t[i, j] = 0.0
            self.src[i, j] = 1.0 if (i - self.n // 2) ** 2 + (j - self.n // 2) ** 2 < 9 else 0.0

    @qd.kernel
    def step(self, dt: qd.f32):
        for i, j in self.t:
            lap = self.at(i + 1, j) + self.at(i - 1, j) + self.at(i, j + 1) + self.at(i, j - 1) - 4 * self.t[i, j]
            self.nxt[i, j] = self.t[i, j] + dt * (self.k * lap + self.src[i, j])
        for i, j in self.t:
            self.t[i, j] = self.nxt[i, j]

    @qd.kernel
    def measure(self) -> qd.f32:
        self.total[None] = 0.0
        for i, j in self.t:
            self.total[None] += self.t[i, j]
        return self.total[None]


def main():
    a = Heat(32, 0.2)
    b = Heat(16, 0.1)
    a.seed()
    b.seed()
    for _ in range(50):
        a.step(0.1)
        b.step(0.2)
    return {"a": a.t.to_numpy(), "b": b.t.to_numpy(), "totals": np.array([a.measure(), b.measure()], np.float32)}


if __name__ == "__main__":
    for k, val in main().items():
        print(k, np.asarray(val).ravel()[:6])
