"""The syntax-parity cases (issue 39, item 3): small kernels, each exercising one construct that
Quadrants 1.3.3's front end (quadrants/lang/ast/ast_transformer.py and its call, function-def
helpers) handles, run under real Quadrants and under qdexplorer.lang by
tests/lang/test_syntax_parity.py. Families are generated (every augmented-assignment operator on
every operand kind, every binary operator on int/float mixes, ...); the rest are written one by one,
named after the `build_*` method (and branch) they exercise. Cases that Quadrants refuses are kept:
ours must refuse them too, with one clear line.

A case's text uses the global `qd` (the implementation under test) and defines `run()`."""
from __future__ import annotations

import textwrap
from typing import NamedTuple


class Case(NamedTuple):
    name: str
    src: str
    init: dict = {}


CASES: list[Case] = []


def case(name: str, src: str, **init) -> None:
    assert not any(c.name == name for c in CASES), name
    CASES.append(Case(name, textwrap.dedent(src).lstrip("\n"), init))


def kernel_case(name: str, body: str, params: str = "", calls: tuple = ("",), out: str = "qd.f64", n: int = 8,
                pre: str = "", **init) -> None:
    """`k(params)` writing o[0..n) (a field of `out`), called once per entry of `calls`; the answer is
    o after each call."""
    body = textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
    runs = "\n".join(f"    k({c})\n    res.append(o.to_numpy().tolist())" for c in calls)
    src = f"{textwrap.dedent(pre).strip()}\n\no = qd.field({out}, shape={n})\n\n\n@qd.kernel\ndef k({params}):\n{body}\n\n\n" \
          f"def run():\n    res = []\n{runs}\n    return res\n"
    case(name, src, **init)


# ---- build_AugAssign: every operator, on a local and on a field element, int and float --------------------------
INT_OPS = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "|", "^", "&"]
FLOAT_OPS = ["+", "-", "*", "/", "//", "%", "**"]
_OPNAME = {"+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "%": "mod", "**": "pow", "<<": "lshift",
           ">>": "rshift", "|": "or", "^": "xor", "&": "and", "@": "matmul"}
for _op in INT_OPS:
    _b = "2" if _op in ("**", "<<", ">>") else "b"
    kernel_case(f"augassign_int_{_OPNAME[_op]}", f"""
        x = a
        x {_op}= {_b}
        o[0] = x
        o[1] = a
        o[1] {_op}= {_b}
        y = qd.cast(a, qd.i64)
        y {_op}= {_b}
        o[2] = y
    """, "a: qd.i32, b: qd.i32", ("7, 3", "-7, 3", "7, -3", "-9, -4"), out="qd.i32", n=3)
for _op in FLOAT_OPS:
    kernel_case(f"augassign_float_{_OPNAME[_op]}", f"""
        x = a
        x {_op}= b
        o[0] = x
        o[1] = a
        o[1] {_op}= b
        z = a
        z {_op}= 2
        o[2] = z
        w = 5
        w {_op}= b
        o[3] = w
    """, "a: qd.f32, b: qd.f32", ("7.5, 2.0", "-7.5, 2.0", "7.5, -0.5"), out="qd.f32", n=4)
kernel_case("augassign_vector", """
    v = qd.Vector([1.0, 2.0, 3.0])
    w = qd.Vector([4.0, 5.0, 6.0])
    v += w
    v *= 2.0
    v -= 1
    v /= w
    v[1] += 10.0
    m = qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
    m = m @ m
    m[0, 1] -= 1.0
    o[0], o[1], o[2] = v[0], v[1], v[2]
    o[3], o[4], o[5], o[6] = m[0, 0], m[0, 1], m[1, 0], m[1, 1]
""", n=7)
kernel_case("augassign_matmul_refused", """
    m = qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
    m @= m
    o[0] = m[0, 0]
""", n=1)
kernel_case("augassign_int_vector_field", """
    for i in range(3):
        a[i] += qd.Vector([i, 2 * i])
        a[i] //= 2
        a[i][1] <<= 1
    for i in range(3):
        o[2 * i] = a[i][0]
        o[2 * i + 1] = a[i][1]
""", pre="a = qd.Vector.field(2, qd.i32, shape=3)", n=6, out="qd.i32")

# ---- build_BinOp: every operator on int/float/literal mixes (the result stored as f64) ---------------------------
for _op in INT_OPS + ["@"]:
    if _op == "@":
        kernel_case("binop_matmul", """
            m = qd.Matrix([[a, 1.0], [2.0, b]])
            v = qd.Vector([1.0, a])
            r = m @ v
            s = m @ m
            o[0], o[1] = r[0], r[1]
            o[2], o[3] = s[0, 0], s[1, 1]
        """, "a: qd.f32, b: qd.f32", ("1.5, -2.0",), n=4)
        continue
    _float = _op in FLOAT_OPS
    lines = ["o[0] = a " + _op + " b", "o[1] = 7 " + _op + " 2", "o[2] = -7 " + _op + " 2"]
    if _float:
        lines += [f"o[3] = a {_op} fb", f"o[4] = fa {_op} b", f"o[5] = fa {_op} fb", f"o[6] = 7.0 {_op} 2",
                  f"o[7] = a {_op} 2.0"]
    kernel_case(f"binop_{_OPNAME[_op]}", "\n".join(lines), "a: qd.i32, b: qd.i32, fa: qd.f32, fb: qd.f32",
                ("7, 2, 7.5, 2.0", "-7, 2, -7.5, 0.5", "9, -4, 2.0, -3.0"))
kernel_case("binop_int_overflow_and_widths", """
    o[0] = a * a
    o[1] = qd.cast(a, qd.i64) * a
    o[2] = qd.cast(a, qd.u8) + 1
    o[3] = qd.cast(a, qd.u32) - 2 * a
    o[4] = a // 0 if qd.static(False) else a >> 31
    o[5] = 2 ** 10
    o[6] = a ** 2
    o[7] = 2.0 ** -1
""", "a: qd.i32", ("100000", "-3"), out="qd.i64")
kernel_case("binop_pow_negative_and_float", """
    o[0] = a ** -1
    o[1] = 2 ** b
    o[2] = a ** 0.5
    o[3] = (-a) ** 3
""", "a: qd.f32, b: qd.i32", ("4.0, 3", "2.0, 0"), n=4)

# ---- build_Compare: every operator, chained ----------------------------------------------------------------------
kernel_case("compare_each_operator", """
    o[0] = a == b
    o[1] = a != b
    o[2] = a < b
    o[3] = a <= b
    o[4] = a > b
    o[5] = a >= b
    o[6] = a < fb
    o[7] = fb == a
""", "a: qd.i32, b: qd.i32, fb: qd.f32", ("1, 2, 1.0", "2, 2, 1.5", "3, 2, 3.0"), out="qd.i32")
kernel_case("compare_chained", """
    o[0] = a < b < c
    o[1] = a < b > c
    o[2] = a == b == c
    o[3] = a != b != c
    o[4] = 0 <= a < 10
    o[5] = a < b <= c < 100
    o[6] = (a < b) + (b < c)
    o[7] = qd.cast(a < b, qd.i32) * 10
""", "a: qd.i32, b: qd.i32, c: qd.i32", ("1, 2, 3", "1, 3, 2", "2, 2, 2", "5, -1, 7"), out="qd.i32")

# ---- build_UnaryOp -------------------------------------------------------------------------------------------------
kernel_case("unary_ops", """
    o[0] = -a
    o[1] = +a
    o[2] = ~a
    o[3] = not a
    o[4] = -f
    o[5] = not (f > 1.0)
    o[6] = not (a > 1)
    o[7] = -(-a)
""", "a: qd.i32, f: qd.f32", ("3, 2.5", "0, 0.0", "-1, -1.5"))
kernel_case("unary_on_vector", """
    v = qd.Vector([a, -2, 3])
    w = -v
    x = ~v
    o[0], o[1], o[2] = w[0], w[1], w[2]
    o[3], o[4] = x[0], x[1]
""", "a: qd.i32", ("1",), n=5, out="qd.i32")
kernel_case("unary_not_float_refused", """
    o[0] = not f
""", "f: qd.f32", ("1.5",), n=1)
case("unary_invert_float_refused", """
    o = qd.field(qd.f32, shape=1)

    @qd.kernel
    def k(f: qd.f32):
        o[0] = ~f

    def run():
        k(1.5)
        return o.to_numpy()
""")

