"""Reshaping layers: Flatten and Reshape (the batch axis is always kept).

Examples:
    >>> import eagerflow as ef
    >>> ef.layers.Flatten()(ef.ones([2, 3, 4])).shape
    (2, 12)
    >>> ef.layers.Reshape((4, 3))(ef.ones([2, 12])).shape
    (2, 4, 3)
"""

from __future__ import annotations

import math
from typing import Any

from eagerflow.core.tensor import Tensor
from eagerflow.layers.base import Layer
from eagerflow.layers.input_spec import InputSpec
from eagerflow.ops import array_ops


def check_data_format(data_format, layer: str) -> str:
    """Normalizes `data_format` (None means channels_last)."""
    data_format = "channels_last" if data_format is None else str(data_format).lower()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(
            f"The `data_format` argument of {layer} must be one of 'channels_first', "
            f"'channels_last'. Received: data_format={data_format!r}")
    return data_format


class Flatten(Layer):
    """Flattens each example to one axis: ``(batch, d1, d2, ...) -> (batch, d1*d2*...)``.

    Args:
        data_format: ``"channels_last"`` (default) or ``"channels_first"``; with the
            latter the channel axis is moved last before flattening, so a model ported
            from a channels-first layout orders features like Keras does.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Flatten()(ef.ones([5])).shape
        (5, 1)
    """

    def __init__(self, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = check_data_format(data_format, "Flatten")
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs: Any) -> Tensor:
        if self.data_format == "channels_first" and inputs.ndim > 2:
            inputs = array_ops.transpose(inputs, (0, *range(2, inputs.ndim), 1))
        return array_ops.reshape(inputs, (inputs.shape[0], math.prod(inputs.shape[1:])))

    def get_config(self) -> dict:
        config = super().get_config()
        config["data_format"] = self.data_format
        return config


class Reshape(Layer):
    """Reshapes each example to `target_shape` (one entry may be -1: inferred).

    Args:
        target_shape: the new shape of one example, without the batch axis.

    Raises:
        ValueError: for more than one -1, or sizes that do not match the input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Reshape((-1, 2))(ef.ones([3, 8])).shape
        (3, 4, 2)
    """

    def __init__(self, target_shape: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        target_shape = tuple(int(d) for d in target_shape)
        if sum(d == -1 for d in target_shape) > 1 or any(d < -1 or d == 0
                                                           for d in target_shape):
            raise ValueError(
                "`target_shape` of Reshape must contain positive sizes and at most one -1. "
                f"Received: target_shape={target_shape}")
        self.target_shape = target_shape

    def call(self, inputs: Any) -> Tensor:
        if None in inputs.shape[1:]:  # a trace with unknown per-example sizes
            if inputs.shape[0] is not None:
                return array_ops.reshape(inputs, (inputs.shape[0], *self.target_shape))
            raise ValueError(
                f"Layer '{self.name}' cannot reshape an input of shape {inputs.shape}: with "
                "both the batch size and the size of an example unknown, the target shape "
                f"{self.target_shape} is ambiguous. Give the input_signature fixed sizes "
                "after the batch axis.")
        size = math.prod(inputs.shape[1:])
        known = math.prod(d for d in self.target_shape if d != -1)
        if (-1 in self.target_shape and size % known) or (
                -1 not in self.target_shape and size != known):
            raise ValueError(
                f"Layer '{self.name}' cannot reshape an input of shape {inputs.shape} "
                f"({size} values per example) to target_shape {self.target_shape}.")
        target = tuple(self.target_shape)
        if inputs.shape[0] is None:
            # Traced with an unknown batch size: the batch becomes the one free dimension,
            # so a -1 in the target is resolved here from the known per-example size.
            target = tuple(size // known if d == -1 else d for d in target)
            return array_ops.reshape(inputs, (-1, *target))
        return array_ops.reshape(inputs, (inputs.shape[0], *target))

    def get_config(self) -> dict:
        config = super().get_config()
        config["target_shape"] = list(self.target_shape)
        return config


class RepeatVector(Layer):
    """Repeats a ``(batch, features)`` input `n` times: ``(batch, n, features)``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.RepeatVector(3)(ef.ones([2, 4])).shape
        (2, 3, 4)
    """

    def __init__(self, n: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"RepeatVector: `n` must be a positive int. Received: n={n!r}")
        self.n = n
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs: Any) -> Tensor:
        return array_ops.tile(array_ops.expand_dims(inputs, 1), [1, self.n, 1])

    def compute_output_shape(self, input_shape: Any) -> Any:
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "n": self.n}


class Permute(Layer):
    """Permutes the non-batch axes: ``dims`` is a permutation of ``1..rank-1``.

    Raises:
        ValueError: if `dims` is not a permutation of 1..len(dims).

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Permute((2, 1))(ef.ones([5, 3, 4])).shape
        (5, 4, 3)
    """

    def __init__(self, dims: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        dims = tuple(int(d) for d in dims)
        if sorted(dims) != list(range(1, len(dims) + 1)):
            raise ValueError(
                f"Permute: `dims` must be a permutation of the axes 1..{len(dims)} (the batch "
                f"axis 0 stays first). Received: dims={dims}")
        self.dims = dims
        self.input_spec = InputSpec(ndim=len(dims) + 1)

    def call(self, inputs: Any) -> Any:
        return array_ops.transpose(inputs, (0, *self.dims))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return (input_shape[0], *(input_shape[d] for d in self.dims))

    def get_config(self) -> dict:
        return {**super().get_config(), "dims": list(self.dims)}


class Identity(Layer):
    """Returns its input unchanged (a placeholder layer, as in Keras 3).

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Identity()(ef.constant([1.0]))
        ef.Tensor([1.], shape=(1,), dtype=float32)
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs: Any) -> Any:
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape
