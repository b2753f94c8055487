"""Quadrants' logging levels (`qd.DEBUG` ... `qd.CRITICAL`) and `qd.set_logging_level`.

qdexplorer.lang writes no log of its own at run time, so the level is only kept (and checked), for
programs that set it.
"""
TRACE, DEBUG, INFO, WARN, ERROR, CRITICAL = "trace", "debug", "info", "warn", "error", "critical"
LEVELS = (TRACE, DEBUG, INFO, WARN, ERROR, CRITICAL)
_level = {"now": INFO}


def set_logging_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"qd.set_logging_level({level!r}): expected one of {', '.join(LEVELS)}")
    _level["now"] = level


def get_logging_level() -> str:
    return _level["now"]