# ---- build_BoolOp: values and short circuit ------------------------------------------------------------------------
kernel_case("boolop_values", """
    o[0] = a and b
    o[1] = a or b
    o[2] = a and b and c
    o[3] = a or b or c
    o[4] = (a > 0) and (b > 0)
    o[5] = (a > 0) or (c > 0)
    o[6] = not a or b
    o[7] = (a > b) or (b > c)
""", "a: qd.i32, b: qd.i32, c: qd.i32", ("3, 5, 0", "0, 5, 7", "0, 0, 0"), out="qd.f64")
kernel_case("boolop_float_operand_refused", """
    o[0] = f and a
""", "a: qd.i32, f: qd.f32", ("1, 0.5",), n=1)
kernel_case("boolop_short_circuit", """
    for i in range(1):
        if a > 0 and bump(1) > 0:
            o[1] += 1
        if a > 0 or bump(10) > 0:
            o[2] += 1
        x = a < 0 and bump(100) > 0
        o[3] = x
""", "a: qd.i32", ("1", "-1"), out="qd.i32", n=4, pre="""
    @qd.func
    def bump(v: qd.i32) -> qd.i32:
        o[0] += v
        return 1
""")
kernel_case("boolop_static", """
    if qd.static(A > 0 and B > 0):
        o[0] = 1
    if qd.static(A > 5 or B):
        o[1] = 2
    c = qd.static(A and B)
    d = qd.static(A or 0)
    o[2] = c
    o[3] = d
""", out="qd.i32", n=4, pre="A = 3\nB = 0")
kernel_case("static_assign_to_element_refused", """
    o[0] = qd.static(A)
""", out="qd.i32", n=1, pre="A = 3")

# ---- build_IfExp ---------------------------------------------------------------------------------------------------
kernel_case("ifexp_runtime_and_static", """
    o[0] = a if a > b else b
    o[1] = 1.5 if a > 0 else -2
    o[2] = (a if a > 0 else -a) if b > 0 else 0
    o[3] = 10 if qd.static(FLAG) else 20
    v = qd.Vector([1, 2]) if a > 0 else qd.Vector([3, 4])
    o[4] = v[0] + v[1] * 10
    o[5] = qd.select(a > b, a, b)
""", "a: qd.i32, b: qd.i32", ("3, 5", "-2, 1", "4, -1"), n=6, pre="FLAG = True")
kernel_case("ifexp_vector_condition_refused", """
    c = qd.Vector([1, 0])
    v = qd.Vector([1, 2]) if c else qd.Vector([3, 4])
    o[0] = v[0]
""", n=1)

# ---- build_If: runtime, static, elif chains, nested ----------------------------------------------------------------
kernel_case("if_elif_else_chain", """
    if a < 0:
        o[0] = -1
    elif a == 0:
        o[0] = 0
    elif a < 10:
        o[0] = 1
        if a % 2 == 0:
            o[1] = 2
        else:
            o[1] = 3
    else:
        o[0] = 100
""", "a: qd.i32", ("-5", "0", "4", "7", "20"), out="qd.i32", n=2)
kernel_case("if_static_branches", """
    if qd.static(N > 2):
        o[0] = 1
    else:
        o[0] = undefined_name
    if qd.static(N == 0):
        o[1] = undefined_too
    elif qd.static(N == 3):
        o[1] = 3
    if qd.static(isinstance(N, int)):
        o[2] = N
""", out="qd.i32", n=3, pre="N = 3")
kernel_case("if_on_float_refused", """
    if a:
        o[0] = 1
""", "a: qd.f32", ("1.0",), out="qd.i32", n=1)
kernel_case("if_on_int_and_vector_any", """
    v = qd.Vector([a, 0.0])
    if n:
        o[0] = 1
    if any(v > 0.5):
        o[1] = 1
    if all(v >= 0.0):
        o[2] = 1
""", "a: qd.f32, n: qd.i32", ("0.0, 0", "1.0, 2", "-1.0, -1"), out="qd.i32", n=3)

# ---- build_For: range forms ----------------------------------------------------------------------------------------
kernel_case("for_range_one_and_two_args", """
    for i in range(n):
        o[0] += i
    for i in range(2, n):
        o[1] += i
    for i in range(-3, 2):
        o[2] += i
    for i in range(n, 2):
        o[3] += 1
""", "n: qd.i32", ("5", "0"), out="qd.i32", n=4)
kernel_case("for_range_float_bound", """
    for i in range(f):
        o[0] += 1
""", "f: qd.f32", ("3.7",), out="qd.i32", n=1)
kernel_case("for_range_step_refused", """
    for i in range(0, 10, 2):
        o[0] += i
""", out="qd.i32", n=1)
kernel_case("for_static_range_step_and_negative_step", """
    for i in qd.static(range(0, 10, 3)):
        o[0] += i
    for i in qd.static(range(5, 0, -2)):
        o[1] = o[1] * 10 + i
    for i in qd.static(range(3)):
        o[2 + i] = i * i
""", out="qd.i32", n=5)
kernel_case("for_ndrange_forms", """
    for i, j in qd.ndrange(3, 4):
        o[0] += i * 10 + j
    for i, j in qd.ndrange((1, 3), (-2, 0)):
        o[1] += i * j
    for I in qd.grouped(qd.ndrange(2, 3)):
        o[2] += I[0] * 3 + I[1]
    for i in qd.ndrange(4):
        o[3] += i
    for i, j, k in qd.ndrange(2, 2, 2):
        o[4] += i + j + k
""", out="qd.i32", n=5)
kernel_case("for_struct_for_field_and_grouped", """
    for i in x:
        o[0] += x[i]
    for i, j in y:
        o[1] += y[i, j] * (i + 1)
    for I in qd.grouped(y):
        o[2] += y[I]
    for I in qd.grouped(x):
        o[3] += I[0]
""", out="qd.f64", n=4, pre="""
    x = qd.field(qd.f32, shape=5)
    y = qd.field(qd.f32, shape=(2, 3))
    x.fill(1.5)
    y.fill(2.0)
""")
kernel_case("for_static_over_python_values", """
    for v in qd.static([3, 5, 7]):
        o[0] += v
    for i, v in qd.static(enumerate((10, 20))):
        o[1] += i * v
    for name in qd.static(("a", "b")):
        o[2] += len(name)
    for I in qd.static(qd.grouped(qd.ndrange(2, 2))):
        o[3] += I[0] * 2 + I[1]
    for i, j in qd.static(qd.ndrange(2, 3)):
        o[4] += i * j
    for f in qd.static((x, y)):
        o[5] += f[0]
    for a, b in qd.static(zip((1, 2), (3, 4))):
        o[6] += a * b
""", out="qd.f64", n=7, pre="""
    x = qd.field(qd.f32, shape=1)
    y = qd.field(qd.f32, shape=1)
    x.fill(1.5)
    y.fill(2.5)
""")
kernel_case("for_over_vector_static", """
    v = qd.Vector([1, 2, 3])
    for i in qd.static(range(v.n)):
        o[0] += v[i]
    for e in qd.static(V):
        o[1] += e
""", out="qd.i32", n=2, pre="V = (4, 5)")
kernel_case("for_static_over_kernel_vector_refused", """
    v = qd.Vector([1, 2, 3])
    for e in qd.static(v):
        o[0] += e
""", out="qd.i32", n=1)
kernel_case("for_nested_and_inner_break_continue", """
    for i in range(4):
        for j in range(10):
            if j > i:
                break
            if j % 2 == 1:
                continue
            o[i] += j + 1
    for t in range(1):
        k = 0
        while True:
            k += 1
            if k >= 5:
                break
        o[4] = k
""", out="qd.i32", n=5)
kernel_case("for_static_break_continue", """
    for i in qd.static(range(10)):
        if qd.static(i == 5):
            break
        if qd.static(i % 2 == 0):
            continue
        o[0] += i
""", out="qd.i32", n=1)
kernel_case("for_static_break_in_runtime_if_refused", """
    for i in qd.static(range(3)):
        if a > i:
            break
        o[0] += i
""", "a: qd.i32", ("1",), out="qd.i32", n=1)
kernel_case("for_else_refused", """
    for i in range(3):
        o[0] += i
    else:
        o[0] = -1
""", out="qd.i32", n=1)
kernel_case("for_ifexp_static_iterable", """
    for i in range(n) if qd.static(FLAG) else qd.static(range(2)):
        o[0] += 1
    for i in range(n) if qd.static(not FLAG) else qd.static(range(2)):
        o[1] += 1
""", "n: qd.i32", ("5",), out="qd.i32", n=2, pre="FLAG = True")
kernel_case("for_top_level_break_refused", """
    for i in range(10):
        if i > 3:
            break
        o[0] += 1
""", out="qd.i32", n=1)
kernel_case("for_loop_var_reassigned", """
    for i in range(3):
        j = i
        j += 10
        o[i] = j
""", out="qd.i32", n=3)
kernel_case("for_serial_sum_with_loop_config", """
    qd.loop_config(serialize=True)
    for i in range(1, 5):
        o[i] = o[i - 1] + i
""", out="qd.i32", n=5)

