"""Weight constraints (`ef.constraints`): projections applied after each optimizer update.

`add_weight(constraint=...)` stores the constraint on the variable (`variable.constraint`);
optimizers apply it to the new value after every update. A constraint maps a weight to
its projected value.

Examples:
    >>> import eagerflow as ef
    >>> ef.constraints.NonNeg()(ef.constant([-1.0, 2.0]))
    ef.Tensor([0. 2.], shape=(2,), dtype=float32)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eagerflow import absent as _absent
from eagerflow.core.tensor import Tensor
from eagerflow.ops import math as math_ops
from eagerflow.ops import reduce as reduce_ops
from eagerflow.ops import unary as unary_ops
from eagerflow.saving import registry
from eagerflow.utils.naming import snake_case

__all__ = ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "deserialize", "get",
           "max_norm", "min_max_norm", "non_neg", "serialize", "unit_norm"]

_EPSILON = 1e-7  # keeps the rescaling finite for all-zero columns


class Constraint(registry.Configurable):
    """Base class: subclasses implement ``__call__(weight) -> projected weight``.

    Examples:
        >>> import eagerflow as ef
        >>> class Clip(ef.constraints.Constraint):
        ...     def __call__(self, w):
        ...         return ef.clip_by_value(w, -1.0, 1.0)
        >>> Clip()(ef.constant([3.0]))
        ef.Tensor([1.], shape=(1,), dtype=float32)
    """

    def __call__(self, w: Any) -> Any:
        return w


def _norms(w, axis):
    return unary_ops.sqrt(reduce_ops.reduce_sum(unary_ops.square(w), axis, keepdims=True))


class MaxNorm(Constraint):
    """Rescales each slice along `axis` whose L2 norm exceeds `max_value` back to it.

    For a Dense kernel ``(input_dim, units)``, ``axis=0`` constrains the weights going
    into each unit.

    Examples:
        >>> import eagerflow as ef
        >>> ef.constraints.MaxNorm(1.0)(ef.constant([[3.0], [4.0]]))
        ef.Tensor(
        [[0.6]
         [0.8]], shape=(2, 1), dtype=float32)
    """

    def __init__(self, max_value: float = 2, axis: int | Sequence[int] = 0) -> None:
        self.max_value, self.axis = max_value, axis

    def __call__(self, w: Any) -> Tensor:
        norms = _norms(w, self.axis)
        desired = math_ops.clip_by_value(norms, 0.0, float(self.max_value))
        return math_ops.multiply(w, math_ops.divide(desired, math_ops.add(norms, _EPSILON)))

    def get_config(self) -> dict:
        return {"max_value": self.max_value, "axis": self.axis}


class MinMaxNorm(Constraint):
    """Moves each slice's L2 norm into ``[min_value, max_value]`` (at speed `rate`).

    Examples:
        >>> import eagerflow as ef
        >>> ef.constraints.MinMaxNorm(1.0, 2.0)(ef.constant([[0.3], [0.4]])).numpy().round(3)
        array([[0.6],
               [0.8]], dtype=float32)
    """

    def __init__(self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0,
                 axis: int | Sequence[int] = 0) -> None:
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w: Any) -> Tensor:
        norms = _norms(w, self.axis)
        clipped = math_ops.clip_by_value(norms, float(self.min_value), float(self.max_value))
        desired = math_ops.add(math_ops.multiply(float(self.rate), clipped),
                               math_ops.multiply(1.0 - float(self.rate), norms))
        return math_ops.multiply(w, math_ops.divide(desired, math_ops.add(norms, _EPSILON)))

    def get_config(self) -> dict:
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


class NonNeg(Constraint):
    """Sets negative weights to zero.

    Examples:
        >>> import eagerflow as ef
        >>> ef.constraints.NonNeg()(ef.constant([-0.5, 0.5]))
        ef.Tensor([0.  0.5], shape=(2,), dtype=float32)
    """

    def __call__(self, w: Any) -> Tensor:
        return math_ops.maximum(w, 0.0)


class UnitNorm(Constraint):
    """Rescales each slice along `axis` to unit L2 norm.

    Examples:
        >>> import eagerflow as ef
        >>> ef.constraints.UnitNorm()(ef.constant([[3.0], [4.0]]))
        ef.Tensor(
        [[0.6]
         [0.8]], shape=(2, 1), dtype=float32)
    """

    def __init__(self, axis: int | Sequence[int] = 0) -> None:
        self.axis = axis

    def __call__(self, w: Any) -> Tensor:
        return math_ops.divide(w, math_ops.add(_norms(w, self.axis), _EPSILON))

    def get_config(self) -> dict:
        return {"axis": self.axis}


max_norm = MaxNorm
"""Keras's lower-case name of `MaxNorm` (the class itself)."""

min_max_norm = MinMaxNorm
"""Keras's lower-case name of `MinMaxNorm` (the class itself)."""

non_neg = NonNeg
"""Keras's lower-case name of `NonNeg` (the class itself)."""

unit_norm = UnitNorm
"""Keras's lower-case name of `UnitNorm` (the class itself)."""

for _class in (MaxNorm, MinMaxNorm, NonNeg, UnitNorm):
    registry.register("constraint", _class, snake_case(_class.__name__))


def get(identifier: Any) -> Any:
    """Returns a constraint from a name (``"max_norm"``, ``"non_neg"``, ...), config or callable.

    Raises:
        ValueError: for an unknown name, listing the known ones.

    Examples:
        >>> import eagerflow as ef
        >>> ef.constraints.get("non_neg")
        NonNeg()
    """
    return registry.get("constraint", identifier)


def serialize(constraint: Any) -> Any:
    """The ``{"class_name", "config"}`` of a constraint.

    Examples:
        >>> import eagerflow as ef
        >>> ef.constraints.serialize(ef.constraints.UnitNorm(axis=1))
        {'class_name': 'UnitNorm', 'config': {'axis': 1}}
    """
    return registry.serialize(constraint, "constraint")


def deserialize(config: dict[str, Any]) -> Any:
    """Inverse of `serialize`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.constraints.deserialize({"class_name": "MaxNorm", "config": {"max_value": 3}})
        MaxNorm(max_value=3, axis=0)
    """
    return get(config)


__getattr__ = _absent.namespace_getattr(__name__, "keras.constraints")
