"""im2col: a convolution's window matrix, and a bounded cache of it for the backward pass.

`columns` copies every window of the padded NHWC input into one matrix (one row per
output pixel), so a convolution is a single BLAS matmul. Building it is the largest
non-BLAS cost of a convolution (about 1 ms for a (64, 14, 14, 32) input with a 3x3
kernel: the matrix is 9x the input), and the filter gradient needs exactly the matrix the
forward pass built. So while a tape is recording, the forward pass `remember`s it and the
filter gradient `take`s it back instead of rebuilding it:

* entries are keyed by the input array's identity and the geometry, and hold only a weak
  reference to the input: an entry is dropped as soon as its input array is freed, so the
  cache never outlives the tape record (or user reference) keeping the input alive;
* the total size is capped (`CACHE_BYTES`); the least recently stored entries go first,
  and a miss simply rebuilds the matrix, so results never depend on the cache;
* tensors are immutable, so an input array seen again still holds the same values.

Example:
    >>> import numpy as np
    >>> from eagerflow.core.ops import im2col
    >>> x = np.arange(9.0).reshape(1, 3, 3, 1)
    >>> im2col.columns(x, (2, 2), (1, 1), (1, 1), ((0, 0), (0, 0)), (2, 2), 1)[0]
    array([0., 1., 3., 4.])
"""

from __future__ import annotations

import collections
import functools
import threading
import weakref

import numpy as np

from eagerflow.core.ops import scratch, windows

__all__ = ["CACHE_BYTES", "columns", "remember", "take"]

CACHE_BYTES = 64 << 20
_entries: collections.OrderedDict = collections.OrderedDict()  # id(x) -> (ref, key, cols)
_lock = threading.Lock()
_size = [0]


def columns(x, kernel, strides, dilations, pads, out_sizes, groups) -> np.ndarray:
    """The im2col matrix: ``(M, kh*kw*c)``, or ``(groups, M, kh*kw*c/groups)`` if grouped.

    For a single input channel the matrix is built transposed, ``(kh*kw, M)``, by one
    contiguous slice copy per kernel offset, and returned as its ``.T`` view: the window
    view's innermost run would be a single element there, which makes the one-shot
    reshape copy several times slower.

    Args:
        x: the NHWC input ndarray (unpadded).
        kernel, strides, dilations: per spatial dimension.
        pads: ``((top, bottom), (left, right))``.
        out_sizes: the output's spatial sizes.
        groups: the number of groups of a grouped convolution.

    Returns:
        The matrix, ``M = n * oh * ow`` rows in NHWC output order, columns ordered
        ``(kh, kw, c)`` like a flattened filter, on `scratch` memory.
    """
    n, c = x.shape[0], x.shape[3]
    xp = windows.pad(x, pads, allocate=scratch.empty)
    m = n * out_sizes[0] * out_sizes[1]
    if c == 1 and groups == 1:
        cols_t = scratch.empty((kernel[0], kernel[1], n) + tuple(out_sizes), x.dtype)
        for i in range(kernel[0]):
            for j in range(kernel[1]):
                cols_t[i, j] = xp[windows.offset_slices(i, j, strides, dilations,
                                                        out_sizes)][..., 0]
        cols = cols_t.reshape(kernel[0] * kernel[1], m).T
    else:
        view = windows.patches(xp, kernel, strides, dilations, out_sizes)
        if groups > 1:  # (groups, n, oh, ow, kh, kw, c / groups)
            view = view.reshape(view.shape[:5] + (groups, c // groups))
            view = view.transpose(5, 0, 1, 2, 3, 4, 6)
        cols = scratch.empty(view.shape, x.dtype)
        np.copyto(cols, view)
        cols = cols.reshape(m, -1) if groups == 1 else cols.reshape(groups, m, -1)
    return cols


def _forget(key_id, ref):
    with _lock:
        entry = _entries.get(key_id)
        if entry is not None and entry[0] is ref:
            del _entries[key_id]
            _size[0] -= entry[2].nbytes


def remember(x: np.ndarray, key: tuple, cols: np.ndarray) -> None:
    """Keeps `cols` (built from `x` with geometry `key`) for a later `take`."""
    if cols.nbytes > CACHE_BYTES:
        return
    ref = weakref.ref(x, functools.partial(_forget, id(x)))
    with _lock:
        old = _entries.pop(id(x), None)
        if old is not None:
            _size[0] -= old[2].nbytes
        _entries[id(x)] = (ref, key, cols)
        _size[0] += cols.nbytes
        while _size[0] > CACHE_BYTES:
            _, (_, _, evicted) = _entries.popitem(last=False)
            _size[0] -= evicted.nbytes


def take(x: np.ndarray, key: tuple):
    """The matrix `remember`ed for `x` and `key` (removing it), or None."""
    with _lock:
        entry = _entries.get(id(x))
        if entry is None or entry[0]() is not x or entry[1] != key:
            return None
        del _entries[id(x)]
        _size[0] -= entry[2].nbytes
        return entry[2]
