"""Embedding: turns integer ids into dense vectors, optionally masking id 0 (padding).

Examples:
    >>> import eagerflow as ef
    >>> layer = ef.layers.Embedding(10, 3, mask_zero=True)
    >>> ids = ef.constant([[4, 2, 0, 0]])
    >>> layer(ids).shape
    (1, 4, 3)
    >>> layer.compute_mask(ids)
    ef.Tensor([[ True  True False False]], shape=(1, 4), dtype=bool)
"""

from __future__ import annotations

from typing import Any

from eagerflow.core.tensor import Tensor
from eagerflow.layers import constraints, initializers, regularizers
from eagerflow.layers.base import Layer
from eagerflow.layers.core import positive_int
from eagerflow.ops import indexing
from eagerflow.ops import logic as logic_ops
from eagerflow.ops import math as math_ops


class Embedding(Layer):
    """Looks up a trainable vector for each integer id.

    With ``mask_zero=True``, id 0 is padding: the layer attaches a mask (True where the
    id is not 0) to its output, and recurrent layers downstream skip those steps.

    Args:
        input_dim: vocabulary size (ids are in ``[0, input_dim)``).
        output_dim: vector size.
        embeddings_initializer: initializer of the ``(input_dim, output_dim)`` table
            (default uniform on ``[-0.05, 0.05]``).
        embeddings_regularizer, embeddings_constraint: as for Dense.
        mask_zero: treat id 0 as padding.
        input_length: accepted for compatibility with older Keras; unused.

    Raises:
        ValueError: for non-positive sizes.
        InvalidArgumentError: when called with an id outside ``[0, input_dim)``.

    Examples:
        >>> import eagerflow as ef
        >>> table = ef.layers.Embedding(3, 2, embeddings_initializer="ones")
        >>> table(ef.constant([2]))
        ef.Tensor([[1. 1.]], shape=(1, 2), dtype=float32)
    """

    def __init__(self, input_dim: Any, output_dim: Any, embeddings_initializer: Any = "uniform",
                 embeddings_regularizer: Any = None, embeddings_constraint: Any = None,
                 mask_zero: bool = False, input_length: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.input_dim = positive_int(input_dim, "input_dim", "Embedding")
        self.output_dim = positive_int(output_dim, "output_dim", "Embedding")
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = bool(mask_zero)
        self.supports_masking = self.mask_zero
        self._autocast = False

    def build(self, input_shape: Any = None) -> None:
        self.embeddings = self.add_weight(
            "embeddings", (self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer, regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint)

    def call(self, inputs: Any) -> Tensor:
        if inputs.dtype.kind not in "iu":
            inputs = math_ops.cast(inputs, "int32")
        return indexing.gather(self.embeddings, inputs)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Tensor | None:
        if not self.mask_zero:
            return None
        return logic_ops.not_equal(inputs, 0)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            input_dim=self.input_dim, output_dim=self.output_dim,
            embeddings_initializer=initializers.serialize(self.embeddings_initializer),
            embeddings_regularizer=regularizers.serialize(self.embeddings_regularizer),
            embeddings_constraint=constraints.serialize(self.embeddings_constraint),
            mask_zero=self.mask_zero)
        return config
