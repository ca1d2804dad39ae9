"""Weight regularizers (`ef.regularizers`): penalties added to a layer's `losses`.

A regularizer maps a weight to a scalar penalty. Layers recompute the penalties of their
weights every time `layer.losses` is read, so inside a `GradientTape` the penalty is
differentiable and never stale.

Examples:
    >>> import eagerflow as ef
    >>> ef.regularizers.L2(0.5)(ef.constant([1.0, 2.0]))
    ef.Tensor(2.5, shape=(), dtype=float32)
"""

from __future__ import annotations

from typing import Any

from eagerflow import absent as _absent
from eagerflow.ops import array as array_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import reduce as reduce_ops
from eagerflow.ops import unary as unary_ops
from eagerflow.saving import registry

__all__ = ["L1", "L1L2", "L2", "Regularizer", "deserialize", "get", "l1", "l1_l2", "l2",
           "serialize"]


def _factor(value, name: str) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"`{name}` must be a number. Received: {name}={value!r}") from None
    if value < 0 or value != value:
        raise ValueError(f"`{name}` must be a non-negative number. Received: {name}={value}")
    return value


class Regularizer(registry.Configurable):
    """Base class: subclasses implement ``__call__(weight) -> scalar tensor``.

    Examples:
        >>> import eagerflow as ef
        >>> class Sum(ef.regularizers.Regularizer):
        ...     def __call__(self, x):
        ...         return ef.reduce_sum(x)
        >>> Sum()(ef.ones([3]))
        ef.Tensor(3.0, shape=(), dtype=float32)
    """

    def __call__(self, x: Any) -> Any:
        raise TypeError(f"{type(self).__name__} must implement __call__(x)")


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x ** 2)``.

    Args:
        l1, l2: non-negative factors.

    Raises:
        ValueError: for a negative or non-numeric factor.

    Examples:
        >>> import eagerflow as ef
        >>> ef.regularizers.L1L2(l1=1.0, l2=1.0)(ef.constant([-1.0, 2.0]))
        ef.Tensor(8.0, shape=(), dtype=float32)
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1 = _factor(l1, "l1")
        self.l2 = _factor(l2, "l2")

    def __call__(self, x: Any) -> Any:
        penalty = None
        if self.l1:
            penalty = math_ops.multiply(self.l1, reduce_ops.reduce_sum(unary_ops.abs(x)))
        if self.l2:
            term = math_ops.multiply(self.l2, reduce_ops.reduce_sum(unary_ops.square(x)))
            penalty = term if penalty is None else math_ops.add(penalty, term)
        if penalty is None:
            return math_ops.multiply(reduce_ops.reduce_sum(x), 0.0)
        return penalty

    def get_config(self) -> dict:
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    """``l1 * sum(|x|)``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.regularizers.L1(0.1)(ef.constant([-1.0, 3.0]))
        ef.Tensor(0.4, shape=(), dtype=float32)
    """

    def __init__(self, l1: float = 0.01) -> None:
        super().__init__(l1=l1)

    def get_config(self) -> dict:
        return {"l1": self.l1}


class L2(L1L2):
    """``l2 * sum(x ** 2)``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.regularizers.L2(0.1)(ef.constant([1.0, 3.0]))
        ef.Tensor(1.0, shape=(), dtype=float32)
    """

    def __init__(self, l2: float = 0.01) -> None:
        super().__init__(l2=l2)

    def get_config(self) -> dict:
        return {"l2": self.l2}


l1 = L1
"""Keras's lower-case name of `L1` (the class itself)."""

l2 = L2
"""Keras's lower-case name of `L2` (the class itself)."""

l1_l2 = L1L2
"""Keras's lower-case name of `L1L2` (the class itself)."""

registry.register("regularizer", L1, "l1")
registry.register("regularizer", L2, "l2")
registry.register("regularizer", L1L2, "l1_l2", "l1l2")


def get(identifier: Any) -> Any:
    """Returns a regularizer from a name (``"l1"``, ``"l2"``, ``"l1_l2"``), config or callable.

    Raises:
        ValueError: for an unknown name, listing the known ones.

    Examples:
        >>> import eagerflow as ef
        >>> ef.regularizers.get("l2")
        L2(l2=0.01)
    """
    return registry.get("regularizer", identifier)


def serialize(regularizer: Any) -> Any:
    """The ``{"class_name", "config"}`` of a regularizer.

    Examples:
        >>> import eagerflow as ef
        >>> ef.regularizers.serialize(ef.regularizers.L1(0.5))
        {'class_name': 'L1', 'config': {'l1': 0.5}}
    """
    return registry.serialize(regularizer, "regularizer")


def deserialize(config: dict[str, Any]) -> Any:
    """Inverse of `serialize`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.regularizers.deserialize({"class_name": "L2", "config": {"l2": 0.1}})
        L2(l2=0.1)
    """
    return get(config)


def activity_loss(regularizer: Any, output: Any) -> Any:
    """The loss a layer's activity regularizer adds for `output`: its penalty per example.

    The batch size divides the penalty (as Keras); in a function traced for any batch size
    (batch None) it is counted when the graph runs.

    Examples:
        >>> import eagerflow as ef
        >>> float(activity_loss(ef.regularizers.L1(0.5), ef.constant([[1.0, -2.0], [3.0, 0.0]])))
        1.5
    """
    batch: Any = output.shape[0] if output.ndim else 1
    if batch is None:
        batch = math_ops.divide(array_ops.size(output, output.dtype),
                                math_ops.maximum(array_ops.size(output[0], output.dtype), 1))
    else:
        batch = float(batch)
    return math_ops.divide(regularizer(output), batch)


__getattr__ = _absent.namespace_getattr(__name__, "keras.regularizers")
