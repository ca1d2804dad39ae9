"""Merge layers: Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate (called
on a list of tensors), and their functional forms (`add`, `subtract`, ...).

Examples:
    >>> import eagerflow as ef
    >>> a, b = ef.ones([2, 3]), ef.ones([2, 3])
    >>> ef.layers.Add()([a, b]).numpy()[0]
    array([2., 2., 2.], dtype=float32)
    >>> ef.layers.Concatenate()([a, b]).shape
    (2, 6)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from eagerflow.core.tensor import Tensor
from eagerflow.layers.base import Layer
from eagerflow.ops import array_ops
from eagerflow.ops import creation as creation_ops
from eagerflow.ops import einsum_ops
from eagerflow.ops import linalg_ops
from eagerflow.ops import logic as logic_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import reduce as reduce_ops
from eagerflow.ops import unary as unary_ops


class _Merge(Layer):
    """Base of layers that combine a list of at least two tensors."""

    _combine: Callable[[Any, Any], Any]  # each subclass's pairwise rule

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True

    def _check_list(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2 or any(
                isinstance(x, int) or x is None for x in inputs):
            raise ValueError(
                f"A merge layer ({type(self).__name__} '{self.name}') should be called on a "
                f"list of at least 2 inputs. Received: inputs={inputs!r}")

    def build(self, input_shape: Any) -> None:
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

    def call(self, inputs: Any) -> Any:
        self._check_list(inputs)
        return functools.reduce(self._combine, inputs)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if mask is None or not isinstance(mask, (list, tuple)):
            return mask
        masks = [m for m in mask if m is not None]
        if not masks:
            return None
        return functools.reduce(logic_ops.logical_and, masks)


class Add(_Merge):
    """Adds a list of tensors elementwise (same shapes, or broadcastable).

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Add()([ef.constant([[1.0]]), ef.constant([[2.0]])])
        ef.Tensor([[3.]], shape=(1, 1), dtype=float32)
    """

    @staticmethod
    def _combine(a, b):
        return math_ops.add(a, b)


class Multiply(_Merge):
    """Multiplies a list of tensors elementwise (same shapes, or broadcastable).

    Examples:
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

    Examples:
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

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Average()([ef.constant([[1.0]]), ef.constant([[2.0]]),
        ...                      ef.constant([[6.0]])])
        ef.Tensor([[3.]], shape=(1, 1), dtype=float32)
    """

    def call(self, inputs: Any) -> Tensor:
        return math_ops.divide(super().call(inputs), float(len(inputs)))

    @staticmethod
    def _combine(a, b):
        return math_ops.add(a, b)


class Maximum(_Merge):
    """The elementwise maximum of a list of tensors.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Maximum()([ef.constant([[1.0, 5.0]]), ef.constant([[3.0, 2.0]])])
        ef.Tensor([[3. 5.]], shape=(1, 2), dtype=float32)
    """

    @staticmethod
    def _combine(a, b):
        return math_ops.maximum(a, b)


class Minimum(_Merge):
    """The elementwise minimum of a list of tensors.

    Examples:
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

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Concatenate(axis=1)([ef.ones([2, 1]), ef.zeros([2, 2])]).numpy()[0]
        array([1., 0., 0.], dtype=float32)
    """

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
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

    def call(self, inputs: Any) -> Tensor:
        self._check_list(inputs)
        return array_ops.concat(list(inputs), self.axis)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
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


def add(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """Elementwise sum of a list of tensors of one shape: the functional form of `Add`.

    ``add(inputs, **kwargs)`` is ``Add(**kwargs)(inputs)``, as Keras's lower-case merge
    functions are; it works on tensors and on the symbolic tensors of a functional model.

    Args:
        inputs: the list of tensors to merge.
        **kwargs: arguments of the `Add` layer (`name`, `dtype`, ...).

    Returns:
        The merged tensor.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.add([ef.constant([[1.0, 2.0]]), ef.constant([[3.0, 4.0]])])
        ef.Tensor([[4. 6.]], shape=(1, 2), dtype=float32)
    """
    return Add(**kwargs)(inputs)


def subtract(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """Elementwise difference of exactly two tensors, ``inputs[0] - inputs[1]``: the functional form of `Subtract`.

    ``subtract(inputs, **kwargs)`` is ``Subtract(**kwargs)(inputs)``, as Keras's lower-case merge
    functions are; it works on tensors and on the symbolic tensors of a functional model.

    Args:
        inputs: the list of tensors to merge.
        **kwargs: arguments of the `Subtract` layer (`name`, `dtype`, ...).

    Returns:
        The merged tensor.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.subtract([ef.constant([[1.0, 2.0]]), ef.constant([[3.0, 4.0]])])
        ef.Tensor([[-2. -2.]], shape=(1, 2), dtype=float32)
    """
    return Subtract(**kwargs)(inputs)


def multiply(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """Elementwise product of a list of tensors of one shape: the functional form of `Multiply`.

    ``multiply(inputs, **kwargs)`` is ``Multiply(**kwargs)(inputs)``, as Keras's lower-case merge
    functions are; it works on tensors and on the symbolic tensors of a functional model.

    Args:
        inputs: the list of tensors to merge.
        **kwargs: arguments of the `Multiply` layer (`name`, `dtype`, ...).

    Returns:
        The merged tensor.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.multiply([ef.constant([[1.0, 2.0]]), ef.constant([[3.0, 4.0]])])
        ef.Tensor([[3. 8.]], shape=(1, 2), dtype=float32)
    """
    return Multiply(**kwargs)(inputs)


def average(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """Elementwise mean of a list of tensors of one shape: the functional form of `Average`.

    ``average(inputs, **kwargs)`` is ``Average(**kwargs)(inputs)``, as Keras's lower-case merge
    functions are; it works on tensors and on the symbolic tensors of a functional model.

    Args:
        inputs: the list of tensors to merge.
        **kwargs: arguments of the `Average` layer (`name`, `dtype`, ...).

    Returns:
        The merged tensor.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.average([ef.constant([[1.0, 2.0]]), ef.constant([[3.0, 4.0]])])
        ef.Tensor([[2. 3.]], shape=(1, 2), dtype=float32)
    """
    return Average(**kwargs)(inputs)


def maximum(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """Elementwise maximum of a list of tensors of one shape: the functional form of `Maximum`.

    ``maximum(inputs, **kwargs)`` is ``Maximum(**kwargs)(inputs)``, as Keras's lower-case merge
    functions are; it works on tensors and on the symbolic tensors of a functional model.

    Args:
        inputs: the list of tensors to merge.
        **kwargs: arguments of the `Maximum` layer (`name`, `dtype`, ...).

    Returns:
        The merged tensor.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.maximum([ef.constant([[1.0, 5.0]]), ef.constant([[3.0, 4.0]])])
        ef.Tensor([[3. 4.]], shape=(1, 2), dtype=float32)
    """
    return Maximum(**kwargs)(inputs)


def minimum(inputs: Sequence[Any], **kwargs: Any) -> Any:
    """Elementwise minimum of a list of tensors of one shape: the functional form of `Minimum`.

    ``minimum(inputs, **kwargs)`` is ``Minimum(**kwargs)(inputs)``, as Keras's lower-case merge
    functions are; it works on tensors and on the symbolic tensors of a functional model.

    Args:
        inputs: the list of tensors to merge.
        **kwargs: arguments of the `Minimum` layer (`name`, `dtype`, ...).

    Returns:
        The merged tensor.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.minimum([ef.constant([[1.0, 5.0]]), ef.constant([[3.0, 4.0]])])
        ef.Tensor([[1. 4.]], shape=(1, 2), dtype=float32)
    """
    return Minimum(**kwargs)(inputs)


def concatenate(inputs: Sequence[Any], axis: int = -1, **kwargs: Any) -> Any:
    """Joins a list of tensors along `axis`: the functional form of `Concatenate`.

    ``concatenate(inputs, axis, **kwargs)`` is ``Concatenate(axis, **kwargs)(inputs)``, as
    Keras's lower-case merge functions are; it works on tensors and on the symbolic tensors
    of a functional model.

    Args:
        inputs: the list of tensors, of one shape except along `axis`.
        axis: the axis to join along.
        **kwargs: other arguments of the `Concatenate` layer (`name`, `dtype`, ...).

    Returns:
        The joined tensor.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.concatenate([ef.ones([1, 2]), ef.zeros([1, 1])])
        ef.Tensor([[1. 1. 0.]], shape=(1, 3), dtype=float32)
    """
    return Concatenate(axis=axis, **kwargs)(inputs)


class Dot(_Merge):
    """Dot product of two batches of tensors along `axes` (Keras's batch dot).

    For inputs ``(batch, n)`` the result is ``(batch, 1)``; for ``(batch, n, d)`` and
    ``(batch, m, d)`` with ``axes=2`` it is ``(batch, n, m)``. In general the result has
    the batch axis, then the first input's other axes, then the second's (Keras's
    ``batch_dot``).

    Args:
        axes: an int (the same axis of both), or a pair; axis 0 (the batch) is not allowed.
        normalize: L2-normalize both inputs along their axes first (the result is then the
            cosine similarity).

    Raises:
        ValueError: for inputs that are not two tensors of rank 2 or more, a batch axis, or
            contracted axes of different sizes.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Dot(axes=1)([ef.constant([[1.0, 2.0]]), ef.constant([[3.0, 4.0]])])
        ef.Tensor([[11.]], shape=(1, 1), dtype=float32)
    """

    def __init__(self, axes: Any, normalize: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        pair = (axes, axes) if isinstance(axes, int) else tuple(axes)
        if len(pair) != 2 or any(isinstance(a, bool) or not isinstance(a, int) for a in pair):
            raise ValueError(f"Dot: `axes` must be an int or a pair of ints. Received: "
                             f"axes={axes!r}")
        self.axes = pair
        self.normalize = bool(normalize)

    def _resolve(self, shapes):
        if len(shapes) != 2 or any(len(s) < 2 for s in shapes):
            raise ValueError(
                f"Dot '{self.name}' takes two inputs of rank 2 or more. Received shapes "
                f"{shapes}.")
        axes = [a % len(s) for a, s in zip(self.axes, shapes, strict=True)]
        if 0 in axes:
            raise ValueError(f"Dot '{self.name}': axes {self.axes} include the batch axis 0.")
        first, second = (s[a] for s, a in zip(shapes, axes, strict=True))
        if first is not None and second is not None and first != second:
            raise ValueError(
                f"Dot '{self.name}': the contracted axes have sizes {first} and {second} "
                f"(shapes {shapes}, axes {self.axes}); they must be equal.")
        return axes

    def _check_shapes(self, shapes):
        self._resolve(shapes)

    def call(self, inputs: Any) -> Any:
        self._check_list(inputs)
        x, y = inputs
        ax, ay = self._resolve([tuple(x.shape), tuple(y.shape)])
        if self.normalize:
            x, y = _l2_normalize(x, ax), _l2_normalize(y, ay)
        if x.ndim <= 3 and y.ndim <= 3:
            # x with its contracted axis last, y with it right after the batch: a batch
            # matmul (batch, n or 1, d) @ (batch, d, m or 1); 1.5x faster than the einsum.
            if x.ndim == 3 and ax != 2:
                x = array_ops.transpose(x, (0, 2, 1))
            if y.ndim == 3 and ay != 1:
                y = array_ops.transpose(y, (0, 2, 1))
            out = linalg_ops.matmul(x if x.ndim == 3 else array_ops.expand_dims(x, 1),
                                    y if y.ndim == 3 else array_ops.expand_dims(y, 2))
            if x.ndim == 2 and y.ndim == 2:
                return array_ops.squeeze(out, 2)  # (batch, 1)
            if x.ndim == 2:
                return array_ops.squeeze(out, 1)
            return array_ops.squeeze(out, 2) if y.ndim == 2 else out
        # Higher ranks: one einsum, the batch axis shared and the contracted axes summed,
        # then x's other axes and y's (batch_dot); no reshape, so sizes unknown while
        # tracing stay unknown.
        letters = iter("bcdefghijklmnopqrstuvwxy")
        x_axes = ["a"] + [next(letters) for _ in range(1, x.ndim)]
        y_axes = ["a"] + [next(letters) for _ in range(1, y.ndim)]
        x_axes[ax] = y_axes[ay] = "z"
        kept = [c for c in x_axes[1:] + y_axes[1:] if c != "z"]
        return einsum_ops.einsum(f"{''.join(x_axes)},{''.join(y_axes)}->a{''.join(kept)}", x, y)

    def compute_output_shape(self, input_shape: Any) -> Any:
        shapes = [tuple(s) for s in input_shape]
        ax, ay = self._resolve(shapes)
        rest = [d for i, d in enumerate(shapes[0]) if i not in (0, ax)] + \
            [d for i, d in enumerate(shapes[1]) if i not in (0, ay)]
        return (shapes[0][0], *rest) if rest else (shapes[0][0], 1)

    def compute_mask(self, inputs: Any, mask: Any = None) -> None:
        return None

    def get_config(self) -> dict:
        return {**super().get_config(), "axes": list(self.axes), "normalize": self.normalize}


def _l2_normalize(x, axis):
    squares = reduce_ops.reduce_sum(math_ops.multiply(x, x), axis=axis, keepdims=True)
    return math_ops.divide(x, unary_ops.sqrt(math_ops.maximum(squares, 1e-12)))


def dot(inputs: Sequence[Any], axes: Any, normalize: bool = False, **kwargs: Any) -> Any:
    """Dot product of two batches of tensors along `axes`: the functional form of `Dot`.

    ``dot(inputs, axes, normalize, **kwargs)`` is ``Dot(axes, normalize, **kwargs)(inputs)``,
    as Keras's lower-case merge functions are.

    Args:
        inputs: a list of two tensors of rank 2 or 3.
        axes: an int (the same axis of both), or a pair; not the batch axis 0.
        normalize: L2-normalize both inputs along their axes first (cosine similarity).
        **kwargs: other arguments of the `Dot` layer (`name`, `dtype`, ...).

    Returns:
        The batch of dot products.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.dot([ef.constant([[1.0, 2.0]]), ef.constant([[3.0, 4.0]])], axes=1)
        ef.Tensor([[11.]], shape=(1, 1), dtype=float32)
    """
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
