"""The `Metric` base class: streaming state in Variables, `update_state` / `result`.

A metric accumulates sufficient statistics (sums, counts, confusion-matrix cells) in
non-trainable Variables, so the result over an epoch is exact, not an average of batch
results, and checkpoints save it. State is accumulated in float64 (counts stay exact past
2**24 samples); `result()` returns the metric's `dtype` (float32 by default).

Metrics compute with eagerflow ops and update their state with ``assign_add``, so they
run the same eagerly and inside `ef.function` (a traced train step updates them on every
call). They are not differentiable: tapes do not record their updates.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.Mean()
    >>> m(0); m(5)
    ef.Tensor(0.0, shape=(), dtype=float32)
    ef.Tensor(2.5, shape=(), dtype=float32)
    >>> float(m([8, 9]))
    5.5
    >>> m.reset_state(); float(m.result())
    0.0
"""

from __future__ import annotations

import abc
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from eagerflow.core import tensor, trackable
from eagerflow.core.variable import Variable
from eagerflow.ops import array_ops as array, creation, logic, math
from eagerflow.ops.typing import DTypeLike, Tensor, TensorLike
from eagerflow.saving import registry
from eagerflow.utils import naming


def as_tensor(value: Any, dtype: DTypeLike = None) -> Tensor:
    """Metric input as a tensor (of `dtype` when given); Variables are read."""
    if isinstance(value, Variable):
        value = value.value
    elif not isinstance(value, tensor.Tensor):
        if dtype is not None and isinstance(value, (int, float, np.ndarray, np.generic)):
            return creation.convert_to_tensor(np.asarray(value, dtype))  # no float32 detour
        value = creation.convert_to_tensor(value)
    if dtype is not None and value.dtype != dtype:
        value = math.cast(value, dtype)
    return value


def squeeze_or_expand_to_same_rank(x1: Tensor, x2: Tensor,
                                   expand_rank_1: bool = True) -> tuple[Tensor, Tensor]:
    """Keras's rank alignment: ranks differing by a trailing 1 are aligned (static shapes)."""
    if x1.ndim == x2.ndim + 1 and x1.shape[-1] == 1:
        if x2.ndim == 1 and expand_rank_1:
            x2 = array.expand_dims(x2, -1)
        else:
            x1 = array.squeeze(x1, -1)
    elif x2.ndim == x1.ndim + 1 and x2.shape[-1] == 1:
        if x1.ndim == 1 and expand_rank_1:
            x1 = array.expand_dims(x1, -1)
        else:
            x2 = array.squeeze(x2, -1)
    return x1, x2


