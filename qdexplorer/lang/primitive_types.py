"""Quadrants' `qd.types.primitive_types`: the dtypes and their sets (Python's own number types included,
as Quadrants' sets hold them)."""
from ..ir.dtypes import (f16, f32, f64, float16, float32, float64, i8, i16, i32, i64, int8, int16, int32, int64,  # noqa: F401
                         u1, u8, u16, u32, u64, uint8, uint16, uint32, uint64)

real_types = {f16, f32, f64, float}
real_type_ids = {id(t) for t in real_types}
integer_types = {i8, i16, i32, i64, u1, u8, u16, u32, u64, int, bool}
integer_type_ids = {id(t) for t in integer_types}
all_types = real_types | integer_types
type_ids = {id(t) for t in all_types}
