"""Masks that travel with tensors: which time steps of a padded sequence are real.

`Embedding(mask_zero=True)` produces a boolean mask of shape ``(batch, time)`` next to its
output. Keras keeps such a mask on the tensor itself (``_keras_mask``); an eagerflow
Tensor has fixed slots, so the mask is kept here, keyed by the tensor's identity, and
dropped when the tensor is freed. Every layer call looks up the mask of its inputs (only
when some mask exists at all: an empty registry costs one truth test) and hands it to
`call(..., mask=...)`; layers that support masking attach a mask to their outputs.

Example:
    >>> import eagerflow as ef
    >>> from eagerflow.layers import masking
    >>> x = ef.constant([[1.0, 0.0]])
    >>> masking.set_mask(x, ef.constant([[True, False]]))
    >>> masking.get_mask(x)
    ef.Tensor([[ True False]], shape=(1, 2), dtype=bool)
"""

from __future__ import annotations

import weakref

from eagerflow.core import nest

# id(tensor) -> (weak reference to the tensor, mask). The weak reference's callback
# removes the entry when the tensor dies, so ids are never confused after reuse.
_masks: dict[int, tuple] = {}


def _forget(key: int, ref) -> None:
    entry = _masks.get(key)
    if entry is not None and entry[0] is ref:
        del _masks[key]


def set_mask(tensor, mask) -> None:
    """Attaches `mask` to `tensor` (None removes a mask)."""
    key = id(tensor)
    if mask is None:
        _masks.pop(key, None)
        return
    ref = weakref.ref(tensor, lambda r, k=key: _forget(k, r))
    _masks[key] = (ref, mask)


def get_mask(tensor):
    """The mask attached to `tensor`, or None."""
    entry = _masks.get(id(tensor))
    if entry is None or entry[0]() is not tensor:
        return None
    return entry[1]


def get_masks(structure):
    """Masks of a tensor or structure of tensors: None, one mask, or a list of them."""
    if not _masks:
        return None
    if not nest.is_nested(structure):
        return get_mask(structure)
    masks = [get_mask(t) for t in nest.flatten(structure)]
    return None if all(m is None for m in masks) else masks


def set_masks(outputs, masks) -> None:
    """Attaches `masks` (one mask, or a structure matching `outputs`) to `outputs`."""
    if masks is None:
        return
    if not nest.is_nested(outputs):
        set_mask(outputs, masks)
        return
    flat_outputs = nest.flatten(outputs)
    flat_masks = nest.flatten(masks) if nest.is_nested(masks) else [masks] * len(flat_outputs)
    for tensor, mask in zip(flat_outputs, flat_masks, strict=False):
        if tensor is not None and hasattr(tensor, "__weakref__"):
            set_mask(tensor, mask)
