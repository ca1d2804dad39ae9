"""Recycled memory for the large arrays of the convolution and pooling kernels.

Every fresh NumPy array above malloc's mmap threshold is new memory from the kernel, and
touching it costs a page fault per 4 KiB page (about 1.7 us each on this project's
machine: filling a fresh 3.2 MB array took 1.3 ms, a reused one 0.2 ms). A conv2d
forward+backward on a (64, 14, 14, 32) batch touches about 50 MB of such memory; with
all of it fresh it took 16.0 ms, with all of it reused 10.4 ms. (Since `memory.py` pins
glibc's mmap threshold at 32 MiB, malloc itself reuses heap pages for arrays below that;
the pool still serves larger arrays, and every array where malloc is left alone.)

`empty` hands out arrays on pooled buffers. A buffer is reused only when no array refers
to it any more: every NumPy view of a buffer (the op's output, a Tensor wrapping it, a
user's ``t.numpy()``) keeps a reference to it as its ``.base``, and CPython's reference
count says exactly when the last one is gone. So outputs can come from the pool too: the
memory of a tensor is recycled only after the tensor (and every view of it) died. At
most `CAP_BYTES` of buffers are pooled (least recently used free ones are dropped first
to make room); arrays under `MIN_BYTES` come from NumPy directly (malloc serves those
from its heap without fresh pages).

Examples:
    >>> import numpy as np
    >>> from eagerflow.ops.kernels import scratch
    >>> a = scratch.empty((1024, 1024), np.float32)
    >>> address = a.ctypes.data
    >>> b = scratch.empty((1024, 1024), np.float32)  # `a` is alive: other memory
    >>> b.ctypes.data == address
    False
    >>> del a
    >>> scratch.empty((512, 2048), np.float32).ctypes.data == address  # same byte size
    True
"""

from __future__ import annotations

import collections
import math
import sys
import threading

import numpy as np

CAP_BYTES = 256 << 20
MIN_BYTES = 256 << 10
# byte size -> buffers of that size, least recently handed out first
_pool: collections.OrderedDict = collections.OrderedDict()
_pooled = [0]
_lock = threading.Lock()
_FREE = 2  # refcount of an unused buffer: its pool list slot + getrefcount's argument


def empty(shape, dtype) -> np.ndarray:
    """An uninitialised array of `shape` and `dtype`, on recycled memory when possible.

    Args:
        shape: the array's shape.
        dtype: its dtype.

    Returns:
        A C-contiguous array whose ``.base`` is a pooled byte buffer (or a plain NumPy
        array below `MIN_BYTES`).
    """
    dtype = np.dtype(dtype)
    nbytes = (math.prod(shape) if isinstance(shape, tuple) else int(np.prod(shape))) \
        * dtype.itemsize
    if nbytes < MIN_BYTES:
        return np.empty(shape, dtype)
    with _lock:
        bucket = _pool.get(nbytes)
        if bucket is not None:
            for index in range(len(bucket)):
                if sys.getrefcount(bucket[index]) == _FREE:
                    buffer = bucket.pop(index)
                    bucket.append(buffer)  # most recently used last
                    _pool.move_to_end(nbytes)
                    # The view is made under the lock, so no other thread sees it free.
                    return buffer.view(dtype).reshape(shape)
        buffer = np.empty(nbytes, np.uint8)
        if _make_room(nbytes):
            _pool.setdefault(nbytes, []).append(buffer)
            _pool.move_to_end(nbytes)
            _pooled[0] += nbytes
        return buffer.view(dtype).reshape(shape)


def _make_room(nbytes: int) -> bool:
    """Drops unused buffers, least recently used sizes first, until `nbytes` fit."""
    if nbytes > CAP_BYTES:
        return False
    for size in list(_pool):
        if _pooled[0] + nbytes <= CAP_BYTES:
            break
        bucket = _pool[size]
        for index in range(len(bucket) - 1, -1, -1):
            if sys.getrefcount(bucket[index]) == _FREE:
                del bucket[index]
                _pooled[0] -= size
                if _pooled[0] + nbytes <= CAP_BYTES:
                    break
        if not bucket:
            del _pool[size]
    return _pooled[0] + nbytes <= CAP_BYTES
