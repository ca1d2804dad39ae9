"""`GroupQueryAttention`: attention whose key and value projections have fewer heads than
the query's, each shared by a group of query heads (Ainslie et al., 2023), as Keras 3.

With ``num_query_heads = g * num_key_value_heads``, key and value head ``k`` serve query
heads ``g k`` to ``g k + g - 1``; ``num_key_value_heads = num_query_heads`` is ordinary
multi-head attention and ``1`` is multi-query attention. Masks, the causal mask and
dropout behave as in `MultiHeadAttention`; `sliding_window` further limits each query
step to the value steps less than `sliding_window` away, and `use_gate` multiplies the
attended values by a sigmoid gate projected from the query.

Examples:
    >>> import eagerflow as ef
    >>> gqa = ef.layers.GroupQueryAttention(head_dim=4, num_query_heads=4,
    ...                                     num_key_value_heads=2)
    >>> out, scores = gqa(ef.ones([2, 5, 8]), ef.ones([2, 7, 6]),
    ...                   return_attention_scores=True)
    >>> out.shape, scores.shape, gqa.key_dense.kernel.shape
    ((2, 5, 8), (2, 4, 5, 7), (6, 2, 4))
"""

from __future__ import annotations

import math
from typing import Any

from eagerflow.layers.attention import combine_masks, masked_softmax
from eagerflow.layers.base import Layer
from eagerflow.layers.core import positive_int
from eagerflow.layers.multi_head_attention import (
    _Projection,
    check_query_shape,
    combined_mask,
    projection_config,
    set_projection_options,
)
from eagerflow.ops import array_ops
from eagerflow.ops import creation as creation_ops
from eagerflow.ops import einsum_ops
from eagerflow.ops import indexing as indexing_ops
from eagerflow.ops import logic as logic_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import nn_ops
from eagerflow.ops import unary as unary_ops


