"""Logits that travel with probabilities: the input of the softmax or sigmoid that made them.

Keras computes a cross-entropy of a softmax or sigmoid output from the logits that made it
(``output._keras_logits`` on TensorFlow), not from the clipped probabilities; see
`eagerflow.losses.crossentropy` for which losses use which logits. The logits are kept in
a `masks.TensorTable` keyed by the output, with who made it: the ops (`SOFTMAX`,
`SIGMOID`: ``ef.nn.softmax``, ``ef.sigmoid``) or an activation function (`ACTIVATION`:
``ef.activations.softmax``/``sigmoid``, so a layer's ``activation=``). Symbolic tensors are
keys too, so a loss traced by ``ef.function`` (``fit``'s step) reads the logits node of
the graph. A new tensor made from the output (slice, reshape, cast) has no logits.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.core import logits
    >>> x = ef.constant([[30.0, -30.0]])
    >>> logits.logits_of(ef.activations.softmax(x), logits.SIGMOID) is x
    True
    >>> logits.logits_of(ef.nn.softmax(x), logits.SIGMOID) is None
    True
"""

from __future__ import annotations

from eagerflow.core import masks

SOFTMAX = "Softmax"  # made by the softmax op: categorical cross-entropies may use the logits
SIGMOID = "Sigmoid"  # made by the sigmoid op: binary cross-entropies may use them
ACTIVATION = "activation"  # made by an activation function: every cross-entropy may
registry = masks.TensorTable()  # output -> (logits, kind)


def remember(output, logits, kind: str) -> None:
    """Records that `output` was made from `logits` by `kind` (`SOFTMAX`, `SIGMOID` or
    `ACTIVATION`)."""
    registry.attach(output, (logits, kind))


def logits_of(tensor, kind: str):
    """The logits that made `tensor` if a cross-entropy of `kind` (`SOFTMAX` for the
    categorical ones, `SIGMOID` for the binary ones) may use them, else None."""
    entry = registry.value(tensor)
    return None if entry is None or entry[1] not in (kind, ACTIVATION) else entry[0]


def activation_logits(tensor):
    """The logits an activation function made `tensor` from (Keras's ``_keras_logits``)."""
    entry = registry.value(tensor)
    return None if entry is None or entry[1] != ACTIVATION else entry[0]