# ---- build_While ---------------------------------------------------------------------------------------------------
kernel_case("while_loops", """
    for t in range(1):
        i = 0
        s = 0
        while i < n:
            s += i
            i += 1
        o[0] = s
        j = n
        while j > 0:
            j -= 3
            if j == 4:
                continue
            o[1] += 1
        c = 0
        while c < 100 and c * c < n:
            c += 1
        o[2] = c
""", "n: qd.i32", ("10", "0"), out="qd.i32", n=3)
kernel_case("while_else_refused", """
    i = 0
    while i < 3:
        i += 1
    else:
        i = 10
    o[0] = i
""", out="qd.i32", n=1)

# ---- build_Assign / build_AnnAssign / build_NamedExpr / unpacking --------------------------------------------------
kernel_case("assign_chained_and_tuple_swap", """
    a = b = n
    a += 1
    o[0], o[1] = a, b
    a, b = b, a
    o[2], o[3] = a, b
    p, q = qd.Vector([5, 6])
    o[4], o[5] = p, q
    r, s, t = 1, 2, 3
    o[6] = r * 100 + s * 10 + t
""", "n: qd.i32", ("7",), out="qd.i32", n=7)
kernel_case("assign_nested_unpack_refused", """
    (r, s), t = (1, 2), 3
    o[0] = r
""", out="qd.i32", n=1)
kernel_case("assign_unpack_func_tuple_and_struct", """
    x, y = two(n)
    o[0], o[1] = x, y
    u, w = qd.Vector([1.5, 2.5])
    o[2] = u + w
""", "n: qd.i32", ("4",), n=3, pre="""
    @qd.func
    def two(a: qd.i32):
        return a, a * 2
""")
kernel_case("assign_unpack_count_mismatch_refused", """
    a, b = qd.Vector([1, 2, 3])
    o[0] = a
""", out="qd.i32", n=1)
kernel_case("assign_starred_refused", """
    a, *b = qd.Vector([1, 2, 3])
    o[0] = a
""", out="qd.i32", n=1)
kernel_case("annassign_types", """
    x: qd.f32 = n
    y: qd.i32 = 2.7
    z: qd.u8 = 300
    w: qd.f64 = 0.1
    x = 1.25
    o[0], o[1], o[2], o[3] = x, y, z, w
""", "n: qd.i32", ("3",), n=4)
kernel_case("annassign_retype_refused", """
    x = 1
    x: qd.f32 = 2.0
    o[0] = x
""", n=1)
kernel_case("namedexpr_walrus", """
    if (y := n * 2) > 5:
        o[0] = y
    o[1] = (z := 3) + z
""", "n: qd.i32", ("4", "1"), out="qd.i32", n=2)
kernel_case("assign_kernel_arg_refused", """
    n = n + 1
    o[0] = n
""", "n: qd.i32", ("1",), out="qd.i32", n=1)
kernel_case("augassign_kernel_arg_refused", """
    n += 1
    o[0] = n
""", "n: qd.i32", ("1",), out="qd.i32", n=1)
kernel_case("assign_int_var_gets_float", """
    x = 1
    x = 2.7
    o[0] = x
    y = 1.5
    y = 3
    o[1] = y
    z = qd.cast(1, qd.u8)
    z = 300
    o[2] = z
""", n=3)
kernel_case("static_assign", """
    c = qd.static(N * 2)
    o[0] = c
    d = qd.static(x)
    o[1] = d[0]
""", n=2, pre="""
    N = 4
    x = qd.field(qd.f32, shape=1)
    x.fill(2.5)
""")

# ---- literals and their types --------------------------------------------------------------------------------------
kernel_case("literal_typing", """
    o[0] = 1 / 3
    o[1] = 7 // 2
    o[2] = 0.1
    o[3] = 0x7FFFFFFE + 1
    o[4] = True + True
    o[5] = 1e-3 * 1000
    o[6] = 1073741823 * 2
    o[7] = 3 % -2
""", out="qd.f64")
kernel_case("literal_int_out_of_range_refused", """
    o[0] = 2147483648
""", n=1)
kernel_case("literal_typing_f64_default", """
    o[0] = 0.1
    o[1] = 1 / 3
    x = 0.1
    o[2] = x * 3
""", n=3, default_fp="qd.f64")
kernel_case("literal_typed_constructors", """
    o[0] = qd.f64(0.1)
    o[1] = qd.i8(-5)
    o[2] = qd.u16(65535)
    o[3] = qd.f32(n) / 3
    o[4] = qd.cast(2.9, qd.i32)
""", "n: qd.i32", ("1",), n=5)
kernel_case("ifexp_static_builds_both_sides_refused", """
    o[0] = qd.i32(2.9) if qd.static(False) else 1
""", n=1)
kernel_case("literal_typed_constructor_float_into_int_refused", """
    o[0] = qd.i32(2.5)
""", n=1)
kernel_case("literal_string_static_refused", """
    s = qd.static("abc")
    o[0] = len(s)
""", n=1)
kernel_case("literal_string_and_none", """
    s = "abc"
    o[0] = len(s)
    if qd.static(NONE is None):
        o[1] = 1
""", n=2, pre="NONE = None")

# ---- builtins: abs / min / max / int / float / bool / len / pow / any / all ----------------------------------------
kernel_case("builtins_scalar", """
    o[0] = abs(a)
    o[1] = abs(f)
    o[2] = min(a, b)
    o[3] = max(a, f)
    o[4] = min(a, b, 0)
    o[5] = int(f)
    o[6] = float(a) / 2
    o[7] = pow(a, 2)
""", "a: qd.i32, b: qd.i32, f: qd.f32", ("-3, 5, -2.75", "4, -1, 3.5"))
kernel_case("builtins_vector", """
    v = qd.Vector([-1.5, 2.0, 0.5])
    w = qd.Vector([1.0, 1.0, 1.0])
    m = max(v, w)
    n = min(v, 0.0)
    a = abs(v)
    o[0], o[1] = m[0], n[1]
    o[2] = a[0]
    o[3] = len(v)
    o[4] = any(v > 1.0)
    o[5] = all(v > -2.0)
    o[6] = bool(a[2])
    o[7] = int(v[0])
""")
kernel_case("builtins_round_and_divmod_refused", """
    o[0] = divmod(7, 2)[0] if qd.static(True) else 0
    o[1] = round(2.5)
""", n=2)
kernel_case("builtins_qd_math", """
    o[0] = qd.sqrt(f)
    o[1] = qd.floor(f)
    o[2] = qd.floor(f, qd.i32)
    o[3] = qd.round(f)
    o[4] = qd.max(a, f, 1)
    o[5] = qd.min(a, 2)
    o[6] = qd.abs(a)
    o[7] = qd.math.clamp(f, 0.0, 2.0)
""", "a: qd.i32, f: qd.f32", ("-3, 2.5", "4, 0.75"))

