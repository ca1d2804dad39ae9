"""Core layers: Dense, Activation, Lambda.

Examples:
    >>> import eagerflow as ef
    >>> layer = ef.layers.Dense(2, activation="relu", kernel_initializer="ones")
    >>> layer(ef.constant([[1.0, -3.0]]))
    ef.Tensor([[0. 0.]], shape=(1, 2), dtype=float32)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from eagerflow.core.tensor import Tensor
from eagerflow.layers import activations, constraints, initializers, regularizers
from eagerflow.layers.base import Layer
from eagerflow.layers.input_spec import InputSpec
from eagerflow.ops import array_ops
from eagerflow.ops import linalg_ops as linalg
from eagerflow.ops import logic as logic_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import reduce as reduce_ops


def positive_int(value, name: str, layer: str) -> int:
    """Validates a size argument such as `units` (Keras's wording)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(
            f"Received an invalid value for `{name}` of {layer}, expected a positive "
            f"integer. Received: {name}={value!r}")
    return int(value)


# The `activation`, `use_bias` and kernel/bias options of Dense and the convolutions: a
# layer computing ``activation(f(inputs, kernel) + bias)`` calls `init_kernel_bias` from
# its ``__init__``, `add_kernel_and_bias` from `build` and `activate` at the end of `call`,
# and adds `kernel_bias_config` to its config, each where its own arguments leave off.


def init_kernel_bias(layer, activation, use_bias, kernel_initializer, bias_initializer,
                     kernel_regularizer, bias_regularizer, kernel_constraint, bias_constraint):
    """Sets `layer`'s activation and kernel/bias options from their Keras arguments."""
    layer.activation = activations.get(activation)
    set_weight_options(layer, use_bias, kernel_initializer, bias_initializer,
                       kernel_regularizer, bias_regularizer, kernel_constraint, bias_constraint)


WEIGHT_OPTIONS = ("use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer",
                  "bias_regularizer", "kernel_constraint", "bias_constraint")


def set_weight_options(layer, use_bias, kernel_initializer, bias_initializer,
                       kernel_regularizer, bias_regularizer, kernel_constraint,
                       bias_constraint) -> None:
    """Sets `layer`'s kernel/bias options (`WEIGHT_OPTIONS`) from their Keras arguments."""
    layer.use_bias = bool(use_bias)
    layer.kernel_initializer = initializers.get(kernel_initializer)
    layer.bias_initializer = initializers.get(bias_initializer)
    layer.kernel_regularizer = regularizers.get(kernel_regularizer)
    layer.bias_regularizer = regularizers.get(bias_regularizer)
    layer.kernel_constraint = constraints.get(kernel_constraint)
    layer.bias_constraint = constraints.get(bias_constraint)


def add_kernel_and_bias(layer, kernel_shape: tuple, bias_shape: tuple | None) -> None:
    """Creates `layer.kernel` and (with `use_bias`) `layer.bias` from its options."""
    layer.kernel = layer.add_weight("kernel", kernel_shape,
                                    initializer=layer.kernel_initializer,
                                    regularizer=layer.kernel_regularizer,
                                    constraint=layer.kernel_constraint)
    layer.bias = None
    if layer.use_bias:
        layer.bias = layer.add_weight("bias", bias_shape, initializer=layer.bias_initializer,
                                      regularizer=layer.bias_regularizer,
                                      constraint=layer.bias_constraint)


def activate(layer, outputs):
    """Applies `layer.activation` (nothing for the linear one)."""
    if layer.activation is not activations.linear:
        outputs = layer.activation(outputs)
    return outputs


def kernel_bias_config(layer) -> dict:
    """The config entries of the options `init_kernel_bias` set.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.layers import core
        >>> sorted(core.kernel_bias_config(ef.layers.Conv2D(2, 3)))[:3]
        ['activation', 'activity_regularizer', 'bias_constraint']
    """
    return {"activation": activations.serialize(layer.activation), **weight_options_config(layer)}


def weight_options_config(layer) -> dict:
    """The config entries of `set_weight_options` and the activity regularizer."""
    return {
        "use_bias": layer.use_bias,
        "kernel_initializer": initializers.serialize(layer.kernel_initializer),
        "bias_initializer": initializers.serialize(layer.bias_initializer),
        "kernel_regularizer": regularizers.serialize(layer.kernel_regularizer),
        "bias_regularizer": regularizers.serialize(layer.bias_regularizer),
        "activity_regularizer": regularizers.serialize(layer.activity_regularizer),
        "kernel_constraint": constraints.serialize(layer.kernel_constraint),
        "bias_constraint": constraints.serialize(layer.bias_constraint),
    }


