"""Binding a call's arguments to a kernel's or func's parameters, with Quadrants' messages.

Quadrants words these errors its own way ("Missing argument 'b'.", "Too many arguments. ...") and
programs match on them, so Python's binding (`inspect.Signature.bind`) is used for the semantics
and its TypeError is reworded here. Every problem found is named, the first as the primary one.
"""
from __future__ import annotations

import inspect

from ...ir.errors import QuadrantsArgumentError

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def bind_arguments(sig: inspect.Signature, name: str, args: tuple, kwargs: dict,
                   file: str = "<unknown>", line: int = 0, col: int = 0) -> inspect.BoundArguments:
    """`sig.bind(*args, **kwargs)` with defaults applied; a QuadrantsArgumentError (a
    QuadrantsSyntaxError and a TypeError) in Quadrants' words when the call does not fit."""
    try:
        ba = sig.bind(*args, **kwargs)
    except TypeError:
        problems = _problems(sig, args, kwargs)
        takes = ", ".join(sig.parameters)
        text = problems[0] if len(problems) == 1 else (
            f"Primary exception: {problems[0]}\n\nAdditional diagnostic/dev info:\n" + "\n".join(problems[1:]))
        raise QuadrantsArgumentError(f"{name}(): {text} ('{name}' takes {takes or 'no arguments'})",
                                     file, line, col) from None
    ba.apply_defaults()
    return ba


def _problems(sig: inspect.Signature, args: tuple, kwargs: dict) -> list[str]:
    params = list(sig.parameters.values())
    star = any(p.kind is p.VAR_POSITIONAL for p in params)
    starstar = any(p.kind is p.VAR_KEYWORD for p in params)
    positional = [p for p in params if p.kind in _POSITIONAL]
    out = []
    if len(args) > len(positional) and not star:
        out.append(f"Too many arguments. Expected ({', '.join(p.name for p in positional)}), "
                   f"got {len(args)} positional argument(s).")
    given_positionally = {p.name for p in positional[:len(args)]}
    for k in kwargs:
        if k in given_positionally:
            out.append(f"Multiple values for argument '{k}'.")
        elif k not in sig.parameters and not starstar:
            out.append(f"Unexpected argument '{k}'.")
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is not p.empty:
            continue
        if p.name not in given_positionally and p.name not in kwargs:
            out.append(f"Missing argument '{p.name}'.")
    return out or ["the arguments do not fit the parameters"]