class Metric(trackable.Trackable, abc.ABC):
    """Base class of metrics: implement `update_state` and `result`.

    Create state in ``__init__`` with `add_variable` and keep it in attributes, so
    checkpoints find it (``metric/total``) and `reset_state` zeroes it.

    Args:
        name: the metric's name (default: the class name in snake case).
        dtype: the dtype of `result()` (default float32).

    Examples:
        >>> import numpy as np
        >>> import eagerflow as ef
        >>> class Maximum(ef.metrics.Metric):
        ...     def __init__(self, name="maximum"):
        ...         super().__init__(name=name)
        ...         self.best = self.add_variable(name="best", initializer=-np.inf)
        ...     def update_state(self, values):
        ...         self.best.assign(max(float(self.best), float(np.max(values))))
        ...     def result(self):
        ...         return ef.constant(float(self.best))
        ...     def reset_state(self):
        ...         self.best.assign(-np.inf)
        >>> m = Maximum()
        >>> float(m([1.0, 7.0])), float(m([3.0]))
        (7.0, 7.0)
    """

    def __init__(self, name: str | None = None, dtype: DTypeLike = None) -> None:
        self.name = name or naming.snake_case(type(self).__name__)
        self.dtype = np.dtype(dtype or np.float32)
        if self.dtype.kind != "f":
            raise ValueError(
                f"{type(self).__name__}: `dtype` must be a floating-point dtype. Received: "
                f"dtype={dtype!r}"
            )

    def add_variable(self, shape: Sequence[int] = (), initializer: Any = "zeros",
                     dtype: DTypeLike = None, name: str | None = None) -> Variable:
        """Creates a non-trainable state Variable (assign it to an attribute).

        Args:
            shape: the variable's shape.
            initializer: ``"zeros"``, ``"ones"``, a number, or ``fn(shape, dtype)``.
            dtype: default float64 (exact accumulation).
            name: the variable's name inside the metric.

        Raises:
            ValueError: for an unknown initializer name.

        Examples:
            >>> import eagerflow as ef
            >>> ef.metrics.Sum().add_variable((2,), "ones", name="extra").numpy()
            array([1., 1.])
        """
        dtype = np.dtype(dtype or np.float64)
        dims: tuple[int, ...] = tuple(shape)
        if callable(initializer):
            value = np.asarray(initializer(dims, dtype), dtype=dtype)
        elif isinstance(initializer, str) and initializer in ("zeros", "ones"):
            value = np.full(dims, 0 if initializer == "zeros" else 1, dtype=dtype)
        elif isinstance(initializer, numbers.Real) and not isinstance(initializer, bool):
            value = np.full(dims, initializer, dtype=dtype)
        else:
            raise ValueError(
                f"{type(self).__name__}.add_variable: `initializer` must be 'zeros', 'ones', "
                f"a number or a callable. Received: initializer={initializer!r}"
            )
        variable = Variable(value, trainable=False, name=f"{self.name}/{name or 'variable'}")
        self._track_new_variable(name or "variable", variable)
        return variable

    def add_weight(self, name: str | None = None, shape: Sequence[int] = (),
                   initializer: Any = "zeros", dtype: DTypeLike = None) -> Variable:
        """Keras-2 spelling of `add_variable` (name first).

        Examples:
            >>> import eagerflow as ef
            >>> ef.metrics.Sum().add_weight("count").name
            'sum/count'
        """
        return self.add_variable(shape, initializer, dtype, name)

    @abc.abstractmethod
    def update_state(self, *args: Any, **kwargs: Any) -> None:
        """Accumulates statistics from one batch."""

    @abc.abstractmethod
    def result(self) -> Any:
        """Returns the metric's value from the accumulated statistics, as a Tensor."""

    @property
    def variables(self) -> list[Variable]:
        """The state Variables, in attribute order.

        Examples:
            >>> import eagerflow as ef
            >>> [v.name for v in ef.metrics.Mean().variables]
            ['mean/total', 'mean/count']
        """
        found: list[Variable] = []

        def collect(value):
            if isinstance(value, Variable):
                if not any(value is v for v in found):
                    found.append(value)
            elif isinstance(value, dict):
                for item in value.values():
                    collect(item)
            elif isinstance(value, (list, tuple)):
                for item in value:
                    collect(item)

        collect(list(self._trackable_children().values()))
        return found

    def reset_state(self) -> None:
        """Sets every state Variable to zero (override when zero is not the start).

        Examples:
            >>> import eagerflow as ef
            >>> m = ef.metrics.Sum()
            >>> _ = m([1.0, 2.0]); m.reset_state(); float(m.result())
            0.0
        """
        for variable in self.variables:
            variable.assign(np.zeros(variable.shape, variable.dtype))

    def reset_states(self) -> None:
        """Alias of `reset_state` (the TF-2 / Keras-2 name).

        Examples:
            >>> import eagerflow as ef
            >>> m = ef.metrics.Mean()
            >>> _ = m(4.0); m.reset_states(); float(m.result())
            0.0
        """
        self.reset_state()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Updates the state with one batch and returns the new `result()`."""
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict:
        """The constructor arguments.

        Examples:
            >>> import eagerflow as ef
            >>> ef.metrics.Mean(name="loss").get_config()
            {'name': 'loss', 'dtype': 'float32'}
        """
        return {"name": self.name, "dtype": self.dtype.name}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        """Creates the metric from `get_config()` output.

        Examples:
            >>> import eagerflow as ef
            >>> ef.metrics.Mean.from_config({"name": "loss"}).name
            'loss'
        """
        return cls(**config)

    def __repr__(self) -> str:
        return f"<ef.metrics.{type(self).__name__} name={self.name!r}>"


def add_to(variable: Variable, value) -> None:
    """Adds `value` to a state Variable (a tensor read earlier keeps its value)."""
    variable.assign_add(as_tensor(value, variable.dtype))


def sample_count(values):
    """How many samples `values` holds along its first axis: a float, or a scalar tensor
    when the axis is unknown (inside a graph traced for any batch size)."""
    if not values.ndim:
        return 1.0
    if values.shape[0] is not None:
        return float(values.shape[0])
    return math.cast(array.shape(values)[0], np.float64)


def result_tensor(value, dtype):
    """A metric result as a Tensor of the metric's dtype."""
    return as_tensor(value, dtype)


def divide_no_nan(numerator: TensorLike, denominator: TensorLike) -> Tensor:
    """``numerator / denominator`` elementwise in float64, 0 where the denominator is 0."""
    numerator = as_tensor(numerator, np.float64)
    denominator = as_tensor(denominator, np.float64)
    zero = logic.equal(denominator, 0.0)
    return math.where(zero, 0.0, math.divide(numerator, math.where(zero, 1.0, denominator)))


def get(identifier: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """A metric for a name (a new instance), a config dict, or a metric or function as is.

    Names are the class names and their snake-case forms (``"accuracy"``,
    ``"sparse_categorical_accuracy"``, ``"auc"``, ``"f1_score"``, ...) plus Keras's
    aliases ``"acc"``, ``"mse"``, ``"mae"``, ``"mape"``, ``"msle"``, ``"fbeta_score"``,
    ``"logcosh"`` and ``"mean_io_u"``. A class whose constructor needs arguments
    (``MeanIoU``, ``PrecisionAtRecall``, ...) cannot be made from its name alone.

    Raises:
        InvalidArgumentError (a ValueError): for an unknown name or an identifier of
            another type.

    Examples:
        >>> import eagerflow as ef
        >>> ef.metrics.get("sparse_categorical_accuracy").name
        'sparse_categorical_accuracy'
    """
    return registry.get("metric", identifier, custom_objects)


def serialize(metric: Any) -> dict:
    """``{"class_name": ..., "config": ...}`` for a metric.

    Examples:
        >>> import eagerflow as ef
        >>> ef.metrics.serialize(ef.metrics.BinaryAccuracy(threshold=0.7))["config"]["threshold"]
        0.7
    """
    return registry.serialize(metric, "metric")


def deserialize(config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Any:
    """The inverse of `serialize`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.metrics.deserialize({"class_name": "AUC", "config": {"curve": "PR"}}).curve
        'PR'
    """
    return registry.deserialize(config, custom_objects, "metric")