class Dense(Layer):
    """Densely connected layer: ``activation(inputs @ kernel + bias)``.

    Applies to the last axis of inputs of any rank >= 2. The kernel has shape
    ``(input_dim, units)`` and the bias ``(units,)``, as in Keras.

    Args:
        units: output size (positive int).
        activation: activation name or callable (default: none).
        use_bias: whether to add a bias.
        kernel_initializer, bias_initializer: initializers.
        kernel_regularizer, bias_regularizer: regularizers (penalties in `losses`).
        activity_regularizer: regularizer on the outputs.
        kernel_constraint, bias_constraint: constraints applied after updates.
        **kwargs: base Layer arguments (name, dtype, input_shape, ...).

    Raises:
        ValueError: for a non-positive `units`, an unknown activation, or inputs whose
            last axis is unknown or differs from the one the layer was built for.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.Dense(3)
        >>> layer(ef.ones([2, 5])).shape, layer.kernel.shape
        ((2, 3), (5, 3))
    """

    kernel: Any  # made by `build`
    bias: Any

    def __init__(self, units: int, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = positive_int(units, "units", "Dense")
        init_kernel_bias(self, activation, use_bias, kernel_initializer,
                               bias_initializer, kernel_regularizer, bias_regularizer,
                               kernel_constraint, bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(
                "The last dimension of the inputs to a Dense layer should be defined. Found "
                f"None. Full input shape received: {tuple(input_shape)}")
        add_kernel_and_bias(self, (input_dim, self.units), (self.units,))
        self.input_spec = InputSpec(min_ndim=2, axes={-1: input_dim})

    def call(self, inputs: Any) -> Any:
        if inputs.ndim == 2:
            outputs = linalg.matmul(inputs, self.kernel)
        else:
            # Fold the leading axes into one, so the kernel gradient is one matmul.
            flat = array_ops.reshape(inputs, (-1, inputs.shape[-1]))
            outputs = array_ops.reshape(linalg.matmul(flat, self.kernel),
                                        (*inputs.shape[:-1], self.units))
        if self.bias is not None:
            outputs = math_ops.add(outputs, self.bias)
        return activate(self, outputs)

    def get_config(self) -> dict:
        config = super().get_config()
        config["units"] = self.units
        config.update(kernel_bias_config(self))
        return config


class Activation(Layer):
    """Applies an activation function.

    Args:
        activation: name (``"relu"``) or callable.

    Raises:
        ValueError: for an unknown activation name (the message lists the known ones).

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Activation("relu")(ef.constant([-1.0, 2.0]))
        ef.Tensor([0. 2.], shape=(2,), dtype=float32)
    """

    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.activation = activations.get(activation)
        self.supports_masking = True

    def call(self, inputs: Any) -> Any:
        return self.activation(inputs)

    def get_config(self) -> dict:
        config = super().get_config()
        config["activation"] = activations.serialize(self.activation)
        return config


class Lambda(Layer):
    """Wraps a function of tensors as a layer (for functional and Sequential models).

    The function gets the inputs, plus ``mask=`` and ``training=`` when its signature
    declares them, plus the `arguments` dict as keyword arguments. It must not create
    variables: write a Layer subclass for that.

    Args:
        function: the function.
        output_shape: accepted for Keras compatibility; shapes are inferred by running
            the function.
        mask: None, a callable ``mask(inputs, previous_mask)`` returning the output mask,
            or a fixed mask.
        arguments: extra keyword arguments for the function.

    Raises:
        TypeError: if `function` is not callable.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Lambda(lambda x: x * 2.0)(ef.constant([1.0]))
        ef.Tensor([2.], shape=(1,), dtype=float32)

    Note:
        Its config holds the function object itself: it round-trips in memory through
        `from_config`, but cannot be written as JSON (loading never runs code from files).
    """

    def __init__(self, function: Callable[..., Any], output_shape: Any = None, mask: Any = None,
                 arguments: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(f"Lambda needs a callable, got {function!r}")
        self.function = function
        self.output_shape = output_shape
        self.mask = mask
        self.arguments = dict(arguments or {})
        try:
            parameters = inspect.signature(function).parameters
        except (TypeError, ValueError):
            parameters = {}  # type: ignore[assignment]  # (no signature: no parameters)
        self._fn_takes_mask = "mask" in parameters
        self._fn_takes_training = "training" in parameters
        self.supports_masking = mask is not None

    def call(self, inputs: Any, mask: Any = None, training: bool | None = None) -> Any:
        kwargs = dict(self.arguments)
        if self._fn_takes_mask:
            kwargs["mask"] = mask
        if self._fn_takes_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(function=self.function, output_shape=self.output_shape, mask=self.mask,
                      arguments=self.arguments)
        return config


class Masking(Layer):
    """Masks time steps whose features all equal `mask_value`: later layers that support
    masks skip them (an LSTM keeps its state, a pooling ignores them), and the masked
    steps' outputs are zeros, as in Keras 3.

    Args:
        mask_value: the padding value.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.constant([[[1.0, 2.0], [0.0, 0.0], [3.0, 0.0]]])
        >>> layer = ef.layers.Masking(mask_value=0.0)
        >>> layer.compute_mask(x)
        ef.Tensor([[ True False  True]], shape=(1, 3), dtype=bool)
    """

    def __init__(self, mask_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mask_value = float(mask_value)
        self.supports_masking = True

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return reduce_ops.reduce_any(logic_ops.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs: Any) -> Tensor:
        keep = reduce_ops.reduce_any(logic_ops.not_equal(inputs, self.mask_value), axis=-1,
                                     keepdims=True)
        return math_ops.multiply(inputs, math_ops.cast(keep, inputs.dtype))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "mask_value": self.mask_value}