class GroupQueryAttention(Layer):
    """Grouped-query attention with Keras 3's arguments and weights (``query``, ``key``,
    ``gate``, ``value``, ``attention_output``).

    Args:
        head_dim: the size of every head.
        num_query_heads: the number of query heads.
        num_key_value_heads: the number of key and value heads; must divide
            `num_query_heads`.
        dropout: drop rate of the attention weights in training.
        use_bias: whether the projections have biases.
        sliding_window: None, or a positive int: query step i attends to value steps j with
            ``|i - j| < sliding_window`` only.
        flash_attention: None or False (eagerflow has no fused attention kernel; True is
            refused rather than silently computed another way).
        kernel_initializer, bias_initializer: initializers of the projections.
        kernel_regularizer, bias_regularizer: regularizers of the projections.
        activity_regularizer: regularizer on the output.
        kernel_constraint, bias_constraint: constraints of the projections.
        use_gate: multiply the attended values by ``sigmoid(query projection)``.
        seed: seed of the dropout.

    Call arguments:
        query, value, key, query_mask, value_mask, key_mask, attention_mask,
        return_attention_scores, training, use_causal_mask: as `MultiHeadAttention`
        (scores have `num_query_heads` heads).

    Raises:
        ValueError: for non-positive sizes, heads that do not divide, a bad dropout rate or
            window, ``flash_attention=True``, or inputs that are not rank 3.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.GroupQueryAttention(8, 4, 1).get_config()["num_key_value_heads"]
        1
    """

    def __init__(self, head_dim: Any, num_query_heads: Any, num_key_value_heads: Any,
                 dropout: float = 0.0, use_bias: bool = True, sliding_window: Any = None,
                 flash_attention: Any = None, kernel_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 use_gate: bool = False, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        name = "GroupQueryAttention"
        self.head_dim = positive_int(head_dim, "head_dim", name)
        self.num_query_heads = positive_int(num_query_heads, "num_query_heads", name)
        self.num_key_value_heads = positive_int(num_key_value_heads, "num_key_value_heads",
                                                name)
        if self.num_query_heads % self.num_key_value_heads:
            raise ValueError(
                f"{name}: num_query_heads must be a multiple of num_key_value_heads. Received: "
                f"num_query_heads={num_query_heads}, num_key_value_heads={num_key_value_heads}")
        self.num_repeats = self.num_query_heads // self.num_key_value_heads
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) \
                or not 0 <= dropout < 1:
            raise ValueError(f"{name}: dropout must be a float in [0, 1). Received: "
                             f"dropout={dropout!r}")
        self.dropout = float(dropout)
        if sliding_window is not None and (isinstance(sliding_window, bool) or not isinstance(
                sliding_window, int) or sliding_window <= 0):
            raise ValueError(f"{name}: sliding_window must be None or a positive int. "
                             f"Received: sliding_window={sliding_window!r}")
        self.sliding_window = sliding_window
        if flash_attention:
            raise ValueError(
                f"{name}: flash_attention=True is not available (eagerflow has no fused "
                "attention kernel); leave it None or False for the standard computation.")
        self.use_gate = bool(use_gate)
        options = set_projection_options(self, use_bias, kernel_initializer, bias_initializer,
                                         kernel_regularizer, bias_regularizer,
                                         kernel_constraint, bias_constraint)
        self.seed = seed
        self.supports_masking = True
        dtype, d = self.dtype, self.head_dim
        query_heads, kv_heads = self.num_query_heads, self.num_key_value_heads
        self.query_dense = _Projection("abc,cde->abde", (query_heads, d), (query_heads, d),
                                       options, name="query", dtype=dtype)
        self.key_dense = _Projection("abc,cde->abde", (kv_heads, d), (kv_heads, d), options,
                                     name="key", dtype=dtype)
        self.gate_dense = _Projection("abc,cde->abde", (query_heads, d), (query_heads, d),
                                      options, name="gate", dtype=dtype) if use_gate else None
        self.value_dense = _Projection("abc,cde->abde", (kv_heads, d), (kv_heads, d),
                                       options, name="value", dtype=dtype)
        self.output_dense = _Projection("abcd,cde->abe", (), (), options,
                                        name="attention_output", dtype=dtype)

    def build(self, query_shape: Any) -> None:
        check_query_shape(query_shape, "GroupQueryAttention")
        self.output_dense.kernel_shape = (self.num_query_heads, self.head_dim, query_shape[-1])
        self.output_dense.bias_shape = (query_shape[-1],)

    def _window(self, query_steps, value_steps):
        rows = array_ops.reshape(creation_ops.range(query_steps), (query_steps, 1))
        columns = array_ops.reshape(creation_ops.range(value_steps), (1, value_steps))
        # (`call` asks for the window only when `sliding_window` is set)
        band = logic_ops.less(unary_ops.abs(rows - columns),
                              self.sliding_window)  # type: ignore[arg-type]
        return array_ops.expand_dims(band, 0)

    def call(self, query: Any, value: Any, key: Any = None, query_mask: Any = None,
             value_mask: Any = None, key_mask: Any = None, attention_mask: Any = None,
             return_attention_scores: bool = False, training: bool | None = None,
             use_causal_mask: bool = False) -> Any:
        key = value if key is None else key
        mask = combined_mask("GroupQueryAttention", query, value, key, query_mask, value_mask,
                             key_mask, attention_mask, use_causal_mask)
        if self.sliding_window is not None:
            mask = combine_masks(mask, self._window(query.shape[1], value.shape[1]))
        scaled_query = math_ops.multiply(self.query_dense(query),
                                         1.0 / math.sqrt(float(self.head_dim)))
        # Each key/value head serves `num_repeats` consecutive query heads.
        heads = [h // self.num_repeats for h in range(self.num_query_heads)]
        projected_key = indexing_ops.gather(self.key_dense(key), heads, axis=2)
        projected_value = indexing_ops.gather(self.value_dense(value), heads, axis=2)
        scores = einsum_ops.einsum("aecd,abcd->acbe", projected_key, scaled_query)
        weights = masked_softmax(scores, None if mask is None
                                 else array_ops.expand_dims(mask, -3))
        dropped = weights
        if training and self.dropout > 0:
            dropped = nn_ops.dropout(weights, self.dropout, seed=self.seed)
        attended = einsum_ops.einsum("acbe,aecd->abcd", dropped, projected_value)
        if self.gate_dense is not None:
            attended = math_ops.multiply(attended, unary_ops.sigmoid(self.gate_dense(query)))
        output = self.output_dense(attended)
        if return_attention_scores:
            return output, weights
        return output

    def compute_output_shape(self, query_shape: Any, value_shape: Any = None,
                             key_shape: Any = None) -> Any:
        return tuple(query_shape)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "head_dim": self.head_dim, "num_query_heads": self.num_query_heads,
            "num_key_value_heads": self.num_key_value_heads, "use_gate": self.use_gate,
            "sliding_window": self.sliding_window, "dropout": self.dropout,
            **projection_config(self),
        }
