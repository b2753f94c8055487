"""`qd.FieldsBuilder()`: an SNode tree of its own, finalised into an `SNodeTree` (Quadrants' way to
allocate fields after others were used). Every tree here is dense storage hung from its own root,
so a builder's tree is an SNode root like `qd.root`; `destroy()` lets the storage go with the fields."""
from __future__ import annotations

import itertools

from ..snode import SNode

_ids = itertools.count(1)


class SNodeTree:
    def __init__(self, root: SNode):
        self.root, self.id = root, next(_ids)
        self.destroyed = False

    def destroy(self):
        """Mark the tree destroyed; its fields' storage is freed when nothing refers to them."""
        self.destroyed = True


class FieldsBuilder:
    """`fb = qd.FieldsBuilder(); fb.dense(qd.i, n).place(x); tree = fb.finalize()`."""

    def __init__(self):
        self.root = SNode(None, "root", {})
        self.finalized = False
        self.empty = True

    def _use(self):
        if self.finalized:
            raise RuntimeError("this FieldsBuilder is finalized; make a new one to add fields")
        self.empty = False
        return self.root

    def dense(self, indices, dimensions) -> SNode:
        return self._use().dense(indices, dimensions)

    def pointer(self, indices, dimensions) -> SNode:
        return self._use().pointer(indices, dimensions)

    def bitmasked(self, indices, dimensions) -> SNode:
        return self._use().bitmasked(indices, dimensions)

    def dynamic(self, index, dimension, chunk_size=None) -> SNode:
        return self._use().dynamic(index, dimension, chunk_size)

    def place(self, *args, offset=None):
        self._use().place(*args, offset=offset)
        return self

    def lazy_grad(self):
        self.root.lazy_grad()

    def deactivate_all(self):
        self.root.deactivate_all()

    def finalize(self, raise_warning: bool = True) -> SNodeTree:
        self.finalized = True
        return SNodeTree(self.root)