# ---- @qd.func: nested funcs, returns, template args, calls with keywords -------------------------------------------
kernel_case("func_nested_and_returns", """
    o[0] = outer(n)
    o[1] = sign(n)
    o[2] = clampi(n, lo=0, hi=5)
    o[3] = no_return_value(n)
""", "n: qd.i32", ("3", "-4", "9"), out="qd.i32", n=4, pre="""
    @qd.func
    def inner(x: qd.i32) -> qd.i32:
        return x * 2

    @qd.func
    def outer(x: qd.i32) -> qd.i32:
        return inner(x) + inner(1)

    @qd.func
    def sign(x):
        r = 0
        if x > 0:
            r = 1
        elif x < 0:
            r = -1
        return r

    @qd.func
    def clampi(x, lo, hi):
        return qd.max(lo, qd.min(x, hi))

    @qd.func
    def no_return_value(x: qd.i32):
        y = x
        return y
""")
kernel_case("func_return_in_runtime_if_refused", """
    o[0] = early(n)
""", "n: qd.i32", ("1",), out="qd.i32", n=1, pre="""
    @qd.func
    def early(x: qd.i32) -> qd.i32:
        if x > 0:
            return 1
        return 0
""")
kernel_case("func_return_in_static_if", """
    o[0] = pick(n)
""", "n: qd.i32", ("3",), out="qd.i32", n=1, pre="""
    MODE = 1

    @qd.func
    def pick(x: qd.i32) -> qd.i32:
        if qd.static(MODE == 1):
            return x * 10
        return x
""")
kernel_case("func_args_by_value_and_template", """
    a = n
    incr(a)
    o[0] = a
    add_to(x, 2.5)
    o[1] = x[0]
    o[2] = vec_sum(qd.Vector([1.0, 2.0, 3.0]))
    o[3] = twice(n)
""", "n: qd.i32", ("1",), n=4, pre="""
    x = qd.field(qd.f32, shape=1)

    @qd.func
    def incr(v: qd.i32):
        v += 1

    @qd.func
    def add_to(f: qd.template(), d: qd.f32):
        f[0] += d

    @qd.func
    def vec_sum(v) -> qd.f32:
        return v.sum()

    @qd.func
    def twice(v: qd.template()) -> qd.i32:
        return v * 2
""")
kernel_case("func_returns_vector_and_struct", """
    v = mk(n)
    o[0], o[1] = v[0], v[1]
    s = mks(n)
    o[2] = s.a + s.b
""", "n: qd.f32", ("1.5",), n=3, pre="""
    S = qd.types.struct(a=qd.f32, b=qd.i32)

    @qd.func
    def mk(x: qd.f32) -> qd.types.vector(2, qd.f32):
        return qd.Vector([x, x * 2])

    @qd.func
    def mks(x: qd.f32) -> S:
        return S(a=x, b=2)
""")
kernel_case("func_plain_python_function_called", """
    o[0] = helper(n)
    o[1] = LAM(n)
""", "n: qd.i32", ("3",), out="qd.i32", n=2, pre="""
    def helper(x):
        return x * 3 + 1

    LAM = lambda x: x - 1  # noqa: E731
""")
kernel_case("func_lambda_in_kernel_refused", """
    f = lambda x: x + 1
    o[0] = f(n)
""", "n: qd.i32", ("3",), out="qd.i32", n=1)
kernel_case("func_def_in_kernel_refused", """
    def g(x):
        return x + 1
    o[0] = g(n)
""", "n: qd.i32", ("3",), out="qd.i32", n=1)
kernel_case("func_real_func_recursion", """
    o[0] = fact(n)
""", "n: qd.i32", ("5",), out="qd.i32", n=1, pre="""
    @qd.real_func
    def fact(x: qd.i32) -> qd.i32:
        r = 1
        if x > 1:
            r = x * fact(x - 1)
        return r
""")

# ---- kernel returns and args ---------------------------------------------------------------------------------------
case("kernel_returns_scalar_vector_tuple_struct", """
    S = qd.types.struct(a=qd.f32, b=qd.i32)

    @qd.kernel
    def ks(a: qd.i32) -> qd.f32:
        return a / 2

    @qd.kernel
    def kv(a: qd.f32) -> qd.types.vector(3, qd.f32):
        return qd.Vector([a, a + 1, a + 2])

    @qd.kernel
    def kt(a: qd.i32) -> (qd.i32, qd.f32):
        return a * 2, a / 4

    @qd.kernel
    def kst(a: qd.f32) -> S:
        return S(a=a, b=7)

    @qd.kernel
    def km() -> qd.types.matrix(2, 2, qd.i32):
        return qd.Matrix([[1, 2], [3, 4]])

    def run():
        s = kst(1.5)
        return [ks(5), list(kv(1.0)), list(kt(3)), [s.a, s.b], km().to_numpy().tolist() if hasattr(km(), "to_numpy") else km()]
""")
case("kernel_return_unannotated_refused", """
    @qd.kernel
    def k(a: qd.i32):
        return a

    def run():
        return k(1)
""")
case("kernel_args_kinds", """
    import numpy as np

    x = qd.field(qd.f32, shape=3)

    @qd.kernel
    def k(a: qd.i32, f: qd.f64, t: qd.template(), arr: qd.types.ndarray(), v: qd.types.vector(2, qd.f32)) -> qd.f64:
        s = 0.0
        for i in range(arr.shape[0]):
            s += arr[i]
        t[0] = a + v[1]
        return s + f

    def run():
        arr = np.array([1.0, 2.0, 3.0], np.float32)
        r = k(2, 0.5, x, arr, qd.Vector([1.0, 4.0]))
        return [r, x.to_numpy().tolist()]
""")
case("kernel_keyword_call", """
    o = qd.field(qd.i32, shape=2)

    @qd.kernel
    def k(a: qd.i32, b: qd.i32):
        o[0] = a
        o[1] = b

    def run():
        res = []
        k(b=2, a=1)
        res.append(o.to_numpy().tolist())
        k(7, b=3)
        res.append(o.to_numpy().tolist())
        return res
""")
case("kernel_default_argument_refused", """
    o = qd.field(qd.i32, shape=1)

    @qd.kernel
    def k(a: qd.i32, b: qd.i32 = 5):
        o[0] = a + b

    def run():
        k(1)
        return o.to_numpy()
""")

# ---- subscripts, slices, attributes, structs, swizzles -------------------------------------------------------------
kernel_case("subscript_vector_slice_range", """
    v = qd.Vector([1, 2, 3, 4])
    a = v[1:3]
    c = v[:2]
    o[0] = a[0] * 10 + a[1]
    o[1] = c.n
""", out="qd.i32", n=2)
kernel_case("subscript_vector_slice_negative_step", """
    v = qd.Vector([1, 2, 3, 4])
    b = v[::-1]
    o[0] = b[0] * 1000 + b[1] * 100 + b[2] * 10 + b[3]
""", out="qd.i32", n=1)
kernel_case("subscript_matrix_row_and_column_slices", """
    m = qd.Matrix([[1, 2, 3], [4, 5, 6]])
    r = m[1, :]
    col = m[:, 2]
    o[0] = r[0] + r[1] + r[2]
    o[1] = col[0] * 10 + col[1]
""", out="qd.i32", n=2)
kernel_case("subscript_vector_runtime_index", """
    v = qd.Vector([1, 2, 3, 4])
    o[0] = v[n]
    v[n] = 9
    o[1] = v[2]
""", "n: qd.i32", ("2",), out="qd.i32", n=2)
kernel_case("subscript_field_forms", """
    for i, j in y:
        y[i, j] = i * 10 + j
    I = qd.Vector([1, 2])
    o[0] = y[I]
    o[1] = y[1, 0]
    o[2] = z[1][0]
    z[0][1] = 7
    o[3] = z[0][1]
    o[4] = z[1][1]
""", out="qd.i32", n=5, pre="""
    y = qd.field(qd.i32, shape=(2, 3))
    z = qd.Vector.field(2, qd.i32, shape=2)
    z.from_numpy(__import__("numpy").array([[1, 2], [3, 4]], dtype=__import__("numpy").int32))
""")
kernel_case("subscript_vector_field_with_two_indices_refused", """
    o[0] = z[1, 1]
""", out="qd.i32", n=1, pre="z = qd.Vector.field(2, qd.i32, shape=2)")
kernel_case("attribute_swizzles_and_props", """
    v = qd.Vector([1.0, 2.0, 3.0, 4.0])
    w = v.xy
    o[0] = w[0] + w[1] * 10
    o[1] = v.w
    u = v.zyx
    o[2] = u[0]
    v.x = 9.0
    v.yz = qd.Vector([7.0, 8.0])
    o[3] = v[0] + v[1] + v[2]
    o[4] = v.rgba[3]
    o[5] = v.n
    m = qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
    o[6] = m.n * 10 + m.m
    o[7] = x.shape[0]
""", n=8, pre="x = qd.field(qd.f32, shape=(5, 2))")
kernel_case("struct_attribute_access", """
    s = S(a=1.5, b=2)
    s.a += 1.0
    o[0] = s.a
    o[1] = s.b
    p[1].pos = qd.Vector([1.0, 2.0])
    p[1].m = 3.0
    p[1].pos[0] += p[1].m
    o[2] = p[1].pos[0]
    o[3] = p.pos[1][1]
    t = p[1]
    o[4] = t.m
""", n=5, pre="""
    S = qd.types.struct(a=qd.f32, b=qd.i32)
    P = qd.types.struct(pos=qd.types.vector(2, qd.f32), m=qd.f32)
    p = P.field(shape=3)
""")
kernel_case("dataclass_struct_arg", """
    o[0] = g(S(a=n, b=2))
""", "n: qd.f32", ("1.5",), n=1, pre="""
    S = qd.types.struct(a=qd.f32, b=qd.i32)

    @qd.func
    def g(s: S) -> qd.f32:
        return s.a * s.b
""")

