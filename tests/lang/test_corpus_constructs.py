"""Constructs of the corpus' real programs (issue 39) that Quadrants 1.3.3 runs on the CPU and ours
failed on: each as a few-line program; expected values are what Quadrants 1.3.3 printed for it."""
import numpy as np

import qdexplorer.lang as qd
from qdexplorer.lang.calls import runtime_api


def test_fill_of_a_u1_field_in_a_kernel(cpu):
    # genesis_bvh_lbvh, genesis_raycast, genesis_sph_solver, genesis_pbd_solver: internal codegen error
    b = qd.field(qd.u1, shape=8)
    c = qd.field(qd.u8, shape=8)
    bv = qd.Vector.field(3, qd.u1, shape=4)
    m = qd.Matrix.field(2, 2, qd.u1, shape=2)
    S = qd.types.struct(a=qd.u1, x=qd.f32)
    s = S.field(shape=4)
    sp = qd.field(qd.u1)
    qd.root.pointer(qd.i, 4).dense(qd.i, 2).place(sp)

    @qd.kernel
    def k():
        b.fill(True)
        c.fill(True)
        bv.fill(True)
        m.fill(True)
        s.a.fill(True)
        s.x.fill(2)
        sp[3] = True
        sp.fill(True)
        bv[1][1] = False

    k()
    assert b.to_numpy().tolist() == [True] * 8 and c.to_numpy().tolist() == [1] * 8
    assert bv.to_numpy().tolist() == [[True] * 3, [True, False, True], [True] * 3, [True] * 3]
    assert m.to_numpy().all() and s.a.to_numpy().all() and s.x.to_numpy().tolist() == [2.0] * 4
    assert sp.to_numpy().tolist() == [False, False, True, True, False, False, False, False]


def test_u1_values_stored_cast_and_returned_across_widths(cpu):
    b = qd.field(qd.u1, shape=8)
    c = qd.field(qd.u8, shape=8)
    e = qd.field(qd.i64, shape=8)
    f = qd.field(qd.f32, shape=8)
    u16 = qd.field(qd.u16, shape=4)

    @qd.func
    def g(x: qd.u1) -> qd.u1:
        return not x

    @qd.kernel
    def k(a: qd.types.ndarray(dtype=qd.u1, ndim=1)) -> qd.u1:
        for i in range(8):
            b[i] = i % 2 == 0
            c[i] = b[i]
            e[i] = qd.cast(b[i], qd.i64) + 5
            f[i] = b[i]
            a[i] = g(b[i])
        for i in range(4):
            x = qd.Vector([True, i > 1, i == 2], dt=qd.u1)
            u16[i] = x[1] + 65535
        b[3] = qd.cast(7, qd.u1)
        return b[0]

    nd = qd.ndarray(qd.u1, shape=8)
    assert k(nd) == 1
    assert b.to_numpy().tolist() == [True, False, True, True, True, False, True, False]
    assert c.to_numpy().tolist() == [1, 0, 1, 0, 1, 0, 1, 0]
    assert e.to_numpy().tolist() == [6, 5, 6, 5, 6, 5, 6, 5]
    assert f.to_numpy().tolist() == [1.0, 0.0] * 4
    assert nd.to_numpy().tolist() == [False, True] * 4
    assert u16.to_numpy().tolist() == [65535, 65535, 0, 0]


def test_matrix_identity_and_vector_factories_take_keywords(cpu):
    # genesis_fem_elastic: an internal compiler error (the keywords were dropped)
    o = qd.Matrix.field(3, 3, qd.f32, shape=())
    v = qd.Vector.field(3, qd.i32, shape=())

    @qd.kernel
    def k():
        o[None] = qd.Matrix.identity(dt=qd.f32, n=3) + qd.Matrix.identity(qd.f32, n=3) * 2
        v[None] = qd.Vector.unit(3, 1, dt=qd.i32) + qd.Vector.one(dt=qd.i32, n=3)

    k()
    assert (o.to_numpy() == 3 * np.eye(3)).all()
    assert v.to_numpy().tolist() == [1, 2, 1]


