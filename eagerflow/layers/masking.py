"""Mask propagation through layer calls (the masks themselves live in `core.masks`).

Every layer call looks up the mask of its inputs (only when some mask exists at all: an
empty registry costs one truth test) and hands it to `call(..., mask=...)`; layers that
support masking attach a mask to their outputs.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.layers import masking
    >>> x = ef.constant([[1.0, 0.0]])
    >>> masking.set_mask(x, ef.constant([[True, False]]))
    >>> masking.get_mask(x)
    ef.Tensor([[ True False]], shape=(1, 2), dtype=bool)
"""

from __future__ import annotations

from eagerflow.core import masks, nest

# The registry itself (one dict, never rebound), for the layer call's hot-path truth test.
_masks = masks.registry
set_mask = masks.set_mask
get_mask = masks.get_mask


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