# ---- matrices and vectors ------------------------------------------------------------------------------------------
kernel_case("matrix_literals_and_ops", """
    m = qd.Matrix([[a, 2.0], [3.0, 4.0]])
    v = qd.Vector([1.0, a])
    o[0] = (m @ v)[1]
    o[1] = m.transpose()[0, 1]
    o[2] = m.determinant()
    o[3] = v.dot(v)
    o[4] = v.norm()
    o[5] = (m * 2 + 1)[1, 1]
    o[6] = m.trace()
    o[7] = qd.Vector([1.0, 0.0, 0.0]).cross(qd.Vector([0.0, 1.0, 0.0]))[2]
""", "a: qd.f32", ("1.5",))
kernel_case("matrix_methods_more", """
    m = qd.Matrix([[2.0, 0.0], [0.0, 4.0]])
    inv = m.inverse()
    o[0] = inv[1, 1]
    v = qd.Vector([3.0, 4.0])
    n = v.normalized()
    o[1] = n[0]
    o[2] = v.norm_sqr()
    o[3] = v.sum()
    o[4] = v.max()
    o[5] = qd.Matrix.identity(qd.f32, 3)[1, 1]
    o[6] = v.outer_product(v)[0, 1]
    o[7] = qd.math.dot(v, v)
""")
kernel_case("matrix_typed_constructors", """
    v3 = qd.types.vector(3, qd.i32)
    a = v3(1, 2, 3)
    b = qd.math.vec2(1.5, 2.0)
    m = qd.types.matrix(2, 2, qd.f32)([[1, 2], [3, 4]])
    o[0] = a.sum()
    o[1] = b[0] + b[1]
    o[2] = a[2]
    o[3] = m[1, 0]
    o[4] = qd.Vector.zero(qd.f32, 3)[0]
    o[5] = qd.Vector.unit(3, 1)[1]
    z = qd.Vector([0] * 4)
    o[6] = z.n
""", n=7)
kernel_case("matrix_comprehensions", """
    v = qd.Vector([i * n for i in range(4)])
    m = qd.Matrix([[i + j for j in range(2)] for i in range(3)])
    d = {k: k * 2 for k in range(3)}
    o[0] = v[3]
    o[1] = m[2, 1]
    o[2] = d[2]
    w = qd.Vector([x for x in qd.static(range(6)) if x % 2 == 0])
    o[3] = w.n
    o[4] = sum([n, n, 1]) if qd.static(True) else 0
""", "n: qd.i32", ("3",), out="qd.i32", n=5)
kernel_case("matrix_typed_constructor_one_value", """
    b = qd.math.vec2(1.5)
    o[0] = b[0] + b[1]
""", n=1)
kernel_case("matrix_typed_constructor_from_vector", """
    a = qd.Vector([1, 2, 3])
    c = qd.math.ivec3(a)
    o[0] = c[2]
""", n=1)
kernel_case("matrix_unpack_more_columns_refused", """
    a, b = qd.Matrix([[1, 2], [3, 4]])
    o[0] = a
""", out="qd.i32", n=1)

# ---- compile-time Python (qd.static, dict/list/tuple, in / is) -----------------------------------------------------
kernel_case("static_containers", """
    t = (1, 2, 3)
    o[0] = t[1]
    l = [n, n * 2]
    o[1] = l[1]
    d = {"a": 1, "b": n}
    o[2] = d["b"]
    o[3] = len(t)
    a = qd.static(2 in (1, 2))
    b = qd.static("c" not in D)
    o[4] = a
    o[5] = b
    o[6] = D["x"]
""", "n: qd.i32", ("5",), out="qd.i32", n=7, pre="D = {'x': 4}")
kernel_case("static_in_runtime_refused", """
    o[0] = n in (1, 2)
""", "n: qd.i32", ("1",), out="qd.i32", n=1)
kernel_case("static_is_runtime_refused", """
    o[0] = n is None
""", "n: qd.i32", ("1",), out="qd.i32", n=1)
kernel_case("static_nested_refused", """
    for i in qd.static(qd.static(range(2))):
        o[0] += i
""", out="qd.i32", n=1)
kernel_case("static_assert_and_print", """
    qd.static_assert(N == 3)
    qd.static_assert(N > 0, "N must be positive")
    o[0] = N
""", out="qd.i32", n=1, pre="N = 3")
kernel_case("static_assert_failing_refused", """
    qd.static_assert(N == 4, "N must be 4")
    o[0] = N
""", out="qd.i32", n=1, pre="N = 3")
kernel_case("global_python_values", """
    o[0] = SCALE * n
    o[1] = TABLE[2]
    o[2] = CONF.k
    o[3] = np.pi if qd.static(True) else 0
    o[4] = math.sqrt(4.0)
""", "n: qd.f32", ("2.0",), n=5, pre="""
    import math
    import numpy as np

    SCALE = 1.5
    TABLE = (1, 4, 9)

    class Conf:
        k = 7

    CONF = Conf()
""")

# ---- pass / assert / print / f-strings -----------------------------------------------------------------------------
kernel_case("pass_and_docstring", """
    \"\"\"A docstring is an expression statement.\"\"\"
    pass
    if n > 0:
        pass
    else:
        o[0] = 1
    for i in range(2):
        pass
    o[1] = 2
""", "n: qd.i32", ("1", "-1"), out="qd.i32", n=2)
kernel_case("assert_passing_with_messages", """
    assert n >= 0
    assert n < 100, "too big"
    assert n != 50, f"n was {n}"
    assert n != 51, "n was %d" % n
    o[0] = n
""", "n: qd.i32", ("3",), out="qd.i32", n=1, debug=True)
kernel_case("assert_failing_in_debug", """
    assert n < 2, "n too big"
    o[0] = n
""", "n: qd.i32", ("3",), out="qd.i32", n=1, debug=True)
kernel_case("assert_message_not_a_string_refused", """
    assert n < 100, n
    o[0] = n
""", "n: qd.i32", ("3",), out="qd.i32", n=1, debug=True)
kernel_case("print_forms", """
    print(n)
    print("n =", n, "f =", f)
    print(f"fmt {n} and {f:.2f}")
    print("format {} {}".format(n, f))
    print("sep", n, sep="|")
    v = qd.Vector([1, 2])
    print("v", v)
    print("end", n, end="!\\n")
""", "n: qd.i32, f: qd.f32", ("7, 1.25",), out="qd.i32", n=1)

# ---- statements Quadrants' front end refuses -----------------------------------------------------------------------
for _name, _stmt in [("with", "with open('x') as fh:\n    pass"), ("try", "try:\n    o[0] = 1\nexcept Exception:\n    pass"),
                     ("raise", "raise ValueError('no')"), ("del", "x = 1\ndel x"), ("global", "global o"),
                     ("import", "import math"), ("set_literal", "s = {1, 2}\no[0] = len(s)"),
                     ("generator_expression", "o[0] = sum(i for i in range(3))"),
                     ("class_def", "class A:\n    pass"), ("yield", "yield 1"),
                     ("string_runtime_value", "s = 'abc' if n > 0 else 'de'\no[0] = 1")]:
    kernel_case(f"refused_{_name}", _stmt, "n: qd.i32", ("1",), out="qd.i32", n=1)

# ---- atomics, intrinsics, casts -----------------------------------------------------------------------------------
kernel_case("atomics_and_augassign_on_fields", """
    for i in range(10):
        qd.atomic_add(o[0], i)
        o[1] += 1
        qd.atomic_max(o[2], i * 3)
        old = qd.atomic_min(o[3], -i)
        o[4] |= 1 << i
""", out="qd.i32", n=5)
kernel_case("casts", """
    o[0] = qd.cast(f, qd.i32)
    o[1] = qd.cast(-f, qd.u8) if qd.static(False) else qd.cast(qd.cast(-f, qd.i32), qd.u8)
    o[2] = qd.cast(n, qd.f32) / 3
    o[3] = qd.bit_cast(qd.cast(1.0, qd.f32), qd.i32)
    o[4] = int(f) + float(n)
    o[5] = qd.cast(300, qd.u8)
    v = qd.Vector([1.5, 2.5]).cast(qd.i32)
    o[6] = v[1]
""", "n: qd.i32, f: qd.f32", ("7, 2.75",), out="qd.f64", n=7)

