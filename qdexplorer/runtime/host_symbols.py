"""The external symbols a host object file needs, read from its ELF symbol table.

MCJIT does not refuse an object whose code calls a function the process lacks (a compiler-rt
helper such as `__truncdfhf2` that LLVM's code generator emits for an operation the CPU cannot do
in hardware): the call jumps to address 0 and the kernel segfaults at launch. Reading the table
first turns that into an error naming the symbol."""
from __future__ import annotations

import struct

_SHT_SYMTAB = 2


def undefined_symbols(code: bytes) -> list[str]:
    """Names the object file uses but does not define (ELF64 little-endian; other formats: [])."""
    if len(code) < 64 or code[:4] != b"\x7fELF" or code[4] != 2 or code[5] != 1:
        return []
    shoff, = struct.unpack_from("<Q", code, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", code, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", code, shoff + k * shentsize) for k in range(shnum)]
    out = []
    for sh in sections:
        if sh[1] != _SHT_SYMTAB:
            continue
        strtab = sections[sh[6]]
        str_off = strtab[4]
        off, size, entsize = sh[4], sh[5], sh[9] or 24
        for pos in range(off + entsize, off + size, entsize):  # entry 0 is the null symbol
            name_off, _info, _other, shndx = struct.unpack_from("<IBBH", code, pos)
            if shndx == 0 and name_off:
                end = code.index(b"\0", str_off + name_off)
                out.append(code[str_off + name_off:end].decode())
    return out


def unresolved(code: bytes, llvm) -> list[str]:
    """The undefined symbols of `code` that this process cannot provide."""
    return [s for s in undefined_symbols(code) if not llvm.address_of_symbol(s)]
