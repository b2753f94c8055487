# corpus: taichi_differential_evolution
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/machine_learning/differential_evolution.py
# license: Apache-2.0
# area: misc
# port: ti->qd; arch=qd.cpu; matplotlib imports and all plotting removed; np.random.seed(0); qd.random(float) in rand_int() and de_crossover() (drawn in one serial stream: DE's loop runs on one thread) replaced by _next_random(), an added qd.func reading a numpy-seeded rand_buf field in order through a counter field; checksum lines added
# Authored by Erqi Chen.
# This script shows the optimization process of differential evolution.
# The black points are the search agents, and they finally find the minimum solution.


import numpy as np
import quadrants as qd

qd.init(arch=qd.cpu)
np.random.seed(0)
rand_buf = qd.field(float, 100000)
rand_buf.from_numpy(np.random.default_rng(0).random(100000, dtype=np.float32))
rand_ctr = qd.field(qd.i32, ())


@qd.func
def _next_random():
    r = rand_buf[rand_ctr[None] % 100000]
    rand_ctr[None] += 1
    return r


@qd.func
def clip(_pop: qd.template(), _lb: qd.template(), _ub: qd.template()):
    _search_num, _dim = _pop.shape
    for ii, j in qd.ndrange(_search_num, _dim):
        if _pop[ii, j] > _ub[j]:
            _pop[ii, j] = _ub[j]
        elif _pop[ii, j] < _lb[j]:
            _pop[ii, j] = _lb[j]


@qd.func
def clip_only(_trial: qd.template(), _lb: qd.template(), _ub: qd.template()):
    _dim = _trial.shape[0]
    for j in range(_dim):
        if _trial[j] > _ub[j]:
            _trial[j] = _ub[j]
        elif _trial[j] < _lb[j]:
            _trial[j] = _lb[j]


@qd.func
def f1(_fit: qd.template(), _pop: qd.template()):
    _search_num, _dim = _pop.shape
    for ii in range(_search_num):
        cur = 0.0
        for j in range(_dim):
            cur += qd.pow(_pop[ii, j], 2)

        _fit[ii] = cur


@qd.func
def f1_only(_trial: qd.template()) -> qd.float32:
    _dim = _trial.shape[0]
    _res = 0.0
    for j in range(_dim):
        _res += qd.pow(_trial[j], 2)

    return _res


@qd.func
def find_min(_fit: qd.template()) -> qd.i32:
    _search_num = _fit.shape[0]
    min_fit = _fit[0]
    min_pos = 0
    for _ in qd.ndrange(1):
        for ii in qd.ndrange(_search_num):
            if min_fit < _fit[ii]:
                min_fit = _fit[ii]
                min_pos = ii
    return min_pos


@qd.func
def rand_int(low: qd.i32, high: qd.i32) -> qd.i32:
    r = _next_random()
    _res = r * (high - low) + low

    return qd.round(_res, dtype=qd.i32)


@qd.func
def copy_pop_to_field(_pop: qd.template(), _trial: qd.template(), ind: qd.i32):
    _, _dim = _pop.shape
    for j in range(_dim):
        _trial[j] = _pop[ind, j]


@qd.func
def copy_field_to_pop(_pop: qd.template(), _trial: qd.template(), ind: qd.i32):
    _, _dim = _pop.shape
    for j in range(dim):
        _pop[ind, j] = _trial[j]


@qd.func
def copy_2d_to_3d(a: qd.template(), b: qd.template(), _iter: qd.i32):
    r, c = b.shape
    for ii, j in qd.ndrange(r, c):
        a[_iter, ii, j] = b[ii, j]


@qd.func
def copy_field_a_to_b(a: qd.template(), b: qd.template()):
    _dim = a.shape[0]
    for j in range(_dim):
        b[j] = a[j]


@qd.func
def de_crossover(_pop: qd.template(), _trial: qd.template(), a: qd.i32, b: qd.i32, c: qd.i32):
    _, _dim = _pop.shape
    CR = 0.5
    para_F = 0.7
    for k in range(_dim):
        r = _next_random()
        if r < CR or k == _dim - 1:
            _trial[k] = _pop[c, k] + para_F * (_pop[a, k] - pop[b, k])


