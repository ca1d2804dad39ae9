"""Masks that travel with tensors: which time steps of a padded sequence are real.

`Embedding(mask_zero=True)` produces a boolean mask of shape ``(batch, time)`` next to its
output. Keras keeps such a mask on the tensor itself (``_keras_mask``); an eagerflow
Tensor has fixed slots, so the mask is kept here, keyed by the tensor's identity, and
dropped when the tensor is freed. ``tensor._keras_mask`` reads it, as in Keras. The layer
machinery (`eagerflow.layers.masking`) looks masks up and attaches them.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.core import masks
    >>> x = ef.constant([[1.0, 0.0]])
    >>> masks.set_mask(x, ef.constant([[True, False]]))
    >>> x._keras_mask
    ef.Tensor([[ True False]], shape=(1, 2), dtype=bool)
"""

from __future__ import annotations

import weakref

# id(tensor) -> (weak reference to the tensor, mask). The weak reference's callback
# removes the entry when the tensor dies, so ids are never confused after reuse.
registry: dict[int, tuple] = {}


def _forget(key: int, ref) -> None:
    entry = registry.get(key)
    if entry is not None and entry[0] is ref:
        del registry[key]


def set_mask(tensor, mask) -> None:
    """Attaches `mask` to `tensor` (None removes a mask)."""
    key = id(tensor)
    if mask is None:
        registry.pop(key, None)
        return
    ref = weakref.ref(tensor, lambda r, k=key: _forget(k, r))  # type: ignore[misc]  # (a default arg)
    registry[key] = (ref, mask)


def get_mask(tensor):
    """The mask attached to `tensor`, or None."""
    entry = registry.get(id(tensor))
    if entry is None or entry[0]() is not tensor:
        return None
    return entry[1]
