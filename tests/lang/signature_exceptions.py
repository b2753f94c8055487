"""The differences of signature from Quadrants 1.3.3 that remain, each with its reason (read by
tests/lang/test_signature_parity.py and by benchmarks/api_surface.py for docs/compatibility.md).

A key is a callable as benchmarks/signature_parity.py names it (`surface.name`); the test fails
on a difference not listed here and on a listed one that is gone (so the table stays true)."""

_INTERNAL_CLASS = ("a class of Quadrants' implementation, built from its C++ handles; programs get its instances "
                   "from qd.field / qd.ndarray / qd.root and use the class for isinstance(), which holds here")
_FORWARDS = ("Quadrants' is ({dtype}, *args, **kwargs) and passes them on to {to}; ours spells out those "
             "parameters in the same order, so every call that works there binds the same way here")
_TYPE_NDARRAY = ("Quadrants' is (**kwargs) passed on to Matrix.ndarray(n, m, dtype=..., **kwargs), which requires "
                 "shape: ours names shape (and needs_grad); a call Quadrants accepts binds the same way")

EXCEPTIONS: dict[str, str] = {
    "qd.Field": _INTERNAL_CLASS,
    "qd.ScalarField": _INTERNAL_CLASS,
    "qd.MatrixField": _INTERNAL_CLASS,
    "qd.StructField": _INTERNAL_CLASS,
    "qd.Ndarray": _INTERNAL_CLASS,
    "qd.ScalarNdarray": _INTERNAL_CLASS,
    "qd.VectorNdarray": _INTERNAL_CLASS,
    "qd.MatrixNdarray": _INTERNAL_CLASS,
    "qd.SNode": _INTERNAL_CLASS,
    "qd.field": _FORWARDS.format(dtype="dtype, shape=None", to="_field(dtype, shape, order, name, offset, "
                                                                  "needs_grad, needs_dual) or Matrix.field"),
    "qd.linalg.field": "the same function as qd.field (see there)",
    "qd.Vector.field": _FORWARDS.format(dtype="n, dtype", to="Matrix.field(n, 1, dtype, shape, order, name, ...)"),
    "vector.field": "the same function as qd.Vector.field (see there)",
    "vector_type.ndarray": _TYPE_NDARRAY,
    "matrix_type.ndarray": _TYPE_NDARRAY,
    "kernel.grad": ("Quadrants' adjoint kernel is (*py_args, **kwargs) and checks them against the kernel's "
                    "parameters when called; ours has the kernel's own parameters (a call that works there works "
                    "here, and inspect shows the names)"),
    "qd.extension": ("an Enum class in Quadrants (its signature is Enum's functional API, which programs do not "
                     "call); ours is a namespace of the same member names for qd.is_extension_supported"),
}

# callables of Quadrants' that do not resolve on ours at all (not in api_surface's walk, which lists names)
MISSING: dict[str, str] = {
    "ndarray_type.check_matched": "a hook Quadrants' launcher calls on an annotation to check an argument; ours "
                                  "checks arguments in its own binder (lang/calls/arg_check.py); programs do not call it",
    "ndarray_type.to_dlpack": "an attribute Quadrants' NdarrayType inherits by accident of its class layout; "
                              "an annotation holds no data to export",
}
