"""Debug mode (`--debug`, `debug = true`, `qd.init(debug=True)`): every ndarray access is checked.

Each access site gets a number; before the access, every index is compared (unsigned, so a
negative index fails too) with its axis' extent. The first failing access of a launch wins an
atomic compare-and-swap on the debug record (4 x i64: site + 1, index, extent, axis) passed as
the entry's last argument, and its thread returns without touching memory. The host reads the
record after the launch and reports kernel, task, file:line, index and shape (runtime/debug.py).
Release builds emit none of this: the checks cost a compare and a branch per axis.
"""
from __future__ import annotations


from .abi import I32, I64
from .emitter_base import EmitterBase


class DebugChecks(EmitterBase):
    """Mixin of the task emitter; `self.debug_sites` lists (file:line, array) per check site."""

    def check_bounds(self, arr, idx, shape, where: str):
        b = self.b
        site = len(self.debug_sites)
        self.debug_sites.append((where, arr.name))
        for axis, (i, n) in enumerate(zip(idx, shape)):
            i32 = b.trunc(i, I32) if i.type != I32 else i
            with b.if_then(b.icmp_unsigned(">=", i32, n), likely=False):
                rec = self.sig.debug_ptr
                slot = lambda k: b.gep(rec, [I64(k)], inbounds=True, source_etype=I64)  # noqa: E731
                won = b.extract_value(b.cmpxchg(slot(0), I64(0), I64(site + 1), "monotonic", "monotonic"), 1)
                with b.if_then(won):
                    b.store(b.sext(i32, I64), slot(1))
                    b.store(b.zext(n, I64), slot(2))
                    b.store(I64(axis), slot(3))
                b.ret_void()
