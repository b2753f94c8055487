"""`qd.math`'s vector and matrix functions that are intrinsics: the frontend lowers them to
componentwise code (frontend/calls.py, frontend/vectors.py), and from Python they are their NumPy
equivalents, so host code can share them."""
from __future__ import annotations

import numpy as _np

from ..intrinsics import Intrinsic

dot = Intrinsic("dot", "vecmath", lambda a, b: _np.dot(a, b))
cross = Intrinsic("cross", "vecmath", lambda a, b: _np.cross(a, b))
normalize = Intrinsic("normalize", "vecmath", lambda a: _np.asarray(a) / _np.linalg.norm(a))
length = Intrinsic("length", "vecmath", lambda a: float(_np.linalg.norm(a)))
clamp = Intrinsic("clamp", "vecmath", lambda x, lo, hi: _np.clip(x, lo, hi))
mix = Intrinsic("mix", "vecmath", lambda x, y, a: x * (1 - a) + y * a)
transpose = Intrinsic("transpose", "vecmath", lambda m: _np.transpose(m))
determinant = Intrinsic("determinant", "vecmath", lambda m: float(_np.linalg.det(m)))
inverse = Intrinsic("inverse", "vecmath", lambda m: _np.linalg.inv(m))
