"""Reusable memory for the large temporaries of the convolution kernels.

Every fresh NumPy array above malloc's mmap threshold is new memory from the kernel, and
touching it costs a page fault per 4 KiB page. A conv2d forward+backward on a
(64, 14, 14, 32) batch creates about 40 MB of temporaries (padded input, im2col matrix,
per-offset column gradients, padded input gradient): with fresh memory it took 16.0 ms,
with the same memory reused 10.4 ms (measured on this project's 2-core machine; PyTorch's
caching allocator does the same job for it).

`empty` hands out arrays backed by recycled buffers of the exact same size when one is
free; `release` gives an array's buffer back once its owner is done with it. Only true
temporaries that never leave the kernel are released, so a recycled buffer is never
visible to anyone else. At most `CAP_BYTES` of free buffers are kept; arrays under
`MIN_BYTES` come from NumPy directly (malloc recycles those well already).

Example:
    >>> import numpy as np
    >>> from eagerflow.core.ops import scratch
    >>> a = scratch.empty((1024, 1024), np.float32)
    >>> scratch.release(a)
    >>> b = scratch.empty((512, 2048), np.float32)  # same byte size: the same memory
    >>> bool(np.shares_memory(a, b))
    True
"""

from __future__ import annotations

import threading

import numpy as np

__all__ = ["CAP_BYTES", "MIN_BYTES", "empty", "release"]

CAP_BYTES = 256 << 20
MIN_BYTES = 1 << 20
_PER_SIZE = 4  # buffers kept per byte size (forward and backward of a few layers)
_free: dict[int, list] = {}
_kept = [0]
_lock = threading.Lock()


def empty(shape, dtype) -> np.ndarray:
    """An uninitialised array of `shape` and `dtype`, on recycled memory when possible."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if nbytes < MIN_BYTES:
        return np.empty(shape, dtype)
    buffer = None
    with _lock:
        spare = _free.get(nbytes)
        if spare:
            buffer = spare.pop()
            _kept[0] -= nbytes
    if buffer is None:
        buffer = np.empty(nbytes, np.uint8)
    return buffer.view(dtype).reshape(shape)


def release(*arrays) -> None:
    """Returns the buffers of arrays from `empty` for reuse; the arrays must not be used
    afterwards. Other arrays (and None) are ignored."""
    for array in arrays:
        buffer = getattr(array, "base", None)
        if (buffer is None or buffer.dtype != np.uint8 or buffer.ndim != 1
                or buffer.nbytes != array.nbytes or buffer.nbytes < MIN_BYTES):
            continue
        with _lock:
            spare = _free.setdefault(buffer.nbytes, [])
            if (len(spare) < _PER_SIZE and _kept[0] + buffer.nbytes <= CAP_BYTES
                    and not any(b is buffer for b in spare)):
                spare.append(buffer)
                _kept[0] += buffer.nbytes
