"""Syntax parity with Quadrants 1.3.3 (issue 39, item 3): every case of tests/lang/syntax_cases.py
(one Python construct each, from the `build_*` methods of Quadrants' AST transformer and their
branches) runs under qdexplorer.lang here and under real Quadrants, and the two must agree:
the same values (floats to 1e-5 relative) and the same printed text where Quadrants accepts the
case; a refusal, in one clear line (a qdexplorer error class, Quadrants' names), where Quadrants
refuses it. Quadrants' answers come from tests/lang/syntax_parity_quadrants.json, a cache keyed by
each case's text and Quadrants' version; cases not in it run under Quadrants in one child process
(tests/lang/syntax_parity_runner.py), so an edited case is always compared with real Quadrants.

KNOWN lists the differences that remain, each with its reason; the test fails on any other, and on
a listed one that is gone."""
import math
import os
import tempfile

import pytest

import qdexplorer.lang as qd
from tests.lang.syntax_cases import CASES
from tests.lang import syntax_parity_runner as R

# differences that remain: case name -> why. None is a wrong answer: each is a program Quadrants refuses
# (or fails on) that ours runs.
KNOWN: dict[str, str] = {
    "augassign_matmul_refused": "Quadrants fails with an internal AssertionError: MatMult (its Expr._augassign has no "
                                "@= branch); ours computes m = m @ m",
    "for_over_vector_static": "a top-level `for i in qd.static(range(v.n))` of a kernel-scope vector: ours unrolls "
                              "top-level qd.static loops before it builds the kernel-scope locals (refused, one line); "
                              "inside a loop it works (for_static_range_of_local_vector_in_loop)",
    "func_return_in_runtime_if_refused": "ours compiles a `return` inside a runtime if/for of a @qd.func (one result "
                                         "variable per path); Quadrants refuses it",
    "kernel_default_argument_refused": "ours binds kernel parameter defaults (kept on purpose: "
                                       "tests/lang/test_arg_checks.py::test_kernel_arguments_with_defaults); Quadrants "
                                       "refuses them",
    "literal_int_out_of_range_refused": "ours types an int literal beyond default_ip as i64, the value Python gives "
                                        "(frontend/values.py operand_literal, on purpose); Quadrants refuses it",
    "func_returns_annotated_tuple": "Quadrants fails internally (TypeError: 'tuple' object does not support item "
                                    "assignment, in its cast of a @qd.func's tuple result); ours returns each value "
                                    "cast to its annotated type",
    **dict.fromkeys(("binop_type_pairs_floordiv", "binop_type_pairs_mod", "augassign_type_pairs_floordiv"),
                    "Quadrants 1.3.3 miscomputes // and % when both operands are 8-bit on the CPU (u8(200) // u8(100) "
                    "is 1, u8(179) % u8(9) is 0 there; every other type pair agrees); ours gives Python's floor "
                    "division and modulo, as Quadrants does for every wider pair"),
    "loop_var_assigned_in_body": "assigning a range-for's loop variable in its body: Quadrants fails with an internal "
                                 "assertion (LocalStoreStmt); ours assigns a copy, as Python (the next iteration "
                                 "takes the next index)",
    "if_with_walrus_and_chained_logic": "a `:=` inside and/or: Quadrants builds the operands in a scope of their own, "
                                        "so the name is gone after it (QuadrantsNameError); ours keeps it, as Python",
}


def _same_value(a, b) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and isinstance(b, float) and (math.isnan(a) or math.isnan(b)):
            return math.isnan(a) and math.isnan(b)
        return a == b or abs(a - b) <= 1e-5 * max(abs(a), abs(b)) + 1e-7
    return a == b


def verdict(theirs: dict, ours: dict) -> tuple[str, str]:
    """("same" | "both refused" | "quadrants crashed" | "different" | "unclear refusal", detail)."""
    if theirs.get("error") == "crash":
        return "quadrants crashed", ""
    if "error" in theirs and "error" in ours:
        if not ours["clear"]:
            return "unclear refusal", f"ours raised {ours['error']}: {ours['msg']} (Quadrants: {theirs['last']})"
        return "both refused", ""
    if "error" in theirs:
        return "different", f"Quadrants refuses ({theirs['error']}: {theirs['last']}); ours gives {ours.get('value')!r}"
    if "error" in ours:
        return "different", f"ours refuses ({ours['error']}: {ours['msg']}); Quadrants gives {theirs['value']!r}"
    if not _same_value(theirs["value"], ours["value"]):
        return "different", f"values: Quadrants {theirs['value']!r}, ours {ours['value']!r}"
    if theirs["out"] != ours["out"]:
        return "different", f"printed: Quadrants {theirs['out']!r}, ours {ours['out']!r}"
    return "same", ""


@pytest.fixture(scope="module")
def answers():
    version = R.quadrants_version()
    cache = R.load_cache()
    theirs, missing = {}, []
    for c in CASES:
        hit = cache.get(R.key(c, version or "1.3.3"))
        if hit is not None:
            theirs[c.name] = hit
        else:
            missing.append(c)
    if missing:
        if version is None:
            pytest.skip(f"{len(missing)} cases have no recorded Quadrants answer and Quadrants is not installed")
        theirs.update(R.quadrants_answers(missing)[1])
    ours = {}
    with tempfile.TemporaryDirectory(prefix="syntax-ours-") as folder:
        for c in CASES:
            ours[c.name] = R.run_case(qd, c, folder)
    return {c.name: verdict(theirs[c.name], ours[c.name]) + (theirs[c.name], ours[c.name]) for c in CASES}


def test_every_case_agrees_with_quadrants(answers):
    bad = {n: d for n, (v, d, *_r) in answers.items() if v in ("different", "unclear refusal") and n not in KNOWN}
    assert not bad, "\n".join(f"{n}: {d}" for n, d in sorted(bad.items()))


def test_known_differences_are_still_differences(answers):
    gone = [n for n in KNOWN if answers[n][0] not in ("different", "unclear refusal")]
    assert gone == [], "these agree now: remove them from KNOWN"


def test_the_cases_cover_the_front_end(answers):
    counts = {}
    for v, *_ in answers.values():
        counts[v] = counts.get(v, 0) + 1
    assert len(CASES) >= 130 and counts.get("same", 0) >= 80, counts


def test_every_refusal_of_ours_names_the_kernel_line(answers):
    """A refusal of a case Quadrants refuses too: a qdexplorer error (Quadrants' class names) whose
    first line says file:line: error: what."""
    bad = []
    for n, (v, _d, theirs, ours) in answers.items():
        if v == "both refused" and "case_" not in ours["msg"] and "error" not in ours["msg"].lower():
            bad.append(f"{n}: {ours['msg']}")
    assert bad == []


def summary(answers) -> dict:
    counts: dict = {}
    for v, *_ in answers.values():
        counts[v] = counts.get(v, 0) + 1
    return counts