# ---- cases added with the fixes they check (each one differed from Quadrants before its fix) -----------------------
kernel_case("u1_arithmetic_is_one_bit", """
    p = a < b
    q = b < c
    o[0] = p + q
    o[1] = p - q
    o[2] = p * q
    o[3] = -p
    o[4] = ~p
    o[5] = p ^ q
    o[6] = p + 1
    o[7] = p + p + p
    o[8] = (a < b) << 1
    o[9] = qd.cast(p, qd.i32) + q
    o[10] = (a < b) + (b < c) + (a < c)
    o[11] = p ** 2
""", "a: qd.i32, b: qd.i32, c: qd.i32", ("1, 2, 3", "3, 2, 1", "1, 2, 1"), out="qd.i64", n=12)
kernel_case("binop_pow_integral_exponent_keeps_base_type", """
    o[0] = a ** b
    o[1] = qd.cast(a, qd.i64) ** b
    o[2] = a ** qd.cast(b, qd.i64)
    o[3] = qd.cast(a, qd.u8) ** b
    o[4] = qd.cast(a, qd.i8) ** 3
    o[5] = qd.cast(a, qd.f32) ** b
""", "a: qd.i32, b: qd.i32", ("9, -4", "2, -1", "-2, -3", "2, -31", "3, 5"), out="qd.i64", n=6)
kernel_case("augassign_casts_the_value_first", """
    w = n
    w -= 0.5
    o[0] = w
    x = n
    x += 2.7
    o[1] = x
    y = n
    y *= 0.5
    o[2] = y
    z = qd.cast(n, qd.u8)
    z += 300
    o[3] = z
    f = qd.cast(1.0, qd.f32)
    f += qd.cast(1e-8, qd.f64)
    o[4] = f
    a[0] = n
    a[0] -= 0.5
    o[5] = a[0]
    b = qd.cast(n, qd.i16)
    b |= 65536 + 3
    o[6] = b
""", "n: qd.i32", ("5", "-5"), out="qd.f64", n=7, pre="a = qd.field(qd.i32, shape=1)")
kernel_case("boolop_and_ifexp_build_every_operand", """
    for t in range(1):
        x = False and bump(1) > 0
        y = True or bump(10) > 0
        z = bump(100) if n > 0 else bump(1000)
        w = bump(10000) if qd.static(True) else bump(100000)
        o[1] = x + y * 10 + z + w
""", "n: qd.i32", ("1", "-1"), out="qd.i32", n=2, pre="""
    @qd.func
    def bump(v: qd.i32) -> qd.i32:
        o[0] += v
        return 1
""")
kernel_case("print_spec_precision", """
    print(f"{f:8.3f}|{f:.1f}")
""", "n: qd.i32, f: qd.f32", ("42, 3.14159",), out="qd.i32", n=1)
kernel_case("print_spec_int_width", """
    print(f"{n:5d}|{n:d}")
""", "n: qd.i32, f: qd.f32", ("42, 3.14159",), out="qd.i32", n=1)
kernel_case("print_spec_exponent", """
    print(f"{f:e}")
""", "n: qd.i32, f: qd.f32", ("42, 3.14159",), out="qd.i32", n=1)
kernel_case("print_spec_align", """
    print("{:>6.2f}!".format(f))
""", "n: qd.i32, f: qd.f32", ("42, 3.14159",), out="qd.i32", n=1)
kernel_case("print_format_positions", """
    print("{1} {0}".format(n, f))
""", "n: qd.i32, f: qd.f32", ("42, 3.14159",), out="qd.i32", n=1)
kernel_case("print_format_keyword", """
    print("{} {k}".format(n, k=n * 2))
""", "n: qd.i32, f: qd.f32", ("42, 3.14159",), out="qd.i32", n=1)
kernel_case("for_static_range_of_local_vector_in_loop", """
    for t in range(1):
        v = qd.Vector([1, 2, 3])
        for i in qd.static(range(v.n)):
            o[0] += v[i]
""", out="qd.i32", n=1)
kernel_case("for_inner_range_float_bound", """
    for t in range(1):
        for i in range(f):
            o[0] += 1
        for i in range(1.5, f):
            o[1] += 1
""", "f: qd.f32", ("3.7",), out="qd.i32", n=2)
kernel_case("namedexpr_in_while_condition", """
    for t in range(1):
        i = 0
        while (j := i * 2) < n:
            o[0] += j
            i += 1
        o[1] = j
""", "n: qd.i32", ("7",), out="qd.i32", n=2)
kernel_case("assert_format_message", """
    assert n < 100, "n is {}".format(n)
    o[0] = n
""", "n: qd.i32", ("3",), out="qd.i32", n=1, debug=True)
case("subscript_vector_ndarray_with_two_indices_refused", """
    import numpy as np

    @qd.kernel
    def k(a: qd.types.ndarray(dtype=qd.types.vector(2, qd.i32), ndim=1)) -> qd.i32:
        return a[1, 1]

    def run():
        return k(np.ones((2, 2), np.int32))
""")
kernel_case("if_on_float_while_refused", """
    for t in range(1):
        while f:
            f = 0.0
""", "f: qd.f32", ("1.0",), out="qd.i32", n=1)
kernel_case("static_of_dict_refused", """
    d = qd.static({"a": 1})
    o[0] = d["a"]
""", out="qd.i32", n=1)
kernel_case("print_format_hex_refused", """
    print(f"{n:x}")
""", "n: qd.i32", ("42",), out="qd.i32", n=1)

# ---- more branches of build_Call / build_For / build_Subscript / build_Return ---------------------------------------
kernel_case("call_starred_args", """
    v = qd.Vector([3, 9, 4])
    o[0] = qd.max(*v)
    o[1] = add3(*v)
    o[2] = add3(*T)
    o[3] = add3(1, *T[1:])
""", out="qd.i32", n=4, pre="""
    T = (1, 2, 3)

    @qd.func
    def add3(a, b, c):
        return a * 100 + b * 10 + c
""")
kernel_case("call_double_star_kwargs", """
    o[0] = add3(**KW)
    o[1] = add3(1, **{"b": 2, "c": 3})
""", out="qd.i32", n=2, pre="""
    KW = {"a": 7, "b": 8, "c": 9}

    @qd.func
    def add3(a, b, c):
        return a * 100 + b * 10 + c
""")
kernel_case("call_primitive_type_of_vector_refused", """
    v = qd.Vector([1.0, 2.0])
    w = qd.f32(v)
    o[0] = w[0]
""", n=1)
kernel_case("call_python_math_on_kernel_value_refused", """
    o[0] = math.sqrt(f)
""", "f: qd.f32", ("4.0",), n=1, pre="import math")
kernel_case("func_returns_annotated_tuple", """
    a, b = pair(n)
    o[0] = a
    o[1] = b
""", "n: qd.i32", ("7",), n=2, pre="""
    @qd.func
    def pair(x: qd.i32) -> (qd.i32, qd.f32):
        return x / 2, x / 2
""")
kernel_case("for_struct_for_ndarray_arg", """
    for i in arr:
        o[0] += arr[i]
    for I in qd.grouped(m):
        o[1] += m[I] * (I[0] + 1)
    for i, j in qd.ndrange(m.shape[0], m.shape[1]):
        o[2] += m[i, j]
""", "arr: qd.types.ndarray(dtype=qd.f32, ndim=1), m: qd.types.ndarray(dtype=qd.f32, ndim=2)",
            ("__import__('numpy').arange(4, dtype='float32'), __import__('numpy').ones((2, 3), 'float32')",), n=3)
kernel_case("for_range_of_field_element_bound", """
    for i in range(cnt[None]):
        o[0] += i
    for i in range(cnt[None], 2 * cnt[None]):
        o[1] += 1
""", out="qd.i32", n=2, pre="""
    cnt = qd.field(qd.i32, shape=())
    cnt[None] = 4
""")
kernel_case("listcomp_nested_generators", """
    v = qd.Vector([i * 10 + j for i in range(2) for j in range(3) if j != 1])
    o[0] = v.n
    o[1] = v[3]
    t = [x * n for x in (1, 2, 3)]
    o[2] = t[2]
""", "n: qd.i32", ("2",), out="qd.i32", n=3)
kernel_case("swizzle_augassign_and_slice_store", """
    v = qd.Vector([1.0, 2.0, 3.0])
    v.xy += 1.0
    v.z *= 2.0
    o[0], o[1], o[2] = v[0], v[1], v[2]
""", n=3)
kernel_case("if_with_walrus_and_chained_logic", """
    if (a := n % 3) == 1 and n > 0 or n < -5:
        o[0] = a
    else:
        o[0] = -1
""", "n: qd.i32", ("4", "-7", "3"), out="qd.i32", n=1)
kernel_case("nested_ifexp_in_loop", """
    for i in range(6):
        o[i] = i * 2 if i % 3 == 0 else (i if i % 3 == 1 else -i)
""", out="qd.i32", n=6)
kernel_case("while_with_break_in_parallel_loop", """
    for i in range(4):
        j = 0
        while True:
            if j * j >= i * 5:
                break
            j += 1
        o[i] = j
""", out="qd.i32", n=4)
kernel_case("continue_in_parallel_loop_refused_or_not", """
    for i in range(6):
        if i % 2 == 0:
            continue
        o[i] = i
""", out="qd.i32", n=6)
kernel_case("static_for_over_fields_tuple_with_enumerate", """
    for k, f in qd.static(enumerate(FIELDS)):
        for i in range(2):
            f[i] = k * 10 + i
    for i in range(2):
        o[i] = FIELDS[0][i] + FIELDS[1][i]
""", n=2, pre="""
    FIELDS = (qd.field(qd.f32, shape=2), qd.field(qd.f32, shape=2))
""")
kernel_case("attribute_of_ndarray_shape_and_dtype_static", """
    o[0] = arr.shape[0]
    o[1] = len(arr.shape) if qd.static(True) else 0
    if qd.static(arr.dtype == qd.f32):
        o[2] = 1
""", "arr: qd.types.ndarray(dtype=qd.f32, ndim=1)", ("__import__('numpy').zeros(5, 'float32')",), n=3)
kernel_case("matrix_ops_elementwise_and_compare", """
    a = qd.Vector([1.0, -2.0, 3.0])
    b = qd.Vector([2.0, 2.0, 2.0])
    c = a * b + a / b - a ** 2
    m = a < b
    s = qd.select(a > 0, a, b)
    o[0], o[1], o[2] = c[0], c[1], c[2]
    o[3] = m[0] + m[1] * 2 + m[2] * 4
    o[4] = s[1]
    o[5] = (a @ b)
    o[6] = a.norm_sqr()
""", n=7)

