"""`qd.tools`: Quadrants' file writers, vendored unchanged (PLY through NumPy, VTK through pyevtk)."""
from . import np2ply, vtk  # noqa: F401
from .np2ply import PLYWriter  # noqa: F401
from .vtk import write_vtk  # noqa: F401
from ..compat import surface as _compat

__getattr__ = _compat.module_getattr("qd.tools", __name__)