@qd.func
def de_loop(
    _pop: qd.template(),
    all_best: qd.float32,
    _fit: qd.template(),
    _trial: qd.template(),
    _lb: qd.template(),
    _ub: qd.template(),
) -> qd.float32:
    _search_num, _ = _pop.shape
    for ii in range(_search_num):
        copy_pop_to_field(_pop=_pop, _trial=_trial, ind=ii)

        a = rand_int(low=0, high=_search_num)
        while a == ii:
            a = rand_int(low=0, high=_search_num)

        b = rand_int(low=0, high=_search_num)
        while b == ii or a == b:
            b = rand_int(low=0, high=_search_num)

        c = rand_int(low=0, high=_search_num)
        while c == ii or c == a or c == b:
            c = rand_int(low=0, high=_search_num)

        de_crossover(_pop=_pop, _trial=_trial, a=a, b=b, c=c)
        clip_only(_trial=_trial, _lb=_lb, _ub=_ub)
        next_fit = f1_only(_trial=_trial)
        if next_fit < _fit[ii]:
            copy_field_to_pop(_pop=_pop, _trial=_trial, ind=ii)
            _fit[ii] = next_fit
            if next_fit < all_best:
                all_best = next_fit
                copy_field_a_to_b(a=_trial, b=best_pop)

    return all_best


@qd.kernel
def DE(
    _pop: qd.template(),
    _max_iter: qd.i32,
    _lb: qd.template(),
    _ub: qd.template(),
    _fit: qd.template(),
    _best_fit: qd.template(),
    _trial: qd.template(),
):
    f1(_fit=_fit, _pop=_pop)
    min_pos = find_min(_fit=_fit)
    all_best = _fit[min_pos]
    _best_fit[0] = all_best
    copy_2d_to_3d(a=all_pop, b=_pop, _iter=0)

    for _ in range(1):
        for cur_iter in range(1, _max_iter + 1):
            all_best = de_loop(_pop=_pop, _fit=_fit, all_best=all_best, _trial=_trial, _lb=_lb, _ub=_ub)
            _best_fit[cur_iter] = all_best
            copy_2d_to_3d(a=all_pop, b=_pop, _iter=cur_iter)


search_num = 20
dim = 2
max_iter = 50

_lb = np.ones(dim).astype(np.int32) * (-100)
lb = qd.field(qd.i32, shape=dim)
lb.from_numpy(_lb)

_ub = np.ones(dim).astype(np.int32) * 100
ub = qd.field(qd.i32, shape=dim)
ub.from_numpy(_ub)

pop = qd.field(qd.float32, shape=(search_num, dim))
pop.from_numpy((np.random.random((search_num, dim)) * (_ub - _lb) + _lb).astype(np.float32))

fit = qd.field(qd.float32, shape=(search_num,))
best_fit = qd.field(qd.float32, shape=(max_iter,))
best_pop = qd.field(qd.float32, shape=(search_num,))
all_pop = qd.field(qd.float32, shape=(max_iter, search_num, dim))

trial = qd.field(qd.float32, shape=(search_num,))

DE(_pop=pop, _max_iter=max_iter, _lb=lb, _ub=ub, _fit=fit, _best_fit=best_fit, _trial=trial)

res = best_fit.to_numpy()


@qd.kernel
def draw_contour():
    for ii, j in qd.ndrange(201, 201):
        z[ii, j] = x[ii] ** 2 + y[j] ** 2


_x = np.arange(-100, 101, 1)
x = qd.field(qd.float32, shape=201)
x.from_numpy(_x)
_y = np.arange(-100, 101, 1)
y = qd.field(qd.float32, shape=201)
y.from_numpy(_y)
z = qd.field(qd.float32, shape=(201, 201))

draw_contour()
print("checksum best_fit_last", float(res[-1]))
print("checksum best_fit_sum", float(res.astype(np.float64).sum()))
print("checksum pop_abs_sum", float(np.abs(pop.to_numpy().astype(np.float64)).sum()))
print("checksum all_pop_sum", float(all_pop.to_numpy().astype(np.float64).sum()))
print("checksum draws", int(rand_ctr[None]))
print("checksum z_sum", float(z.to_numpy().astype(np.float64).sum()))