# ---- generated: every binary operator over pairs of operand types (promotion, wrapping, signedness) ----------------
_TYPES = ["qd.i8", "qd.u8", "qd.i16", "qd.u16", "qd.i32", "qd.u32", "qd.i64", "qd.f32", "qd.f64"]
_INT_TYPES = [t for t in _TYPES if not t.startswith("qd.f")]
for _op in ["+", "-", "*", "//", "%", "/", "&", "|", "^", ">>", "<<", "<", "=="]:
    _ints_only = _op in ("&", "|", "^", ">>", "<<")
    _ts = _INT_TYPES if _ints_only else _TYPES
    _lines, _k = [], 0
    for _ta in _ts:
        for _tb in _ts:
            _rhs = "qd.cast(s, " + _tb + ")" if _op in (">>", "<<") else "qd.cast(b, " + _tb + ")"
            _lines.append(f"o[{_k}] = qd.cast(a, {_ta}) {_op} {_rhs}")
            _k += 1
    kernel_case(f"binop_type_pairs_{_OPNAME.get(_op, {'<': 'lt', '==': 'eq'}.get(_op))}", "\n".join(_lines),
                "a: qd.i32, b: qd.i32, s: qd.i32", ("200, 100, 3", "-77, 9, 1", "100000, -3, 9"), n=_k)
# augmented assignment of each operand type into each variable type (+=, -= cast the value first; *= does not)
for _op in ["+=", "-=", "*=", "//=", "|="]:
    _lines, _k = [], 0
    _ts = _INT_TYPES if _op == "|=" else _TYPES
    for _ta in _ts:
        for _tb in _ts:
            _lines += [f"x{_k} = qd.cast(a, {_ta})", f"x{_k} {_op} qd.cast(b, {_tb})", f"o[{_k}] = x{_k}"]
            _k += 1
    kernel_case(f"augassign_type_pairs_{_OPNAME[_op[:-1]]}", "\n".join(_lines), "a: qd.f64, b: qd.f64",
                ("200.0, 100.75", "77.0, 9.5", "5.0, 2.5"), n=_k)

# ---- build_For / build_With / build_Assign branches that refuse, and sparse struct-fors ----------------------------
kernel_case("for_grouped_nested_refused", """
    for I in qd.grouped(qd.grouped(x)):
        o[0] += 1
""", out="qd.i32", n=1, pre="x = qd.field(qd.i32, shape=3)")
kernel_case("for_static_inside_grouped_refused", """
    for I in qd.grouped(qd.static(x)):
        o[0] += 1
""", out="qd.i32", n=1, pre="x = qd.field(qd.i32, shape=3)")
kernel_case("for_static_grouped_of_field_refused", """
    for I in qd.static(qd.grouped(x)):
        o[0] += 1
""", out="qd.i32", n=1, pre="x = qd.field(qd.i32, shape=3)")
kernel_case("for_grouped_two_targets_refused", """
    for i, j in qd.grouped(qd.ndrange(2, 2)):
        o[0] += 1
""", out="qd.i32", n=1)
kernel_case("for_ndrange_target_count_refused", """
    for i in qd.ndrange(2, 3):
        o[0] += 1
""", out="qd.i32", n=1)
kernel_case("for_ifexp_runtime_test_refused", """
    for i in range(n) if n > 2 else range(3):
        o[0] += 1
""", "n: qd.i32", ("5",), out="qd.i32", n=1)
kernel_case("kernel_return_in_loop_refused", """
    for i in range(3):
        if i > 1:
            return
        o[0] += 1
""", out="qd.i32", n=1)
kernel_case("kernel_return_void_early_static", """
    o[0] = 1
    if qd.static(True):
        return
    o[1] = 2
""", out="qd.i32", n=2)
kernel_case("annassign_static_refused", """
    x: qd.i32 = qd.static(3)
    o[0] = x
""", out="qd.i32", n=1)
kernel_case("with_stream_parallel", """
    with qd.stream_parallel():
        for i in range(4):
            o[i] = i * 2
""", out="qd.i32", n=4)
kernel_case("with_other_context_refused", """
    with qd.static(range(2)):
        o[0] = 1
""", out="qd.i32", n=1)
kernel_case("struct_for_pointer_snode", """
    for i, j in x:
        o[0] += x[i, j]
        o[1] += 1
    for i in blk:
        o[2] += i
""", out="qd.i32", n=3, pre="""
    x = qd.field(qd.i32)
    blk = qd.root.pointer(qd.i, 4)
    blk.dense(qd.j, 4).place(x)
    x[1, 2] = 5
    x[3, 0] = 7
""")
kernel_case("struct_for_bitmasked_and_activity", """
    for i in x:
        o[0] += x[i]
    o[1] = qd.is_active(blk, [2])
    o[2] = qd.is_active(blk, [3])
    qd.deactivate(blk, [2])
    o[3] = qd.is_active(blk, [2])
""", out="qd.i32", n=4, pre="""
    x = qd.field(qd.i32)
    blk = qd.root.bitmasked(qd.i, 8)
    blk.place(x)
    x[2] = 4
    x[6] = 1
""")
kernel_case("dynamic_append_and_length", """
    for t in range(1):
        for k in range(5):
            d[0].append(k * 3)
        o[0] = d[0].length()
        o[1] = qd.length(d.parent(), 0)
    for j in range(5):
        o[2] += d[0, j]
""", out="qd.i32", n=3, pre="""
    d = qd.field(qd.i32)
    qd.root.dense(qd.i, 2).dynamic(qd.j, 16, chunk_size=4).place(d)
""")
case("template_optional_is_none", """
    o = qd.field(qd.i32, shape=2)
    f = qd.field(qd.i32, shape=2)

    @qd.kernel
    def k(t: qd.Tensor | None):
        if qd.static(t is None):
            o[0] = -1
        else:
            o[0] = t[0] + 10
        if qd.static(t is not None):
            o[1] = 1

    def run():
        res = []
        k(None)
        res.append(o.to_numpy().tolist())
        f[0] = 5
        k(f)
        res.append(o.to_numpy().tolist())
        return res
""")
case("dataclass_argument", """
    import dataclasses

    @dataclasses.dataclass
    class P:
        x: qd.types.NDArray[qd.f32, 1]
        scale: qd.f32

    o = qd.field(qd.f32, shape=3)

    @qd.kernel
    def k(p: P):
        for i in range(p.x.shape[0]):
            o[i] = p.x[i] * p.scale

    def run():
        import numpy as np
        k(P(x=qd.ndarray(qd.f32, shape=3), scale=2.0) if False else P(x=_arr(), scale=2.5))
        return o.to_numpy()

    def _arr():
        a = qd.ndarray(qd.f32, shape=3)
        a.from_numpy(__import__("numpy").array([1.0, 2.0, 3.0], dtype=__import__("numpy").float32))
        return a
""")
case("data_oriented_class_kernel", """
    @qd.data_oriented
    class Sim:
        def __init__(self):
            self.x = qd.field(qd.f32, shape=4)
            self.k = 3

        @qd.kernel
        def step(self, d: qd.f32):
            for i in self.x:
                self.x[i] += d * self.k + self.helper(i)

        @qd.func
        def helper(self, i: qd.i32) -> qd.f32:
            return i * 0.5

    def run():
        s = Sim()
        s.step(1.0)
        s.step(0.5)
        return s.x.to_numpy()
""")
kernel_case("kernel_reads_global_scalar", """
    o[0] = G * 2
""", out="qd.i32", n=1, pre="G = 3")
case("pure_kernel_reads_global", """
    G = 3
    o = qd.field(qd.i32, shape=1)

    @qd.kernel(pure=True)
    def k():
        o[0] = g * 2

    g = 5

    def run():
        k()
        return o.to_numpy()
""")
kernel_case("generator_in_variable_refused", """
    g = (i for i in range(3))
    o[0] = 1
""", out="qd.i32", n=1)
kernel_case("unpack_scalar_refused", """
    a, b = n
    o[0] = a
""", "n: qd.i32", ("1",), out="qd.i32", n=1)
kernel_case("loop_var_assigned_in_body", """
    for i in range(3):
        i = i + 10
        o[0] += i
""", out="qd.i32", n=1)

