"""One rule for every number (issue 41): each numeric option of each subcommand, found by walking
the argparse parsers, and each QDEXPLORER_* variable that holds a number, found by reading the
package, meets nan, ±inf, -1, 0, 1e308, 2**64, 'abc' and '': each is either refused with one line
naming the option (exit 2) or accepted as a finite value in the option's stated range."""
from __future__ import annotations

import argparse
import contextlib
import io
import math
import re
from pathlib import Path

import pytest

import qdexplorer
from qdexplorer import numbers
from qdexplorer.cli import build_parser
from qdexplorer.cli.arg_types import Number

HOSTILE = ["nan", "inf", "-inf", "-1", "0", "1e308", str(2**64), "abc", "", "1" * 5000]
PACKAGE = Path(qdexplorer.__file__).parent
# QDEXPLORER_* variables that hold no number, and what they hold instead
NOT_NUMBERS = {"QDEXPLORER_CACHE_DIR": "a folder", "QDEXPLORER_CONFIG_DIR": "a folder",
               "QDEXPLORER_DATA_DIR": "a folder", "QDEXPLORER_LIBDEVICE": "a file",
               "QDEXPLORER_NCU": "a program", "QDEXPLORER_PTXAS": "a program",
               "QDEXPLORER_PROGRAM": "a mark set for child processes", "QDEXPLORER_DISABLE_CUDA": "a switch",
               "QDEXPLORER_NATIVE_LAUNCH": "a switch (1: on)", "QDEXPLORER_RAY_DIRECT": "a switch (0: off)",
               "QDEXPLORER_OFFLINE_CACHE": "a switch (0/false/no/off: off)",
               "QDEXPLORER_KERNEL_PROFILER": "a switch (0: off)", "QDEXPLORER_PRIVATE_CLUSTER": "a mark"}


PARSER = build_parser()


def subcommands():
    sub = next(a for a in PARSER._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices.items())


def minimal_args(p: argparse.ArgumentParser) -> list[str]:
    """Values for what the subcommand requires, so that only the option under test can fail."""
    out = []
    for a in p._actions:
        if not a.option_strings and a.nargs is None:
            out.append("x" if not a.choices else next(iter(a.choices)))
        elif not a.option_strings and isinstance(a.nargs, int):
            out += ["x"] * a.nargs
        elif a.option_strings and a.required:
            out += [a.option_strings[0], "x"]
    return out


def numeric_options():
    found = []
    for name, p in subcommands():
        for a in p._actions:
            if not a.option_strings:
                continue
            numeric_default = isinstance(a.default, (int, float)) and not isinstance(a.default, bool)
            if isinstance(a.type, Number) or a.type in (int, float) or numeric_default:
                found.append((name, p, a))
    return found


OPTIONS = numeric_options()


def test_every_numeric_option_is_one_validated_number():
    wrong = [f"{n} {a.option_strings[0]}: type {a.type!r}" for n, _, a in OPTIONS if not isinstance(a.type, Number)]
    assert not wrong, wrong
    assert len(OPTIONS) >= 30   # run, bench, sweep, counters, compare, quadrants, gui: the walk found them


@pytest.mark.parametrize("cmd,opt", [(n, a.option_strings[0]) for n, _, a in OPTIONS])
def test_hostile_numbers(cmd, opt):
    p = dict(subcommands())[cmd]
    action = next(a for a in p._actions if opt in a.option_strings)
    rng = action.type.range
    for value in HOSTILE:
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                ns = PARSER.parse_args([cmd, *minimal_args(p), f"{opt}={value}"])
            except SystemExit as e:
                assert e.code == 2, (value, e.code)
                lines = err.getvalue().strip().splitlines()
                assert len(lines) == 1 and opt in lines[0] and "Traceback" not in lines[0], (value, lines)
                continue
        v = getattr(ns, action.dest)
        if v in action.type.words:
            continue
        assert isinstance(v, (int, float)) and math.isfinite(v) and rng.low <= v <= rng.high, (value, v)
        assert not (rng.whole and not isinstance(v, int)), (value, v)


def env_variables() -> set[str]:
    names = set()
    for f in PACKAGE.rglob("*.py"):
        names |= set(re.findall(r"\bQDEXPLORER_[A-Z0-9_]+\b", f.read_text(encoding="utf-8")))
    return names


def test_every_variable_is_known_and_numbers_are_read_by_the_one_rule():
    names = env_variables()
    assert names - set(numbers.ENV) - set(NOT_NUMBERS) == set(), "a new QDEXPLORER_* variable: list it"
    assert set(numbers.ENV) <= names
    pattern = re.compile(r"environ(?:\.get)?\s*[\[(]\s*[\"'](" + "|".join(numbers.ENV) + r")[\"']")
    raw = [f"{f.relative_to(PACKAGE)}: {m.group(1)}" for f in PACKAGE.rglob("*.py") if f.name != "numbers.py"
           for m in pattern.finditer(f.read_text(encoding="utf-8"))]
    assert not raw, f"read without numbers.env_number: {raw}"


@pytest.mark.parametrize("name", sorted(numbers.ENV))
def test_hostile_environment_numbers(name, monkeypatch):
    rng, default = numbers.ENV[name]
    monkeypatch.delenv(name, raising=False)
    assert numbers.env_number(name) == default
    for value in HOSTILE:
        monkeypatch.setenv(name, value)
        try:
            v = numbers.env_number(name)
        except numbers.NumberError as e:
            msg = str(e)
            assert name in msg and "\n" not in msg and len(msg) < 300, msg
            continue
        assert v == default if not value.strip() else (math.isfinite(v) and rng.low <= v <= rng.high), (value, v)


@pytest.mark.parametrize("name,value,cluster", [("QDEXPLORER_CONNECT_TIMEOUT", "nan", "ray://127.0.0.1:9"),
                                                ("QDEXPLORER_OBJECT_STORE_MB", "abc", "local")])
def test_a_bad_cluster_setting_is_named_before_anything_starts(name, value, cluster, tmp_path):
    pytest.importorskip("ray")
    from tests.cli.test_cli import cli
    p = cli("run", "--workload", "saxpy_1m", "--cluster", cluster, env={name: value, "QDEXPLORER_DATA_DIR": str(tmp_path)})
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1, p.stderr[-3000:]
    assert name in lines[0] and "token" not in lines[0], lines
