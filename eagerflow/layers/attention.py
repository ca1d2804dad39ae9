"""Dot-product (Luong) and additive (Bahdanau) attention: `Attention`, `AdditiveAttention`.

Both take ``[query, value]`` or ``[query, value, key]`` (the key defaults to the value),
of shapes ``(batch, Tq, dim)`` and ``(batch, Tv, dim)``, and return ``(batch, Tq, dim)``:
each query step's softmax-weighted mean of the value steps. Scores are, as in Keras 3:

* `Attention`, ``score_mode="dot"``: ``query @ key^T`` (times a learned scalar `scale`
  with ``use_scale=True``); ``"concat"``: ``concat_score_weight * sum(tanh(scale *
  (query_i + key_j)))`` over the features;
* `AdditiveAttention`: ``sum(scale * tanh(query_i + key_j))`` with a learned
  per-feature `scale` (``use_scale=True``) or without it.

A value mask (from ``mask=[query_mask, value_mask]`` or carried by the inputs, e.g. from
``Embedding(mask_zero=True)``) removes the masked value steps (a score minus 1e9);
``use_causal_mask=True`` lets query step i see value steps j <= i only; a query mask zeroes
the output at the masked query steps. Dropout applies to the attention weights in training.

Examples:
    >>> import eagerflow as ef
    >>> query, value = ef.ones([2, 3, 4]), ef.ones([2, 5, 4])
    >>> ef.layers.Attention()([query, value]).shape
    (2, 3, 4)
    >>> out, scores = ef.layers.AdditiveAttention()([query, value],
    ...                                             return_attention_scores=True)
    >>> scores.shape
    (2, 3, 5)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from eagerflow.layers import masking
from eagerflow.layers.base import Layer
from eagerflow.ops import array_ops
from eagerflow.ops import creation as creation_ops
from eagerflow.ops import linalg_ops
from eagerflow.ops import logic as logic_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import nn_ops
from eagerflow.ops import reduce as reduce_ops
from eagerflow.ops import unary as unary_ops


def large_negative(dtype) -> float:
    """The number added to masked scores before a softmax (Keras's: -1e9, -3e4 in float16)."""
    return -3e4 if np.dtype(dtype) == np.float16 else -1e9


def causal_mask(query_steps: int, value_steps: int):
    """``(Tq, Tv)`` booleans: query step i sees value steps j <= i (Keras's lower triangle,
    anchored at the top left)."""
    return creation_ops.constant(np.tri(query_steps, value_steps, dtype=bool))


def masked_softmax(scores, mask):
    """Softmax over the last axis, with positions where `mask` is False (broadcast) given
    the large negative score; `mask` may be None."""
    if mask is not None:
        adder = math_ops.multiply(
            math_ops.subtract(1.0, math_ops.cast(mask, scores.dtype)),
            large_negative(scores.dtype))
        scores = math_ops.add(scores, adder)
    return nn_ops.softmax(scores, axis=-1)


def combine_masks(*masks):
    """The logical AND of the masks that are not None (None if all are)."""
    result = None
    for mask in masks:
        if mask is None:
            continue
        mask = math_ops.cast(mask, "bool")
        result = mask if result is None else logic_ops.logical_and(result, mask)
    return result


class _BaseDenseAttention(Layer):

    _scores: Callable[[Any, Any], Any]  # each subclass's score function
    def __init__(self, dropout: float = 0.0, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) \
                or not 0 <= dropout < 1:
            raise ValueError(f"{type(self).__name__}: dropout must be a float in [0, 1). "
                             f"Received: dropout={dropout!r}")
        self.dropout = float(dropout)
        self.seed = seed
        self.supports_masking = True

    def _unpack(self, inputs):
        name = type(self).__name__
        if not isinstance(inputs, (list, tuple)) or len(inputs) not in (2, 3):
            raise ValueError(
                f"{name} layer must be called on a list of inputs, namely [query, value] or "
                f"[query, value, key]. Received: {type(inputs).__name__}"
                + (f" of length {len(inputs)}" if isinstance(inputs, (list, tuple)) else ""))
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) == 3 else value
        for role, tensor in (("query", query), ("value", value), ("key", key)):
            if len(tensor.shape) != 3:
                raise ValueError(f"{name}: {role} must have rank 3 (batch, steps, dim). "
                                 f"Received: {role}.shape={tuple(tensor.shape)}")
        if tuple(key.shape[:2]) != tuple(value.shape[:2]) and None not in key.shape[:2]:
            raise ValueError(f"{name}: key and value must have the same batch and number of "
                             f"steps. Received: key.shape={tuple(key.shape)}, "
                             f"value.shape={tuple(value.shape)}")
        return query, value, key

    def _masks(self, inputs, mask):
        if mask is None:
            mask = [masking.get_mask(t) for t in inputs[:2]]
        if not isinstance(mask, (list, tuple)) or len(mask) not in (1, 2, 3):
            raise ValueError(f"{type(self).__name__}: mask must be a list [query_mask, "
                             f"value_mask] (entries may be None). Received: {mask!r}")
        query_mask = mask[0]
        value_mask = mask[1] if len(mask) > 1 else None
        return query_mask, value_mask

    def call(self, inputs: Any, mask: Any = None, training: bool | None = False,
             return_attention_scores: bool = False, use_causal_mask: bool = False) -> Any:
        query, value, key = self._unpack(inputs)
        query_mask, value_mask = self._masks(inputs, mask)
        scores = self._scores(query, key)
        score_mask = None if value_mask is None else array_ops.expand_dims(value_mask, -2)
        if use_causal_mask:
            causal = causal_mask(scores.shape[-2], scores.shape[-1])
            score_mask = combine_masks(score_mask, causal)
        weights = masked_softmax(scores, score_mask)
        if training and self.dropout > 0:
            weights = nn_ops.dropout(weights, self.dropout, seed=self.seed)
        result = linalg_ops.matmul(weights, value)
        if query_mask is not None:
            result = math_ops.multiply(
                result, array_ops.expand_dims(math_ops.cast(query_mask, result.dtype), -1))
        if return_attention_scores:
            return result, weights
        return result

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        query_mask = self._masks(inputs, mask)[0] if isinstance(inputs, (list, tuple)) else None
        return None if query_mask is None else math_ops.cast(query_mask, "bool")

    def compute_output_shape(self, input_shape: Any) -> Any:
        query_shape, value_shape = input_shape[0], input_shape[1]
        return (*tuple(query_shape)[:-1], tuple(value_shape)[-1])

    def get_config(self) -> dict:
        return {**super().get_config(), "dropout": self.dropout, "seed": self.seed}