def test_static_tuple_of_fields_at_kernel_scope_is_seen_by_every_task(cpu):
    # taichi_implicit_mass_spring, taichi_snow_phasefield: `pos, spring, N = qd.static(self.pos, ...)`
    a = qd.field(qd.f32, shape=4)
    b = qd.field(qd.f32, shape=4)

    @qd.kernel
    def k():
        x, y, n = qd.static(a, b, 4)
        z = qd.static(a)
        for i in range(n):
            x[i] = i
        for i in range(n):
            y[i] = z[i] + 1

    k()
    assert a.to_numpy().tolist() == [0, 1, 2, 3] and b.to_numpy().tolist() == [1, 2, 3, 4]
    assert qd.static(1, 2) == [1, 2]  # Python scope too, as Quadrants


def test_a_func_returning_a_struct_in_a_tuple_and_one_returning_its_array(cpu):
    # taichi_cornell_box (`object, position, hit = raycast(ray)`), genesis_linalg (`return res`)
    vec3 = qd.types.vector(3, float)
    S = qd.types.struct(d=float, p=vec3)
    objs = S.field(shape=4)
    out = qd.field(qd.f32, shape=4)

    @qd.func
    def pick(i):
        return objs[i], i * 2, True

    @qd.func
    def write(res, i):
        res[i] = 3.0
        return res

    @qd.kernel
    def k():
        for i in range(4):
            objs[i].d = i
        for i in range(4):
            o, n, h = pick(i)
            out[i] = o.d + n + h
        write(out, 0)  # the caller discards it (Quadrants refuses `r = write(out, 0)`)

    k()
    assert out.to_numpy().tolist() == [3, 4, 7, 10]


def test_ndrange_of_a_starred_numpy_array(cpu):
    # genesis_mpm_solver `qd.ndrange(*self._grid_res, self._B)`, taichi_implicit_fem `qd.ndrange(*(n - 1))`
    res = np.array([3, 2])
    cnt = qd.field(qd.i32, shape=(3, 2, 4))
    tot = qd.field(qd.i32, shape=())

    @qd.kernel
    def k():
        for i, j, b in qd.ndrange(*res, 4):
            cnt[i, j, b] = i * 100 + j * 10 + b
        for I in qd.grouped(qd.ndrange(*(res - 1))):
            tot[None] += I.x + I.y + 1
        for _ in range(1):
            for i, j in qd.ndrange(*res):
                tot[None] += i * j

    k()
    assert cnt.to_numpy().sum() == 2556 and tot[None] == 6


def test_python_list_operators_and_item_assignment(cpu):
    # taichi_implicit_fem: `F_v[u] = [0.0] * 3`, `verts = [...]; verts[1] = verts[2]`
    F = qd.Vector.field(3, qd.f32, shape=4)
    idx = qd.field(qd.i32, shape=(4, 3))

    @qd.kernel
    def k():
        for u in F:
            F[u] = [1.0] * 3
            F[u] = F[u] + [u, 0, 1]
            verts = [u * 10 + j for j in range(3)]
            if u % 2 == 1:
                tmp = verts[1]
                verts[1] = verts[2]
                verts[2] = tmp
            for j in qd.static(range(3)):
                idx[u, j] = verts[j]
        x = [0.5] * 2 + [0.25]
        F[0][0] = x[2]

    k()
    assert F.to_numpy().tolist() == [[0.25, 1, 2], [2, 1, 2], [3, 1, 2], [4, 1, 2]]
    assert idx.to_numpy().tolist() == [[0, 1, 2], [10, 12, 11], [20, 21, 22], [30, 32, 31]]


def test_a_sparse_matrix_builder_is_empty_after_build(cpu):
    # taichi_implicit_mass_spring refills its builders every step: ours summed every step's triplets
    B = qd.linalg.SparseMatrixBuilder(3, 3, max_num_triplets=100)

    @qd.kernel
    def fill(M: qd.types.sparse_matrix_builder(), x: qd.f32):
        for i in range(3):
            M[i, i] += x

    fill(B, 1.0)
    A1 = B.build()
    fill(B, 2.0)
    A2 = B.build()
    assert A1[1, 1] == 1.0 and A2[1, 1] == 2.0


