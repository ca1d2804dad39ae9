"""Intermediate results a forward pass saves for its gradient, weakly keyed by an array.

Some gradients need a result the forward pass computed anyway: a convolution's filter
gradient needs the im2col matrix (rebuilding it costs ~1 ms for a (64, 14, 14, 32)
input), a max pool's gradient the position of each window's maximum. While a tape is
recording, the forward pass `remember`s such a result under the identity of one of its
arrays (the conv input, the pool output) and the gradient `take`s it back:

* an entry holds only a weak reference to its array and is dropped as soon as the array
  is freed, so saved results never outlive the tape record (or user reference) keeping
  the array alive;
* the total size is capped (`CAP_BYTES`); the oldest entries go first, and a miss makes
  the gradient recompute the result, so values never depend on the cache;
* tensors are immutable, so an array seen again still holds the same values; the key
  also carries the geometry, so a different use of the same array never matches.

Example:
    >>> import numpy as np
    >>> from eagerflow.core.ops import saved
    >>> x = np.ones(4)
    >>> saved.remember(x, ("double",), x * 2)
    >>> saved.take(x, ("double",))
    array([2., 2., 2., 2.])
    >>> print(saved.take(x, ("double",)))  # taken: gone
    None
"""

from __future__ import annotations

import collections
import functools
import threading
import weakref

import numpy as np

__all__ = ["CAP_BYTES", "remember", "take"]

CAP_BYTES = 64 << 20
_entries: collections.OrderedDict = collections.OrderedDict()  # (id, tag) -> (ref, key, value)
_lock = threading.Lock()
_size = [0]


def _forget(slot, ref):
    with _lock:
        entry = _entries.get(slot)
        if entry is not None and entry[0] is ref:
            del _entries[slot]
            _size[0] -= entry[2].nbytes


def remember(array: np.ndarray, key: tuple, value: np.ndarray) -> None:
    """Keeps `value`, computed from `array` with parameters `key`, for a later `take`.

    Args:
        array: the array whose identity (and lifetime) the entry follows.
        key: a hashable description of how `value` was computed; ``key[0]`` names the
            kind of result, so different kinds saved for one array do not collide.
        value: the result to keep.
    """
    if value.nbytes > CAP_BYTES:
        return
    slot = (id(array), key[0])
    ref = weakref.ref(array, functools.partial(_forget, slot))
    with _lock:
        old = _entries.pop(slot, None)
        if old is not None:
            _size[0] -= old[2].nbytes
        _entries[slot] = (ref, key, value)
        _size[0] += value.nbytes
        while _size[0] > CAP_BYTES:
            _, (_, _, evicted) = _entries.popitem(last=False)
            _size[0] -= evicted.nbytes


def take(array: np.ndarray, key: tuple):
    """The value `remember`ed for `array` and `key` (removing it), or None.

    Args:
        array: the array the value was saved under.
        key: the same key `remember` got.

    Returns:
        The saved value, or None when there is none (never saved, evicted, or taken).
    """
    slot = (id(array), key[0])
    with _lock:
        entry = _entries.get(slot)
        if entry is None or entry[0]() is not array or entry[1] != key:
            return None
        del _entries[slot]
        _size[0] -= entry[2].nbytes
        return entry[2]
