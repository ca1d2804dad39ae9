"""Values that travel with tensors: masks (which time steps of a padded sequence are real).

`Embedding(mask_zero=True)` produces a boolean mask of shape ``(batch, time)`` next to its
output. Keras keeps such a mask on the tensor itself (``_keras_mask``); an eagerflow
Tensor has fixed slots, so the mask is kept in a `TensorTable`, keyed by the tensor's
identity, and dropped when the tensor is freed. ``tensor._keras_mask`` reads it, as in
Keras. The layer machinery (`eagerflow.layers.masking`) looks masks up and attaches them.
(`eagerflow.core.logits` keeps the logits of softmax and sigmoid outputs the same way.)

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.core import masks
    >>> x = ef.constant([[1.0, 0.0]])
    >>> masks.set_mask(x, ef.constant([[True, False]]))
    >>> x._keras_mask
    ef.Tensor([[ True False]], shape=(1, 2), dtype=bool)
"""

from __future__ import annotations

import functools
import weakref


class TensorTable(dict):
    """Values attached to tensors: ``id(tensor) -> (weak reference, value)``.

    The weak reference's callback removes the entry when the tensor dies, so ids are never
    confused after reuse. Works on the tracer's symbolic tensors as on eager ones. A dict,
    so an empty table is a cheap truth test.
    """

    def attach(self, tensor, value) -> None:
        """Attaches `value` to `tensor` (None removes it)."""
        key = id(tensor)
        if value is None:
            self.pop(key, None)
            return
        self[key] = (weakref.ref(tensor, functools.partial(self._forget, key)), value)

    def _forget(self, key: int, ref) -> None:
        entry = self.get(key)
        if entry is not None and entry[0] is ref:
            del self[key]

    def value(self, tensor):
        """The value attached to `tensor`, or None."""
        entry = self.get(id(tensor))
        if entry is None or entry[0]() is not tensor:
            return None
        return entry[1]


registry = TensorTable()


def set_mask(tensor, mask) -> None:
    """Attaches `mask` to `tensor` (None removes a mask)."""
    registry.attach(tensor, mask)


def get_mask(tensor):
    """The mask attached to `tensor`, or None."""
    return registry.value(tensor)