# ---- vectors: augmented assignment of float values into integer vectors (cast first for +=, -=) ---------------------
kernel_case("augassign_int_vector_float_value", """
    v = qd.Vector([5, -5, 7])
    v += qd.Vector([0.5, -0.5, 2.7])
    o[0], o[1], o[2] = v[0], v[1], v[2]
    w = qd.Vector([5, -5, 7])
    w -= 0.5
    o[3], o[4] = w[0], w[1]
    a[0] += qd.Vector([0.5, 2.7])
    o[5], o[6] = a[0][0], a[0][1]
    u = qd.Vector([5, 6])
    u *= 0.5
    o[7] = u[0] + u[1] * 10
""", n=8, pre="""
    a = qd.Vector.field(2, qd.i32, shape=1)
""")
kernel_case("vector_mixed_type_arithmetic", """
    iv = qd.Vector([1, 2, 3])
    fv = qd.Vector([0.5, 0.25, 2.0])
    r = iv * fv + iv // 2 - iv / 4
    o[0], o[1], o[2] = r[0], r[1], r[2]
    b = iv < 2
    o[3] = b[0] + b[1] * 10
    s = (iv > 1) + (iv > 2)
    o[4] = s[0] + s[1] * 10 + s[2] * 100
""", n=5)

# ---- generated: unary operators, builtins min/max/abs and casts over every type ------------------------------------
for _t in _TYPES:  # one case per type: Quadrants' compiler aborts on some of these (each is its own case)
    for _expr in ("-x", "abs(x)", "not x" if not _t.startswith("qd.f") else "not (x > 0)",
                  "~x" if not _t.startswith("qd.f") else "-(-x)"):
        kernel_case(f"unary_{_t[3:]}_{_expr.replace(' ', '_').replace('(', '').replace(')', '').replace('-', 'neg').replace('~', 'inv').replace('>', 'gt')}",
                    f"x = qd.cast(a, {_t})\no[0] = {_expr}", "a: qd.i32", ("100", "-77", "0", "200000"), n=1)
for _ta in _TYPES:
    _lines = [f"o[{_k}] = max(qd.cast(a, {_ta}), qd.cast(b, {_tb})) + min(qd.cast(a, {_ta}), qd.cast(b, {_tb})) * 1000"
              for _k, _tb in enumerate(_TYPES)]
    kernel_case(f"minmax_{_ta[3:]}_with_each_type", "\n".join(_lines), "a: qd.i32, b: qd.i32",
                ("200, 100", "-77, 9", "100000, -3"), n=len(_TYPES))
_lines, _k = [], 0
for _ta in _TYPES:
    for _tb in _TYPES:
        _lines.append(f"o[{_k}] = qd.cast(qd.cast(a, {_ta}), {_tb})")
        _k += 1
kernel_case("cast_type_pairs", "\n".join(_lines), "a: qd.i32", ("200", "-77", "100000", "70000"), n=_k)
_lines, _k = [], 0
for _tb in _TYPES:
    _lines.append(f"o[{_k}] = qd.cast(f, {_tb})")
    _k += 1
kernel_case("cast_float_to_each_type", "\n".join(_lines), "f: qd.f64", ("2.75", "100.5", "65.999"), n=_k)

# ---- matrices and structs over element types -------------------------------------------------------------------------
for _t in ("qd.i32", "qd.u8", "qd.f32", "qd.f64"):
    kernel_case(f"matrix_ops_{_t[3:]}", f"""
        m = qd.Matrix([[a, 2], [3, b]], {_t})
        v = qd.Vector([a, b], {_t})
        r = m @ v
        o[0], o[1] = r[0], r[1]
        o[2] = m.transpose()[0, 1]
        o[3] = (m * 2 + 1)[1, 1]
        o[4] = v.dot(v)
        o[5] = m.sum() if qd.static(True) else 0
        w = v + 1
        o[6] = w[0] * w[1]
        o[7] = (m - m.transpose())[0, 1]
    """, "a: qd.i32, b: qd.i32", ("5, -2", "200, 100"), n=8)
kernel_case("struct_of_mixed_types", """
    s = S(a=a, b=b, v=qd.Vector([a, b]))
    s.a += 0.5
    s.b += 1.7
    s.v[1] *= 3
    o[0], o[1], o[2], o[3] = s.a, s.b, s.v[0], s.v[1]
    p[0] = s
    o[4] = p[0].b + p[0].v[1]
    t = p[0]
    t.a = 100.0
    o[5] = p[0].a
""", "a: qd.i32, b: qd.i32", ("3, 4",), n=6, pre="""
    S = qd.types.struct(a=qd.f32, b=qd.i8, v=qd.types.vector(2, qd.u8))
    p = S.field(shape=2)
""")
kernel_case("vector_field_and_matrix_field_updates", """
    for i in range(3):
        vf[i] = qd.Vector([i, i * 2.5, -i])
        mf[i] = qd.Matrix([[i, 1], [2, i * 0.5]])
        vf[i] += vf[i] * 0.5
        mf[i] = mf[i] @ mf[i] if qd.static(True) else mf[i]
        mf[i][0, 1] -= vf[i].y
    for i in range(3):
        o[i] = vf[i].sum() + mf[i].sum()
""", n=3, pre="""
    vf = qd.Vector.field(3, qd.f32, shape=3)
    mf = qd.Matrix.field(2, 2, qd.f32, shape=3)
""")
kernel_case("ifexp_static_vector_sides_of_different_shapes_refused", """
    v = qd.Vector([1.0, 2.0]) if qd.static(False) else qd.Vector([1.0, 2.0, 3.0])
    o[0] = v[0]
""", n=1)

# ---- constructs real programs lean on --------------------------------------------------------------------------------
kernel_case("atomic_returns_old_value_and_triangular_loops", """
    qd.loop_config(serialize=True)  # the old values depend on the order: one thread, as in both
    for i in range(5):
        for j in range(i):
            old = qd.atomic_add(cnt[None], 1)
            o[i] = qd.max(o[i], old)
    o[5] = cnt[None]
""", out="qd.i32", n=6, pre="""
    cnt = qd.field(qd.i32, shape=())
""")
kernel_case("math_functions_float", """
    o[0] = qd.exp(f) + qd.log(f + 1.0)
    o[1] = qd.sin(f) * qd.cos(f) + qd.tan(f * 0.1)
    o[2] = qd.atan2(f, 2.0) + qd.asin(0.5) + qd.acos(0.5)
    o[3] = qd.tanh(f) + qd.rsqrt(f)
    o[4] = qd.pow(f, 2.5)
    o[5] = qd.math.clamp(f * 3.0, 0.0, 4.0)
    o[6] = qd.math.mix(1.0, 3.0, f)
    o[7] = qd.floor(f * 10.0) + qd.ceil(-f) + qd.round(f * 4.0)
""", "f: qd.f32", ("1.75", "0.3"), n=8)
kernel_case("math_functions_of_ints", """
    o[0] = qd.sqrt(n)
    o[1] = qd.exp(n * 0.1)
    o[2] = qd.pow(n, 3)
    o[3] = qd.abs(-n)
    o[4] = qd.math.clamp(n, 0, 5)
""", "n: qd.i32", ("7", "-2"), n=5)
kernel_case("struct_field_loop_and_member_index", """
    for i in p:
        p[i].pos = qd.Vector([i, i * 2.0])
        p[i].m = 1.0 + i
    for i in p:
        o[0] += p[i].pos[1] * p[i].m
        o[1] += p.pos[i][0]
""", n=2, pre="""
    P = qd.types.struct(pos=qd.types.vector(2, qd.f32), m=qd.f32)
    p = P.field(shape=4)
""")
kernel_case("nested_static_loops_and_unrolled_matrix_build", """
    m = qd.Matrix.zero(qd.f32, 3, 3)
    for i in qd.static(range(3)):
        for j in qd.static(range(3)):
            m[i, j] = i * 3 + j
    t = 0.0
    for i in qd.static(range(3)):
        for j in qd.static(range(i + 1)):
            t += m[i, j]
    o[0] = t
    o[1] = m.trace()
""", n=2)
