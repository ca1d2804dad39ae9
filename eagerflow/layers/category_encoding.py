"""`CategoryEncoding`: integer category ids to one-hot, multi-hot or count vectors.

Examples:
    >>> import eagerflow as ef
    >>> ef.layers.CategoryEncoding(num_tokens=4, output_mode="count")([[0, 1, 1]]).numpy()
    array([[1., 2., 0., 0.]], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.core import errors
from eagerflow.layers.base import Layer
from eagerflow.layers.core import positive_int
from eagerflow.ops import array_ops
from eagerflow.ops import indexing as indexing_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import reduce as reduce_ops

_MODES = ("one_hot", "multi_hot", "count")


class CategoryEncoding(Layer):
    """Encodes integer ids in ``[0, num_tokens)`` as vectors of length `num_tokens`
    (Keras 3's layer).

    * ``"one_hot"``: each id becomes a row (an input of shape ``(batch,)`` or
      ``(batch, 1)`` gives ``(batch, num_tokens)``);
    * ``"multi_hot"`` (default): each sample (row of ids) becomes one row with 1 at every
      id it holds (a rank-1 input is one sample);
    * ``"count"``: like multi-hot, with how many times each id occurs (or the sum of
      `count_weights` passed to the call).

    Args:
        num_tokens: the number of categories.
        output_mode: ``"one_hot"``, ``"multi_hot"`` or ``"count"``.
        sparse: must be False (eagerflow has no sparse tensors).

    Call arguments:
        inputs: integer ids, rank 1 or 2.
        count_weights: with ``"count"``, a weight per id (same shape as the inputs).

    Raises:
        ValueError: for a bad `num_tokens`, `output_mode` or `sparse`, inputs of rank 3 or
            more, one-hot inputs of shape ``(batch, k > 1)``, or ids outside
            ``[0, num_tokens)`` (Keras does not check; a wrong id would silently drop).

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.CategoryEncoding(4, output_mode="one_hot")([0, 3]).numpy()
        array([[1., 0., 0., 0.],
               [0., 0., 0., 1.]], dtype=float32)
    """

    def __init__(self, num_tokens: Any = None, output_mode: str = "multi_hot",
                 sparse: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.num_tokens = positive_int(num_tokens, "num_tokens", "CategoryEncoding")
        if output_mode not in _MODES:
            raise ValueError(f"CategoryEncoding: output_mode must be one of {_MODES}. "
                             f"Received: output_mode={output_mode!r}")
        if sparse:
            raise ValueError("CategoryEncoding: sparse=True is not supported (eagerflow has "
                             "no sparse tensors); leave sparse=False for dense outputs.")
        self.output_mode = output_mode
        self.sparse = False

    def call(self, inputs: Any, count_weights: Any = None) -> Any:
        if inputs.dtype.kind not in "iu":
            if inputs.dtype.kind != "f":
                raise ValueError(f"CategoryEncoding expects integer ids. Received dtype "
                                 f"{inputs.dtype}")
            inputs = math_ops.cast(inputs, "int64")
        if inputs.ndim == 0 or inputs.ndim > 2:
            raise ValueError("CategoryEncoding expects inputs of rank 1 or 2. Received: "
                             f"inputs.shape={tuple(inputs.shape)}")
        self._check_range(inputs)
        if self.output_mode == "one_hot":
            if inputs.ndim == 2:
                if inputs.shape[-1] != 1:
                    raise ValueError(
                        "CategoryEncoding with output_mode='one_hot' expects one id per "
                        f"sample: shape (batch,) or (batch, 1). Received: {inputs.shape}; use "
                        "'multi_hot' or 'count' for several ids per sample.")
                inputs = array_ops.squeeze(inputs, axis=-1)
            return indexing_ops.one_hot(inputs, self.num_tokens, dtype=self.dtype)
        encoded = indexing_ops.one_hot(inputs, self.num_tokens, dtype=self.dtype)
        if self.output_mode == "count":
            if count_weights is not None:
                encoded = math_ops.multiply(
                    encoded, array_ops.expand_dims(math_ops.cast(count_weights, self.dtype), -1))
            return reduce_ops.reduce_sum(encoded, axis=-2)
        if count_weights is not None:
            raise ValueError("CategoryEncoding: count_weights is only for output_mode='count'")
        return reduce_ops.reduce_max(encoded, axis=-2)

    def _check_range(self, inputs):
        if getattr(inputs, "_symbolic", False):
            return  # the values are only known when the graph runs
        values = np.asarray(inputs)
        if values.size and (values.min() < 0 or values.max() >= self.num_tokens):
            raise errors.InvalidArgumentError(
                f"CategoryEncoding: ids must be in [0, num_tokens={self.num_tokens}); "
                f"received values from {values.min()} to {values.max()}", "CategoryEncoding")

    def compute_output_shape(self, input_shape: Any) -> Any:
        input_shape = tuple(input_shape)
        if self.output_mode == "one_hot" and (len(input_shape) == 1 or input_shape[-1] == 1):
            return (input_shape[0], self.num_tokens)
        if len(input_shape) == 1:
            return (self.num_tokens,)
        return (*input_shape[:-1], self.num_tokens)

    def get_config(self) -> dict:
        return {**super().get_config(), "num_tokens": self.num_tokens,
                "output_mode": self.output_mode, "sparse": self.sparse}


