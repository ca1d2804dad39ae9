"""Merge layers: Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate (called
on a list of tensors), and their functional forms (`add`, `subtract`, ...).

Example:
    >>> import eagerflow as ef
    >>> a, b = ef.ones([2, 3]), ef.ones([2, 3])
    >>> ef.layers.Add()([a, b]).numpy()[0]
    array([2., 2., 2.], dtype=float32)
    >>> ef.layers.Concatenate()([a, b]).shape
    (2, 6)
"""

from __future__ import annotations

import functools

import numpy as np

from eagerflow.layers.base import Layer
from eagerflow.ops import array as array_ops
from eagerflow.ops import creation as creation_ops
from eagerflow.ops import logic as logic_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import reduce as reduce_ops


class _Merge(Layer):
    """Base of layers that combine a list of at least two tensors."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def _check_list(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2 or any(
                isinstance(x, int) or x is None for x in inputs):
            raise ValueError(
                f"A merge layer ({type(self).__name__} '{self.name}') should be called on a "
                f"list of at least 2 inputs. Received: inputs={inputs!r}")

    def build(self, input_shape):
        self._check_list(input_shape)
        self._check_shapes([tuple(s) for s in input_shape])

    def _check_shapes(self, shapes):
        try:
            np.broadcast_shapes(*[tuple(1 if d is None else d for d in s[1:]) for s in shapes])
        except ValueError:
            raise ValueError(
                f"Inputs of {type(self).__name__} '{self.name}' have incompatible shapes: "
                f"{shapes}. They must be equal, or broadcastable, apart from the batch axis."
            ) from None

    def call(self, inputs):
        self._check_list(inputs)
        return functools.reduce(self._combine, inputs)

    def compute_mask(self, inputs, mask=None):
        if mask is None or not isinstance(mask, (list, tuple)):
            return mask
        masks = [m for m in mask if m is not None]
        if not masks:
            return None
        return functools.reduce(logic_ops.logical_and, masks)


class Add(_Merge):
    """Adds a list of tensors elementwise (same shapes, or broadcastable).

    Example:
        >>> import eagerflow as ef
        >>> ef.layers.Add()([ef.constant([[1.0]]), ef.constant([[2.0]])])
        ef.Tensor([[3.]], shape=(1, 1), dtype=float32)
    """

    @staticmethod
    def _combine(a, b):
        return math_ops.add(a, b)


class Multiply(_Merge):
    """Multiplies a list of tensors elementwise (same shapes, or broadcastable).

    Example:
        >>> import eagerflow as ef
        >>> ef.layers.Multiply()([ef.constant([[2.0]]), ef.constant([[3.0]])])
        ef.Tensor([[6.]], shape=(1, 1), dtype=float32)
    """

    @staticmethod
    def _combine(a, b):
        return math_ops.multiply(a, b)


class Subtract(_Merge):
    """Subtracts the second of exactly two tensors from the first, elementwise.

    Raises:
        ValueError: unless called on a list of exactly two tensors.

    Example:
        >>> import eagerflow as ef
        >>> ef.layers.Subtract()([ef.constant([[5.0]]), ef.constant([[2.0]])])
        ef.Tensor([[3.]], shape=(1, 1), dtype=float32)
    """

    def _check_list(self, inputs):
        super()._check_list(inputs)
        if len(inputs) != 2:
            raise ValueError(
                f"A `Subtract` layer ('{self.name}') should be called on exactly 2 inputs. "
                f"Received {len(inputs)} inputs.")

    @staticmethod
    def _combine(a, b):
        return math_ops.subtract(a, b)


class Average(_Merge):
    """The elementwise mean of a list of tensors.

    Example:
        >>> import eagerflow as ef
        >>> ef.layers.Average()([ef.constant([[1.0]]), ef.constant([[2.0]]),
        ...                      ef.constant([[6.0]])])
        ef.Tensor([[3.]], shape=(1, 1), dtype=float32)
    """

    def call(self, inputs):
        return math_ops.divide(super().call(inputs), float(len(inputs)))

    @staticmethod
    def _combine(a, b):
        return math_ops.add(a, b)


class Maximum(_Merge):
    """The elementwise maximum of a list of tensors.

    Example:
        >>> import eagerflow as ef
        >>> ef.layers.Maximum()([ef.constant([[1.0, 5.0]]), ef.constant([[3.0, 2.0]])])
        ef.Tensor([[3. 5.]], shape=(1, 2), dtype=float32)
    """

    @staticmethod
    def _combine(a, b):
        return math_ops.maximum(a, b)


class Minimum(_Merge):
    """The elementwise minimum of a list of tensors.

    Example:
        >>> import eagerflow as ef
        >>> ef.layers.Minimum()([ef.constant([[1.0, 5.0]]), ef.constant([[3.0, 2.0]])])
        ef.Tensor([[1. 2.]], shape=(1, 2), dtype=float32)
    """

    @staticmethod
    def _combine(a, b):
        return math_ops.minimum(a, b)


class Concatenate(_Merge):
    """Concatenates a list of tensors along `axis` (other axes must match).

    Args:
        axis: the axis to join along (default the last).

    Raises:
        ValueError: for shapes that differ outside `axis`.

    Example:
        >>> import eagerflow as ef
        >>> ef.layers.Concatenate(axis=1)([ef.ones([2, 1]), ef.zeros([2, 2])]).numpy()[0]
        array([1., 0., 0.], dtype=float32)
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = int(axis)

    def _check_shapes(self, shapes):
        rank = len(shapes[0])
        if any(len(s) != rank for s in shapes) or not -rank <= self.axis < rank:
            raise ValueError(
                f"A `Concatenate` layer should be called on inputs of equal rank with axis "
                f"{self.axis} inside it. Received: input_shape={shapes}")
        axis = self.axis % rank
        for position in range(1, rank):
            sizes = {s[position] for s in shapes if s[position] is not None}
            if position != axis and len(sizes) > 1:
                raise ValueError(
                    "A `Concatenate` layer requires inputs with matching shapes except for "
                    f"the concatenation axis. Received: input_shape={shapes}")

    def call(self, inputs):
        self._check_list(inputs)
        return array_ops.concat(list(inputs), self.axis)

    def compute_mask(self, inputs, mask=None):
        if mask is None or not isinstance(mask, (list, tuple)) or all(m is None for m in mask):
            return None
        masks = []
        for x, m in zip(inputs, mask, strict=False):
            if m is None:
                m = creation_ops.ones(x.shape, dtype=np.bool_)
            elif m.ndim < x.ndim:
                m = array_ops.broadcast_to(array_ops.expand_dims(m, -1), x.shape)
            masks.append(m)
        return reduce_ops.reduce_any(array_ops.concat(masks, self.axis), axis=-1)

    def get_config(self) -> dict:
        config = super().get_config()
        config["axis"] = self.axis
        return config


def _functional(layer_class, doc_name):
    def merge(inputs, **kwargs):
        return layer_class(**kwargs)(inputs)

    merge.__name__ = merge.__qualname__ = doc_name
    merge.__doc__ = (
        f"Functional form of `{layer_class.__name__}`: ``{doc_name}(inputs, **kwargs)`` is "
        f"``{layer_class.__name__}(**kwargs)(inputs)`` (Keras's lower-case merge functions).\n"
        "\nExample:\n    >>> import eagerflow as ef\n"
        f"    >>> ef.layers.{doc_name}([ef.ones([1, 2]), ef.ones([1, 2])]).shape\n"
        f"    {(1, 4) if layer_class is Concatenate else (1, 2)}\n")
    return merge


add = _functional(Add, "add")
subtract = _functional(Subtract, "subtract")
multiply = _functional(Multiply, "multiply")
average = _functional(Average, "average")
maximum = _functional(Maximum, "maximum")
minimum = _functional(Minimum, "minimum")
concatenate = _functional(Concatenate, "concatenate")