class Attention(_BaseDenseAttention):
    """Dot-product attention (Luong), as Keras 3's ``layers.Attention``.

    Args:
        use_scale: learn a scalar `scale` (initialised to 1) multiplying the scores.
        score_mode: ``"dot"`` (``query @ key^T``) or ``"concat"`` (``sum(tanh(query_i +
            key_j))``, times a learned `concat_score_weight`).
        dropout: drop rate of the attention weights in training.
        seed: seed of the dropout.

    Call arguments:
        inputs: ``[query, value]`` or ``[query, value, key]``.
        mask: ``[query_mask, value_mask]`` (booleans of shape ``(batch, Tq)`` and
            ``(batch, Tv)``), or None to use the masks the inputs carry.
        training: apply dropout.
        return_attention_scores: also return the ``(batch, Tq, Tv)`` attention weights.
        use_causal_mask: query step i attends to value steps j <= i only.

    Raises:
        ValueError: for a bad `score_mode` or `dropout`, inputs that are not a list of two
            or three rank-3 tensors, or keys and values of different lengths.

    Examples:
        >>> import eagerflow as ef, numpy as np
        >>> query = ef.constant([[[1.0, 0.0]]])
        >>> value = ef.constant([[[1.0, 0.0], [0.0, 1.0]]])
        >>> out, weights = ef.layers.Attention()([query, value], return_attention_scores=True)
        >>> np.round(weights.numpy(), 4)
        array([[[0.7311, 0.2689]]], dtype=float32)
    """

    def __init__(self, use_scale: bool = False, score_mode: str = "dot", dropout: float = 0.0,
                 seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(dropout=dropout, seed=seed, **kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError("Attention: score_mode must be 'dot' or 'concat'. Received: "
                             f"score_mode={score_mode!r}")
        self.use_scale = bool(use_scale)
        self.score_mode = score_mode

    def build(self, input_shape: Any) -> None:
        self.scale = None
        self.concat_score_weight: Any = None
        if self.use_scale:
            self.scale = self.add_weight("scale", (), initializer="ones")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight("concat_score_weight", (),
                                                       initializer="ones")

    def _scores(self, query, key):
        if self.score_mode == "dot":
            scores = linalg_ops.matmul(query, key, transpose_b=True)
            if self.scale is not None:
                scores = math_ops.multiply(scores, self.scale)
            return scores
        pairs = math_ops.add(array_ops.expand_dims(query, -2), array_ops.expand_dims(key, -3))
        if self.scale is not None:
            pairs = math_ops.multiply(pairs, self.scale)
        return math_ops.multiply(self.concat_score_weight,
                                 reduce_ops.reduce_sum(unary_ops.tanh(pairs), axis=-1))

    def get_config(self) -> dict:
        return {**super().get_config(), "use_scale": self.use_scale,
                "score_mode": self.score_mode}


class AdditiveAttention(_BaseDenseAttention):
    """Additive attention (Bahdanau), as Keras 3's ``layers.AdditiveAttention``:
    ``scores[i, j] = sum(scale * tanh(query_i + key_j))``.

    Args:
        use_scale: learn the per-feature `scale` (shape ``(dim,)``, Glorot-uniform
            initialised); without it the sum is unweighted.
        dropout: drop rate of the attention weights in training.
        seed: seed of the dropout.

    Call arguments: as `Attention`'s. Query and key must have the same last dimension.

    Raises:
        ValueError: for bad inputs (see `Attention`) or query and key of different depths.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.AdditiveAttention()
        >>> layer([ef.ones([1, 2, 3]), ef.ones([1, 4, 3])]).shape, layer.scale.shape
        ((1, 2, 3), (3,))
    """

    def __init__(self, use_scale: bool = True, dropout: float = 0.0, seed: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(dropout=dropout, seed=seed, **kwargs)
        self.use_scale = bool(use_scale)

    def build(self, input_shape: Any) -> None:
        query_shape = input_shape[0]
        key_shape = input_shape[2] if len(input_shape) == 3 else input_shape[1]
        if query_shape[-1] != key_shape[-1]:
            raise ValueError(
                "AdditiveAttention: query and key must have the same last dimension. "
                f"Received: query.shape={tuple(query_shape)}, key.shape={tuple(key_shape)}")
        self.scale = None
        if self.use_scale:
            self.scale = self.add_weight("scale", (query_shape[-1],),
                                         initializer="glorot_uniform")

    def _scores(self, query, key):
        pairs = unary_ops.tanh(math_ops.add(array_ops.expand_dims(query, -2),
                                            array_ops.expand_dims(key, -3)))
        if self.scale is not None:
            pairs = math_ops.multiply(pairs, self.scale)
        return reduce_ops.reduce_sum(pairs, axis=-1)

    def get_config(self) -> dict:
        return {**super().get_config(), "use_scale": self.use_scale}
