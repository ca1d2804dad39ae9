"""What the packages above `layers/` may ask a layer: the declared interface of a layer's
bookkeeping for `models/` (functional graphs, `Sequential`, `summary`, traced steps) and
`utils/` (`plot_model`).

A layer keeps this state under private names so that user subclasses, which own the
public attribute namespace, cannot collide with it; these functions are the one way
other packages read it.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.layers import layer_info
    >>> dense = ef.layers.Dense(2, input_shape=(3,))
    >>> layer_info.batch_input_shape(dense), layer_info.build_input_shape(dense)
    ((None, 3), (None, 3))
    >>> y = dense(ef.layers.Input((3,)))
    >>> len(layer_info.inbound_nodes(dense)), layer_info.accepts_mask(dense)
    (1, False)
"""

from __future__ import annotations

from typing import Any

from eagerflow.layers import base


def inbound_nodes(layer: Any) -> list:
    """The `Node` of each call of `layer` on symbolic tensors, in call order (a
    `SymbolicTensor`'s ``origin.node_index`` indexes this list). The list itself: callers
    must not change it."""
    return layer._inbound_nodes


def batch_input_shape(layer: Any) -> tuple | None:
    """The input shape, batch axis included, given to the constructor (``input_shape=``,
    ``batch_input_shape=``, ``input_dim=``), or None."""
    return layer._batch_input_shape


def build_input_shape(layer: Any) -> Any:
    """The input shape `layer` was built for (what `get_build_config` saves), or None."""
    return layer._build_input_shape


def accepts_mask(layer: Any) -> bool:
    """Whether the layer's `call` declares a ``mask`` parameter (then `__call__` passes
    the mask of its inputs)."""
    return type(layer)._call_accepts_mask


def call_shapes(layer: Any) -> list | None:
    """The shapes logged during the first call of `layer` (or its `build(shape)` dry run):
    ``(layer called, input shapes, output shapes)`` for every layer call inside it, in
    call order, or None when no layer was called inside. `summary` shows them."""
    return layer._call_shapes


def trainable_generation() -> int:
    """A count bumped by every assignment to any layer's `trainable`: a traced training
    step whose graph depends on those flags looks at them again when it changed."""
    return base.trainable_generation