def test_loop_config_then_a_static_block_local_then_the_loop(cpu):
    # quadrants_misc_scatter_bls (Quadrants' own bls_test_template.py): was refused with the flag True
    x = qd.field(qd.f32, shape=4)
    m = qd.field(qd.f32, shape=4)

    @qd.kernel
    def k(use_shared: qd.template()):
        qd.loop_config(block_dim=64)
        if qd.static(use_shared):
            qd.block_local(m)
        for i in range(4):
            x[i] += i + m[i]

    k(True)
    assert runtime_api.last_call_tasks() == 1  # the hint makes no task of its own
    k(False)
    assert x.to_numpy().tolist() == [0, 2, 4, 6]

    @qd.kernel
    def k2():
        qd.loop_config(serialize=True)
        x[1] = 20.0  # a statement between the config and its loop: accepted, as in Quadrants
        for i in range(4):
            x[i] += 1

    k2()
    assert x.to_numpy().tolist() == [1, 21, 5, 7]


def test_append_activates_the_pointer_cells_above_the_list(cpu):
    # quadrants_misc_scatter_bls: qd.append left the pointer inactive, so every struct-for over the list
    # (and over the fields beside it) visited nothing: a silent wrong answer (its m1, m2 stayed zero)
    pid = qd.field(qd.i32)
    m = qd.field(qd.f32)
    cnt = qd.field(qd.i32, shape=4)
    block = qd.root.pointer(qd.ij, 4)
    block.dense(qd.ij, 16).place(m)
    block.dynamic(qd.l, 1024, chunk_size=64).place(pid)

    @qd.kernel
    def insert():
        for i in range(10):
            qd.append(pid.parent(), [i % 4, 1], i)

    @qd.kernel
    def count():
        for i, j in qd.ndrange(4, 4):
            cnt[0] += qd.length(pid.parent(), [i, j])
            cnt[1] += qd.is_active(block, [i, j])
        for I in qd.grouped(pid):
            cnt[2] += 1
        for I in qd.grouped(m):
            cnt[3] += 1

    insert()
    count()
    assert cnt.to_numpy().tolist() == [10, 4, 10, 1024]


def test_a_list_assigned_to_a_vector_variable(cpu):
    # taichi_mciso_advanced: `R = float(I)` then `R = [i + p, j, k]` in a branch
    out = qd.field(qd.f32, shape=(2, 3))

    @qd.kernel
    def k():
        for I in qd.grouped(qd.ndrange(2, 3)):
            R = float(I)
            i, j = I
            if i == 1:
                R = [i + 0.5, j * 2]
            out[I] = R.x * 10 + R.y

    k()
    assert out.to_numpy().tolist() == [[0, 1, 2], [15, 17, 19]]


def test_matrix_diag_with_keywords_and_a_func_taking_a_list(cpu):
    # difftaichi_diffmpm*: `qd.Matrix.diag(dim=2, val=1)` was an internal compiler error;
    # games201hw_wcsph: `add_particle([i * dx, j * dx], [0, 0], 1)` with `x[p] = position` inside
    x = qd.Vector.field(2, qd.f32, shape=4)
    m = qd.Matrix.field(2, 2, qd.f32, shape=())

    @qd.func
    def put(p, position, scale):
        x[p] = position
        x[p] *= scale

    @qd.kernel
    def k():
        m[None] = qd.Matrix.diag(dim=2, val=1) + qd.Matrix.diag(2, val=2.5)
        for i in range(4):
            put(i, [i * 0.5, i + 1.0], 2)

    k()
    assert m.to_numpy().tolist() == [[3.5, 0], [0, 3.5]]
    assert x.to_numpy().tolist() == [[0, 2], [1, 4], [2, 6], [3, 8]]


def test_a_type_is_not_a_kernel_value(cpu):
    # Quadrants refuses `v3 = qd.types.vector(3, qd.i32)` in a kernel (expr_init of a type); ours bound it
    import pytest
    from qdexplorer.ir.errors import QuadrantsTypeError
    o = qd.field(qd.i32, shape=2)

    @qd.kernel
    def k():
        v3 = qd.types.vector(3, qd.i32)
        o[0] = v3(1, 2, 3).sum()

    with pytest.raises(QuadrantsTypeError, match="Invalid constant scalar data type"):
        k()
