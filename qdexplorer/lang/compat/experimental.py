"""`qd.experimental`: Quadrants' old home of `real_func`, kept with its deprecation warning."""
from ..func import experimental_real_func as real_func

__all__ = ["real_func"]
