"""The activity of sparse SNode containers, as Python reads and writes it (snode.py's module
docstring says what activity is): `SNode` takes these methods from `Activity`.

A pointer/bitmasked container records it in its mask (an i32 field, one cell per container cell),
a dynamic one in its list lengths (an i32 per cell of its parent). Writing an element from Python
activates its cells (`activate_host`); `x.fill` / `x.to_numpy` / `x.from_numpy` of a field under
such containers touch only what a struct-for visits (`active_cells`); `deactivate_all` empties them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .calls.caller import caller
from .field import Field
from .lazy_storage import is_lazy
from ..ir.errors import QdRuntimeError

SPARSE = ("pointer", "bitmasked")
ACTIVITY = SPARSE + ("dynamic",)  # containers whose cells can be inactive


class Activity:
    """Mixin of `SNode`: its activity state and what Python does with it. The node provides `kind`,
    `mask`, `length`, `chunk_size`, `shape`, `sparse_path()`, `subtree_sparse()`, `subtree_fields()`,
    `cell_map()` and `list_map()` (declared here for the type checker; nodes are `Any` here, as
    naming `SNode` would make the two modules import each other)."""

    kind: str
    mask: "Field | None"
    length: "Field | None"
    chunk_size: int
    _parent: Any
    _peak = 0  # the most cells (chunks) seen allocated at once, for _num_dynamically_allocated

    if TYPE_CHECKING:
        @property
        def shape(self) -> tuple: ...

        def sparse_path(self) -> list[Any]: ...

        def subtree_sparse(self) -> list[Any]: ...

        def subtree_fields(self) -> list[Field]: ...

        def cell_map(self, to: Any) -> list: ...

        def list_map(self) -> tuple[list, tuple]: ...

    def state_field(self) -> Field:
        """What records activity: the mask of a pointer/bitmasked container, the list lengths of a
        dynamic one."""
        f = self.length if self.kind == "dynamic" else self.mask
        assert f is not None, f"a {self.kind} SNode has no activity state"
        return f

    def state_owner(self) -> Any:
        """The container the state field has one cell per cell of (a dynamic node's parent)."""
        if self.kind == "dynamic":
            assert self._parent is not None
            return self._parent
        return self

    def _allocated_now(self) -> int:
        """Cells a pointer holds allocated now (its active cells), chunks a dynamic node holds (its
        lists' lengths over the chunk size); a bitmasked or dense container allocates nothing. Not
        counted (0) where the state is lazily reserved: reading it all would cost its capacity."""
        if self.kind in ("pointer", "dynamic") and is_lazy(self.state_field().storage):
            return 0
        if self.kind == "pointer":
            return int(np.count_nonzero(self.mask_field().to_numpy()))
        if self.kind == "dynamic":
            assert self.length is not None
            lengths = self.length.to_numpy()
            return int(np.sum(-(-lengths // max(1, self.chunk_size))))
        return 0

    @property
    def _num_dynamically_allocated(self) -> int:
        """Quadrants' count of the cells its allocator holds for this container. Memory is recycled
        there, so it is the peak of cells allocated at once; here the peak seen now and at each
        `deactivate_all()` (a deactivation inside a kernel is not observed)."""
        self._peak = max(self._peak, self._allocated_now())
        return self._peak

    def deactivate_all(self):
        """Every cell of every pointer/bitmasked container at or below this one inactive and every
        list empty; data under a pointer or a dynamic node zero-filled, as Quadrants'
        `snode.deactivate_all()`."""
        for s in self.subtree_sparse():
            s._peak = max(s._peak, s._allocated_now())
        for s in self.subtree_sparse():
            if s.kind in ("pointer", "dynamic"):  # every element, not only the active ones fill() sets
                for f in s.subtree_fields():
                    _zero(f)
                for t in s.subtree_sparse():
                    _zero(t.state_field())
            _zero(s.state_field())

    def mask_field(self) -> Field:
        """The activity mask of a pointer/bitmasked container."""
        assert self.mask is not None, f"a {self.kind} SNode has no activity mask"
        return self.mask

    def activate_host(self, cell: tuple):
        """From Python: this cell and its ancestors' cells active (an element below it was written);
        a dynamic list grows to hold it."""
        for s in self.sparse_path():
            at = tuple(int(cell[p]) // d for p, d in self.cell_map(s))
            if s.kind == "dynamic":
                up, k = s._list_host(at)
                assert s.length is not None
                key = up if up else None
                s.length[key] = max(int(s.length[key]), k + 1)
            else:
                s.mask_field()[at] = 1

    def active_here(self) -> np.ndarray:
        """A boolean array of this (sparse) container's shape: which of its own cells are active."""
        if self.kind != "dynamic":
            return self.mask_field().to_numpy() != 0
        assert self.length is not None
        grid = np.indices(self.shape)
        up, (p, m) = self.list_map()
        lengths = self.length.to_numpy().reshape(self.length.shape)
        k = grid[p] % m if m else grid[p]
        return k < lengths[tuple(grid[q] // d for q, d in up)]

    def active_cells(self) -> np.ndarray:
        """A boolean array of this container's shape: which cells a struct-for over it visits (for
        x.fill, x.to_numpy, x.from_numpy from Python). Refused where that takes 8 GiB or more (2^28
        cells of a 3-d container), which lazily reserved storage holds but a host copy could not."""
        cells = int(np.prod(self.shape, dtype=np.int64))
        if cells * (8 * len(self.shape) + 2) >= 2**33:  # np.indices and two masks: 8 GiB or more
            file, line = caller()
            raise QdRuntimeError(f"{file}:{line}: a field under {self} has {cells:,} cells: too many for "
                                 f"fill/to_numpy/from_numpy from Python (a host copy of every cell); read or "
                                 f"write its active cells in a kernel (for I in qd.grouped(x))")
        out = np.ones(self.shape, bool)
        grid = np.indices(self.shape) if self.shape else np.zeros((0,), int)
        for s in self.sparse_path():
            m = s.active_here()
            out &= m[tuple(grid[p] // d for p, d in self.cell_map(s))]
        return out

    def _list_host(self, idx: tuple) -> tuple[tuple, int]:
        up, (p, m) = self.list_map()
        return tuple(int(idx[q]) // d for q, d in up), int(idx[p]) % m if m else int(idx[p])


def _zero(f) -> None:
    """Every element of `f` 0 (Storage.zero_all: lazily reserved storage gives its pages back)."""
    f.zero_all()
