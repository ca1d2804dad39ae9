"""Regularization layers: Dropout and its spatial, Gaussian and alpha forms (random, in
training only), and ActivityRegularization.

Examples:
    >>> import eagerflow as ef
    >>> layer = ef.layers.Dropout(0.5, seed=0)
    >>> layer(ef.ones([4])).numpy()
    array([1., 1., 1., 1.], dtype=float32)
    >>> sorted(set(layer(ef.ones([100]), training=True).numpy().tolist()))
    [0.0, 2.0]
"""

from __future__ import annotations

from typing import Any

from eagerflow.layers import regularizers
from eagerflow.layers.base import Layer
from eagerflow.ops import array_ops
from eagerflow.ops import logic as logic_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import nn_ops
from eagerflow.ops import random as random_ops


class Dropout(Layer):
    """Zeroes each input with probability `rate` in training, scaling the rest by
    ``1 / (1 - rate)``; the identity at inference.

    `training` comes from the call (``model(x, training=True)`` reaches every nested
    Dropout), so a Python ``if training:`` in user code is never needed.

    Args:
        rate: drop probability in ``[0, 1)``.
        noise_shape: shape of the keep/drop mask, broadcast to the input (e.g.
            ``(batch, 1, features)`` drops the same features at every time step); None
            entries take the input's size.
        seed: optional seed of the mask stream.

    Raises:
        ValueError: for a rate outside ``[0, 1)``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Dropout(0.2).rate
        0.2
    """

    def __init__(self, rate: Any, noise_shape: Any = None,
                 seed: int | random_ops.Generator | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
            raise ValueError(
                "Invalid value received for argument `rate` of Dropout. Expected a float "
                f"value in [0, 1). Received: rate={rate!r}")
        self.rate = float(rate)
        self.noise_shape = None if noise_shape is None else tuple(noise_shape)
        self.seed = seed
        self.supports_masking = True

    def call(self, inputs: Any, training: bool | None = False) -> Any:
        if training and self.rate > 0:
            return nn_ops.dropout(inputs, self.rate, noise_shape=self.noise_shape,
                                  seed=self.seed)
        return inputs

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(rate=self.rate, seed=self.seed,
                      noise_shape=None if self.noise_shape is None else list(self.noise_shape))
        return config


def _rate(value, what: str, layer: str, upper=None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or (
            upper is not None and value >= upper):
        bound = f"[0, {upper})" if upper is not None else ">= 0"
        raise ValueError(f"Invalid value received for argument `{what}` of {layer}. Expected "
                         f"a float {bound}. Received: {what}={value!r}")
    return float(value)


class GaussianNoise(Layer):
    """Adds zero-mean Gaussian noise of standard deviation `stddev` in training (the
    identity at inference), as Keras 3.

    Args:
        stddev: the noise's standard deviation (>= 0).
        seed: optional seed of the noise stream.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.GaussianNoise(0.1, seed=1)
        >>> layer(ef.ones([2]), training=False)
        ef.Tensor([1. 1.], shape=(2,), dtype=float32)
    """

    def __init__(self, stddev: Any, seed: int | random_ops.Generator | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.stddev = _rate(stddev, "stddev", "GaussianNoise")
        self.seed = seed
        self.supports_masking = True

    def call(self, inputs: Any, training: bool | None = False) -> Any:
        if not training or self.stddev == 0:
            return inputs
        noise = random_ops.normal(array_ops.shape(inputs), stddev=self.stddev,
                                  dtype=inputs.dtype, seed=self.seed)
        return math_ops.add(inputs, noise)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "stddev": self.stddev, "seed": self.seed}


class GaussianDropout(Layer):
    """Multiplies by Gaussian noise of mean 1 and standard deviation
    ``sqrt(rate / (1 - rate))`` in training (the identity at inference), as Keras 3.

    Args:
        rate: the equivalent drop probability, in ``[0, 1)``.
        seed: optional seed of the noise stream.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.GaussianDropout(0.2)(ef.ones([2]))
        ef.Tensor([1. 1.], shape=(2,), dtype=float32)
    """

    def __init__(self, rate: Any, seed: int | random_ops.Generator | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rate = _rate(rate, "rate", "GaussianDropout", upper=1.0)
        self.seed = seed
        self.supports_masking = True

    def call(self, inputs: Any, training: bool | None = False) -> Any:
        if not training or self.rate == 0:
            return inputs
        stddev = (self.rate / (1.0 - self.rate)) ** 0.5
        noise = random_ops.normal(array_ops.shape(inputs), mean=1.0, stddev=stddev,
                                  dtype=inputs.dtype, seed=self.seed)
        return math_ops.multiply(inputs, noise)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}


class SpatialDropout1D(Dropout):
    """Dropout of whole feature channels of ``(batch, steps, channels)`` inputs: each
    channel is kept or dropped for every step at once (training only).

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.SpatialDropout1D(0.5)(ef.ones([1, 2, 3])).shape
        (1, 2, 3)
    """

    _rank = 1

    def __init__(self, rate: Any, seed: int | random_ops.Generator | None = None,
                 **kwargs: Any) -> None:
        kwargs.pop("noise_shape", None)
        self.data_format = kwargs.pop("data_format", "channels_last") or "channels_last"
        super().__init__(rate, seed=seed, **kwargs)

    def call(self, inputs: Any, training: bool | None = False) -> Any:
        if not training or self.rate == 0:
            return inputs
        if inputs.ndim != self._rank + 2:
            raise ValueError(
                f"{type(self).__name__} '{self.name}' expects inputs of rank {self._rank + 2}; "
                f"received shape {inputs.shape}.")
        shape = list(inputs.shape)
        spatial = range(1, self._rank + 1) if self.data_format == "channels_last" else \
            range(2, self._rank + 2)
        for axis in spatial:
            shape[axis] = 1
        return nn_ops.dropout(inputs, self.rate, noise_shape=shape, seed=self.seed)

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop("noise_shape", None)
        if self._rank >= 2:
            config["data_format"] = self.data_format
        return config


class SpatialDropout2D(SpatialDropout1D):
    """Dropout of whole feature maps of images (``data_format`` as in `Conv2D`).

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.SpatialDropout2D(0.5)(ef.ones([1, 2, 2, 3])).shape
        (1, 2, 2, 3)
    """

    _rank = 2

    def __init__(self, rate: Any, data_format: str | None = None,
                 seed: int | random_ops.Generator | None = None, **kwargs: Any) -> None:
        super().__init__(rate, seed=seed, data_format=data_format, **kwargs)


class SpatialDropout3D(SpatialDropout1D):
    """Dropout of whole feature volumes of ``(batch, depth, height, width, channels)``
    inputs (``data_format`` as in `Conv3D`; training only).

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.SpatialDropout3D(0.5)(ef.ones([1, 2, 2, 2, 3])).shape
        (1, 2, 2, 2, 3)
    """

    _rank = 3

    def __init__(self, rate: Any, data_format: str | None = None,
                 seed: int | random_ops.Generator | None = None, **kwargs: Any) -> None:
        super().__init__(rate, seed=seed, data_format=data_format, **kwargs)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


class AlphaDropout(Layer):
    """Dropout that keeps the mean and variance of self-normalizing (SELU) activations: in
    training, each dropped input is set to SELU's negative saturation value
    ``-alpha * scale`` instead of 0, and the result is transformed affinely (``a * x + b``)
    back to the inputs' mean and variance, as Keras 3; the identity at inference.

    Args:
        rate: drop probability in ``[0, 1)``.
        noise_shape: shape of the keep/drop mask, broadcast to the input; None entries take
            the input's size.
        seed: optional seed of the mask stream.

    Raises:
        ValueError: for a rate outside ``[0, 1)``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.AlphaDropout(0.2)(ef.ones([2]))
        ef.Tensor([1. 1.], shape=(2,), dtype=float32)
    """

    def __init__(self, rate: Any, noise_shape: Any = None,
                 seed: int | random_ops.Generator | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rate = _rate(rate, "rate", "AlphaDropout", upper=1.0)
        self.noise_shape = None if noise_shape is None else tuple(noise_shape)
        self.seed = seed
        self.supports_masking = True

    def call(self, inputs: Any, training: bool | None = False) -> Any:
        if not training or self.rate == 0:
            return inputs
        shape = array_ops.shape(inputs) if self.noise_shape is None else [
            inputs.shape[i] if size is None else size for i, size in enumerate(self.noise_shape)]
        uniform = random_ops.uniform(shape, dtype=inputs.dtype, seed=self.seed)
        kept = math_ops.cast(logic_ops.greater_equal(uniform, self.rate), inputs.dtype)
        saturated = -_SELU_ALPHA * _SELU_SCALE
        a = ((1 - self.rate) * (1 + self.rate * saturated ** 2)) ** -0.5
        b = -a * saturated * self.rate
        dropped = math_ops.add(math_ops.multiply(inputs, kept),
                               math_ops.multiply(math_ops.subtract(1.0, kept), saturated))
        return math_ops.add(math_ops.multiply(dropped, a), b)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "rate": self.rate, "seed": self.seed,
                "noise_shape": None if self.noise_shape is None else list(self.noise_shape)}


class ActivityRegularization(Layer):
    """The identity, adding ``l1 * sum(|x|) + l2 * sum(x**2)`` of its input to the model's
    losses (an activity regularizer as a layer, as Keras).

    Args:
        l1, l2: the penalty factors (>= 0).

    Raises:
        ValueError: for a negative factor.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.ActivityRegularization(l1=0.5)
        >>> _ = layer(ef.constant([[1.0, -3.0]]))
        >>> [float(loss) for loss in layer.losses]
        [2.0]
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs: Any) -> None:
        l1 = _rate(l1, "l1", "ActivityRegularization")
        l2 = _rate(l2, "l2", "ActivityRegularization")
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1, self.l2 = l1, l2
        self.supports_masking = True

    def call(self, inputs: Any) -> Any:
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop("activity_regularizer", None)
        return {**config, "l1": self.l1, "l2": self.l2}
