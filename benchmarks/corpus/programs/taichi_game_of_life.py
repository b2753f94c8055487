# corpus: taichi_game_of_life
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/simulation/game_of_life.py
# license: Apache-2.0
# area: misc
# port: ti->qd; arch=qd.cpu; qd.random() in init() replaced by the numpy-seeded init_rand field; GUI loop replaced by 100 generations; checksum lines added
# Game of Life written in 100 lines of Taichi
# In memory of John Horton Conway (1937 - 2020)

import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu)

n = 64
cell_size = 8
img_size = n * cell_size
alive = qd.field(int, shape=(n, n))  # alive = 1, dead = 0
count = qd.field(int, shape=(n, n))  # count of neighbours


@qd.func
def get_alive(i, j):
    return alive[i, j] if 0 <= i < n and 0 <= j < n else 0


@qd.func
def get_count(i, j):
    return (
        get_alive(i - 1, j)
        + get_alive(i + 1, j)
        + get_alive(i, j - 1)
        + get_alive(i, j + 1)
        + get_alive(i - 1, j - 1)
        + get_alive(i + 1, j - 1)
        + get_alive(i - 1, j + 1)
        + get_alive(i + 1, j + 1)
    )


# See https://www.conwaylife.com/wiki/Cellular_automaton#Rules for more rules
B, S = [3], [2, 3]
# B, S = [2], [0]


@qd.func
def calc_rule(a, c):
    if a == 0:
        for t in qd.static(B):
            if c == t:
                a = 1
    elif a == 1:
        a = 0
        for t in qd.static(S):
            if c == t:
                a = 1
    return a


@qd.kernel
def run():
    for i, j in alive:
        count[i, j] = get_count(i, j)

    for i, j in alive:
        alive[i, j] = calc_rule(alive[i, j], count[i, j])


init_rand = qd.field(float, (n, n))
init_rand.from_numpy(np.random.default_rng(0).random((n, n), dtype=np.float32))


@qd.kernel
def init():
    for i, j in alive:
        if init_rand[i, j] > 0.8:
            alive[i, j] = 1
        else:
            alive[i, j] = 0


def main():
    init()
    for gen in range(100):
        run()
    a = alive.to_numpy().astype(np.int64)
    print("checksum alive", int(a.sum()))
    print("checksum alive_weighted", int((a * np.arange(n * n).reshape(n, n)).sum()))
    print("checksum count_sum", int(count.to_numpy().astype(np.int64).sum()))


if __name__ == "__main__":
    main()
