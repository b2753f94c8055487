"""`to_torch` / `from_torch` of fields and `qd.ndarray`s, as Quadrants has them.

PyTorch is optional: it is imported only when one of these is called, so the language (and the
app) runs where it is not installed. The data goes through the host copy (`to_numpy`), which on
CUDA brings a kernel's results home first; `copy=False` shares the host storage on the CPU
backend, where that storage is what kernels read and write.
"""
from __future__ import annotations

import numpy as np


def _torch():
    try:
        import torch
    except ImportError:
        raise ImportError("to_torch/from_torch need PyTorch: pip install torch") from None
    return torch


def to_torch(storage, device=None, keep_dims: bool = False, copy: bool = True):
    torch = _torch()
    if not copy:
        if device is not None and torch.device(device).type != "cpu":
            raise ValueError(f"to_torch(copy=False, device={device!r}) is incompatible with device transfer: "
                             f"the data is in host memory; use copy=True")
        return torch.from_numpy(storage.to_numpy(keep_dims=keep_dims, copy=False))
    t = torch.from_numpy(np.ascontiguousarray(storage.to_numpy(keep_dims=keep_dims)))
    return t if device is None else t.to(device)


def tensor_to_numpy(tensor) -> np.ndarray:
    """A NumPy copy of any tensor: detached from autograd and brought to the host."""
    if hasattr(tensor, "detach"):
        tensor = tensor.detach()
    if hasattr(tensor, "cpu"):
        tensor = tensor.cpu()
    return np.asarray(tensor.numpy() if hasattr(tensor, "numpy") else tensor)
