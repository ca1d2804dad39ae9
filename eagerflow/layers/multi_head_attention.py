"""`MultiHeadAttention`: scaled dot-product attention over several learned projections.

As Keras 3's layer, for sequences of shape ``(batch, steps, features)``:

1. project the query, key and value: ``(batch, steps, heads, key_dim)`` (``value_dim`` for
   the value) with kernels of shape ``(features, heads, dim)`` and biases ``(heads, dim)``;
2. scores ``(batch, heads, Tq, Tv) = query @ key^T / sqrt(key_dim)``;
3. a softmax over the value steps, with masked positions given a score of -1e9, then
   dropout (in training);
4. the weighted values, projected back by a kernel ``(heads, value_dim, output_dim)`` and a
   bias ``(output_dim,)``; ``output_dim`` is the query's feature size unless
   `output_shape` says otherwise.

The mask is the AND of the query/value/key masks the inputs carry (``Embedding(mask_zero=
True)``, ``Masking``) or that are passed (``query_mask=``, ...), the `attention_mask`
``(batch, Tq, Tv)``, and the causal mask when ``use_causal_mask=True``.

Examples:
    >>> import eagerflow as ef
    >>> mha = ef.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    >>> out, scores = mha(ef.ones([3, 5, 8]), ef.ones([3, 7, 6]),
    ...                   return_attention_scores=True)
    >>> out.shape, scores.shape
    ((3, 5, 8), (3, 2, 5, 7))
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from eagerflow.layers import core, einsum_dense, masking
from eagerflow.layers.attention import causal_mask, combine_masks, masked_softmax
from eagerflow.layers.base import Layer
from eagerflow.ops import array_ops, attention_ops
from eagerflow.ops import creation as creation_ops
from eagerflow.ops import einsum_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import nn_ops


def set_projection_options(layer, use_bias, kernel_initializer, bias_initializer,
                           kernel_regularizer, bias_regularizer, kernel_constraint,
                           bias_constraint) -> dict:
    """Sets the projection arguments shared by the attention layers on `layer` (Keras's
    attribute names) and returns them as the options of its `_Projection`s."""
    core.set_weight_options(layer, use_bias, kernel_initializer, bias_initializer,
                            kernel_regularizer, bias_regularizer, kernel_constraint,
                            bias_constraint)
    return {name: getattr(layer, name) for name in core.WEIGHT_OPTIONS}


def check_query_shape(query_shape: Any, owner: str) -> None:
    """Raises ValueError naming `owner` unless `query_shape` is (batch, steps, features)
    with a known feature size."""
    if len(query_shape) != 3 or query_shape[-1] is None:
        raise ValueError(
            f"{owner}: query must have rank 3 (batch, steps, features) with a known feature "
            f"size. Received: query.shape={tuple(query_shape)}")


def combined_mask(owner: str, query: Any, value: Any, key: Any, query_mask: Any,
                  value_mask: Any, key_mask: Any, attention_mask: Any,
                  use_causal_mask: bool, sliding_window: int | None = None) -> Any:
    """The (batch, Tq, Tv) mask of an attention call (None when nothing is masked):
    the Keras masks of the inputs, the causal mask, the sliding-window band (query step i
    sees value steps j with ``|i - j| < sliding_window``) and `attention_mask` combined; a
    ValueError naming `owner` for inputs not of rank 3 or a mask of the wrong shape."""
    for role, tensor in (("query", query), ("value", value), ("key", key)):
        if len(tensor.shape) != 3:
            raise ValueError(f"{owner}: {role} must have rank 3 (batch, steps, features). "
                             f"Received: {role}.shape={tuple(tensor.shape)}")
    query_mask = masking.get_mask(query) if query_mask is None else query_mask
    value_mask = masking.get_mask(value) if value_mask is None else value_mask
    key_mask = masking.get_mask(key) if key_mask is None else key_mask
    parts = []
    if query_mask is not None:
        parts.append(array_ops.expand_dims(query_mask, -1))      # (B, Tq, 1)
    if value_mask is not None:
        parts.append(array_ops.expand_dims(value_mask, -2))      # (B, 1, Tv)
    if key_mask is not None:
        parts.append(array_ops.expand_dims(key_mask, -2))
    if use_causal_mask:
        parts.append(causal_mask(query.shape[1], value.shape[1]))
    if sliding_window is not None:
        steps = np.abs(np.subtract.outer(np.arange(query.shape[1]), np.arange(value.shape[1])))
        parts.append(creation_ops.constant(steps < sliding_window))
    if attention_mask is not None:
        shape = tuple(attention_mask.shape)
        if len(shape) != 3 or (shape[1:] != (query.shape[1], value.shape[1])
                               and None not in query.shape[1:2] + value.shape[1:2]):
            raise ValueError(
                f"{owner}: attention_mask must have shape (batch, Tq, Tv) = "
                f"(batch, {query.shape[1]}, {value.shape[1]}). Received: "
                f"attention_mask.shape={shape}")
        parts.append(attention_mask)
    return combine_masks(*parts)


def projection_config(layer) -> dict:
    """The config entries of `set_projection_options`, the activity regularizer and seed."""
    return {**core.weight_options_config(layer), "seed": layer.seed}


class _Projection(Layer):
    """One of the four dense projections (a kernel and, with `use_bias`, a bias), named
    like Keras's (``query``, ``key``, ``value``, ``attention_output``). The kernel's shape
    is ``(input features, *trailing)``, or `kernel_shape` when it is set before building."""

    def __init__(self, equation, trailing, bias_shape, options, **kwargs):
        super().__init__(**kwargs)
        self.equation = equation
        self.trailing = tuple(trailing)
        self.bias_shape = tuple(bias_shape)
        self.options = dict(options)
        self.kernel_shape = None

    def build(self, input_shape):
        shape = self.kernel_shape or (input_shape[-1], *self.trailing)
        options = self.options
        self.kernel = self.add_weight("kernel", shape,
                                      initializer=options["kernel_initializer"],
                                      regularizer=options["kernel_regularizer"],
                                      constraint=options["kernel_constraint"])
        self.bias = None
        if options["use_bias"]:
            self.bias = self.add_weight("bias", self.bias_shape,
                                        initializer=options["bias_initializer"],
                                        regularizer=options["bias_regularizer"],
                                        constraint=options["bias_constraint"])

    def call(self, inputs):
        # one matrix product (`einsum_dense.dense_einsum`): the head axes fold into views
        outputs = einsum_dense.dense_einsum(self.equation, inputs, self.kernel)
        if self.bias is not None:
            outputs = math_ops.add(outputs, self.bias)
        return outputs


class MultiHeadAttention(Layer):
    """Multi-head attention (Vaswani et al.), with Keras 3's arguments and weights.

    Args:
        num_heads: the number of attention heads.
        key_dim: the size of each head for the query and key.
        value_dim: the size of each head for the value (default `key_dim`).
        dropout: drop rate of the attention weights in training.
        use_bias: whether the four projections have biases.
        output_shape: the output's feature size (an int or a one-element tuple; default
            the query's).
        attention_axes: None (the default): attention over the sequence axis. Other axes
            are not supported (inputs must be rank 3).
        kernel_initializer, bias_initializer: initializers of the projections.
        kernel_regularizer, bias_regularizer: regularizers of the projections.
        activity_regularizer: regularizer on the output.
        kernel_constraint, bias_constraint: constraints of the projections.
        seed: seed of the dropout.
        sliding_window: None (full attention) or a positive int: each query step attends
            only to key steps within ``sliding_window - 1`` of it (a symmetric band; with
            `use_causal_mask`, the causal sliding window of Mistral and Llama 3).

    Call arguments:
        query: ``(batch, Tq, features)``.
        value: ``(batch, Tv, features_v)``.
        key: ``(batch, Tv, features_k)``; default `value`.
        query_mask, value_mask, key_mask: boolean ``(batch, T)`` masks; default the masks
            the inputs carry.
        attention_mask: boolean ``(batch, Tq, Tv)``: which value steps each query step may
            attend to.
        return_attention_scores: also return the ``(batch, heads, Tq, Tv)`` weights.
        training: apply dropout.
        use_causal_mask: query step i attends to value steps j <= i only.

    Raises:
        ValueError: for non-positive sizes, a bad dropout rate, other `attention_axes`,
            inputs that are not rank 3, or masks of the wrong shape.

    Examples:
        >>> import eagerflow as ef
        >>> mha = ef.layers.MultiHeadAttention(num_heads=2, key_dim=3, name="mha")
        >>> _ = mha(ef.ones([1, 4, 6]), ef.ones([1, 4, 6]))
        >>> [(w.name, w.shape) for w in mha.weights][:2]
        [('query/kernel', (6, 2, 3)), ('query/bias', (2, 3))]
    """

    def __init__(self, num_heads: Any, key_dim: Any, value_dim: Any = None, dropout: float = 0.0,
                 use_bias: bool = True, output_shape: Any = None, attention_axes: Any = None,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, seed: int | None = None,
                 sliding_window: int | None = None, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.num_heads = core.positive_int(num_heads, "num_heads", "MultiHeadAttention")
        if sliding_window is not None and (isinstance(sliding_window, bool) or not isinstance(
                sliding_window, int) or sliding_window <= 0):
            raise ValueError("MultiHeadAttention: `sliding_window` must be None or a positive "
                             f"integer. Received: sliding_window={sliding_window!r}")
        self.sliding_window = sliding_window
        self.key_dim = core.positive_int(key_dim, "key_dim", "MultiHeadAttention")
        self.value_dim = (self.key_dim if value_dim is None
                          else core.positive_int(value_dim, "value_dim", "MultiHeadAttention"))
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) \
                or not 0 <= dropout < 1:
            raise ValueError("MultiHeadAttention: dropout must be a float in [0, 1). "
                             f"Received: dropout={dropout!r}")
        self.dropout = float(dropout)
        if output_shape is not None:
            sizes = (output_shape,) if isinstance(output_shape, int) else tuple(output_shape)
            if len(sizes) != 1:
                raise ValueError("MultiHeadAttention: output_shape must be an int or a "
                                 "one-element tuple (the output's feature size). Received: "
                                 f"output_shape={output_shape!r}")
            output_shape = core.positive_int(sizes[0], "output_shape", "MultiHeadAttention")
        self._output_size = output_shape
        if attention_axes not in (None, 1, (1,), [1], -2, (-2,), [-2]):
            raise ValueError(
                "MultiHeadAttention: only attention over the sequence axis of rank-3 inputs "
                "is supported (attention_axes=None). Received: "
                f"attention_axes={attention_axes!r}")
        self.attention_axes = attention_axes
        options = set_projection_options(self, use_bias, kernel_initializer, bias_initializer,
                                         kernel_regularizer, bias_regularizer,
                                         kernel_constraint, bias_constraint)
        self.seed = seed
        self.supports_masking = True
        heads = self.num_heads
        # Each projection learns its input size on its first call (the query's size is
        # known in `build`, the value's and key's in `call`), in Keras's weight order.
        dtype = self.dtype
        self.query_dense = _Projection("abc,cde->abde", (heads, self.key_dim),
                                       (heads, self.key_dim), options, name="query",
                                       dtype=dtype)
        self.key_dense = _Projection("abc,cde->abde", (heads, self.key_dim),
                                     (heads, self.key_dim), options, name="key", dtype=dtype)
        self.value_dense = _Projection("abc,cde->abde", (heads, self.value_dim),
                                       (heads, self.value_dim), options, name="value",
                                       dtype=dtype)
        self.output_dense = _Projection("abcd,cde->abe", (), (), options,
                                        name="attention_output", dtype=dtype)

    def build(self, query_shape: Any) -> None:
        check_query_shape(query_shape, "MultiHeadAttention")
        out_dim = self._output_size or query_shape[-1]
        self.output_dense.kernel_shape = (self.num_heads, self.value_dim, out_dim)
        self.output_dense.bias_shape = (out_dim,)

    def call(self, query: Any, value: Any, key: Any = None, query_mask: Any = None,
             value_mask: Any = None, key_mask: Any = None, attention_mask: Any = None,
             return_attention_scores: bool = False, training: bool | None = None,
             use_causal_mask: bool = False) -> Any:
        key = value if key is None else key
        mask = combined_mask(type(self).__name__, query, value, key, query_mask, value_mask,
                             key_mask, attention_mask, use_causal_mask, self.sliding_window)
        projected_query = math_ops.multiply(self.query_dense(query),
                                            1.0 / math.sqrt(float(self.key_dim)))
        projected_key = self.key_dense(key)
        projected_value = self.value_dense(value)
        heads_mask = None if mask is None else array_ops.expand_dims(mask, -3)  # all heads
        if training and self.dropout > 0:
            scores = einsum_ops.einsum("aecd,abcd->acbe", projected_key, projected_query)
            weights = masked_softmax(scores, heads_mask)
            dropped = nn_ops.dropout(weights, self.dropout, seed=self.seed)
            attended = einsum_ops.einsum("acbe,aecd->abcd", dropped, projected_value)
        else:  # one op forward, one backward (ops/attention_ops.py): the same values
            attended, weights = attention_ops.fused_attention(
                projected_query, projected_key, projected_value, heads_mask)
        output = self.output_dense(attended)
        if return_attention_scores:
            return output, weights
        return output

    def compute_output_shape(self, query_shape: Any, value_shape: Any = None,
                             key_shape: Any = None) -> Any:
        return (*tuple(query_shape)[:-1], self._output_size or tuple(query_shape)[-1])

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "num_heads": self.num_heads, "key_dim": self.key_dim,
            "value_dim": self.value_dim, "dropout": self.dropout,
            "output_shape": self._output_size, "attention_axes": self.attention_axes,
            "sliding_window": self.sliding_window, **projection_config(self),
        }
