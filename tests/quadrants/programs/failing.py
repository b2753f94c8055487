import quadrants as qd

qd.init(arch=qd.cpu)


def setup(n):
    if n > 2:
        raise ValueError(f"boom: n={n} is too large")


setup(3)
