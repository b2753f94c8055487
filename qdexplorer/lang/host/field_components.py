"""Placing a vector/matrix field one component at a time: `x.get_scalar_field(i, j)`.

Quadrants stores each component as a field of its own, so a program may place them separately
(`bitpack.place(x.get_scalar_field(0, 0), x.get_scalar_field(0, 1))`, one bitpack per row). Here
a field keeps its components together as trailing axes, so it is allocated once every component
has been placed, in the first container, provided all the containers have one shape; otherwise the
next compile fails with Quadrants' "Members of the following field have different shapes"
(materialize.py).
"""
from __future__ import annotations

import numpy as np


class ComponentPlacement:
    """Mixin of `Field`: its components handed out for placement, and placed."""

    elem_shape: tuple = ()
    _component_places: dict | None = None  # component -> container, while placed component by component
    member_shapes: list | None = None  # component shapes that differ (placed component by component)

    def get_scalar_field(self, *index) -> "ScalarComponent":
        """`x.get_scalar_field(i, j)`: component (i, j) of a vector/matrix field, to place on its own."""
        if not self.elem_shape or len(index) != len(self.elem_shape) or \
                not all(0 <= int(k) < n for k, n in zip(index, self.elem_shape)):
            raise ValueError(f"get_scalar_field{tuple(index)}: this field holds {self.elem_shape or 'scalar'} "
                             f"elements")
        return ScalarComponent(self, tuple(int(k) for k in index))

    def _component_placed(self, index: tuple, container) -> None:
        """Component `index` is placed in `container`; the field itself is, once all its components are."""
        places = self._component_places = self._component_places or {}
        places[index] = container
        if len(places) < int(np.prod(self.elem_shape)):
            return
        shapes = [tuple(c.shape) for c in places.values()]
        if len(set(shapes)) == 1:  # all in containers of one shape: the field lives in the first one
            container.place(self)
        else:  # Quadrants' materialize refuses it at the next compile (materialize.py)
            self.member_shapes = [tuple(places[k].shape) for k in sorted(places)]


class ScalarComponent:
    """One component of a vector/matrix field (`x.get_scalar_field(i, j)`), for placing it."""

    def __init__(self, field, index: tuple):
        self.field, self.index = field, index
        self.quant, self.elem_shape = getattr(field, "quant", None), ()

    def place_in(self, container) -> None:
        """`container.place(x.get_scalar_field(i, j))`: record where this component is placed."""
        self.field._component_placed(self.index, container)

    @property
    def dtype(self):
        return self.field.dtype

    @property
    def shape(self):
        places = self.field._component_places or {}
        return tuple(places[self.index].shape) if self.index in places else self.field.shape
