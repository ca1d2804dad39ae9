"""The `Loss` base class and the reductions every loss shares (Keras 3 semantics).

A loss object computes one value per sample with `call(y_true, y_pred)`, multiplies them
by `sample_weight` when given, and reduces them:

* ``"sum_over_batch_size"`` (default, also ``"mean"``): the sum divided by the number of
  per-sample values (so a zero weight still counts in the denominator, as in Keras);
* ``"mean_with_sample_weight"``: the sum divided by the sum of the weights;
* ``"sum"``: the sum;
* ``"none"`` (or None): the weighted per-sample values themselves.

A mask on `y_pred` (from `Masking` or `Embedding(mask_zero=True)`) weighs the masked
steps 0, and ``"sum_over_batch_size"`` then divides by the number of unmasked values, as in
Keras 3 (`mask_weights`).

Everything is written in eagerflow ops, so losses are differentiable (to any order).

Examples:
    >>> import eagerflow as ef
    >>> mse = ef.losses.MeanSquaredError()
    >>> float(mse([[0.0], [1.0]], [[1.0], [1.0]]))
    0.5
    >>> float(mse([[0.0], [1.0]], [[1.0], [1.0]], sample_weight=[2.0, 0.0]))
    1.0
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import Any

import numpy as np

from eagerflow import backend
from eagerflow.core import errors, masks, nest, tensor
from eagerflow.ops import array_ops
from eagerflow.ops import creation as creation_ops
from eagerflow.ops import logic as logic_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import reduce as reduce_ops
from eagerflow.ops.typing import TensorLike
from eagerflow.saving import registry
from eagerflow.utils import naming

REDUCTIONS = ("sum_over_batch_size", "mean", "mean_with_sample_weight", "sum", "none", None)


def standardize_reduction(reduction, owner: str = "Loss"):
    """Returns `reduction` if it is one of `REDUCTIONS`, else raises ValueError."""
    if reduction not in REDUCTIONS:
        raise ValueError(
            f"{owner}: invalid value for argument `reduction`. Expected one of "
            f"{list(REDUCTIONS)}. Received: reduction={reduction!r}"
        )
    return reduction


def as_prediction(y_pred: TensorLike) -> tensor.Tensor:
    """`y_pred` as a floating-point Tensor (integers become float32)."""
    y_pred = creation_ops.convert_to_tensor(y_pred)
    if y_pred.dtype.kind != "f":
        y_pred = math_ops.cast(y_pred, np.float32)
    return y_pred


def loss_dtype(dtype: Any, owner: str) -> str:
    """The floating dtype a loss computes in: `dtype`, or `ef.backend.floatx()` for None.

    Raises:
        TypeError: for bfloat16 (NumPy has no such dtype) or a dtype that is not floating
            (Keras computes an integer "loss" by truncating the predictions).

    Examples:
        >>> loss_dtype(None, "Loss")
        'float32'
        >>> loss_dtype("float64", "Loss")
        'float64'
    """
    if dtype is None:
        return backend.floatx()
    name = getattr(dtype, "name", dtype)
    if name == "bfloat16":
        raise TypeError(f"{owner}: dtype='bfloat16' is not supported: NumPy has no bfloat16, "
                        "so eagerflow has none; use 'float16', 'float32' or 'float64'.")
    try:
        resolved = np.dtype(name)
    except TypeError:
        raise TypeError(f"{owner}: `dtype` must be a floating dtype name such as 'float32'. "
                        f"Received: dtype={dtype!r}") from None
    if resolved.kind != "f":
        raise TypeError(f"{owner}: `dtype` must be a floating dtype ('float16', 'float32' or "
                        f"'float64'): a loss computed in {resolved.name} would truncate the "
                        f"predictions. Received: dtype={dtype!r}")
    return resolved.name


def as_dtype_tensor(value: TensorLike, dtype: str) -> tensor.Tensor:
    """`value` as a Tensor of `dtype`, cast when it holds another dtype (Keras's
    ``convert_to_tensor(x, dtype=loss.dtype)``)."""
    value = creation_ops.convert_to_tensor(value)
    return value if value.dtype == dtype else math_ops.cast(value, dtype)


def _as_loss_dtype(value: Any, dtype: str) -> Any:
    """Targets or predictions as tensors of the loss's dtype; a dict's values one by one
    (a list of numbers is one array, as it always was)."""
    if isinstance(value, dict):
        return {key: _as_loss_dtype(item, dtype) for key, item in value.items()}
    return as_dtype_tensor(value, dtype)


def as_target(y_true: TensorLike, like: tensor.Tensor) -> tensor.Tensor:
    """`y_true` as a Tensor of `like`'s dtype."""
    y_true = creation_ops.convert_to_tensor(y_true)
    if y_true.dtype != like.dtype:
        y_true = math_ops.cast(y_true, like.dtype)
    return y_true


def squeeze_or_expand_to_same_rank(
        x1: tensor.Tensor, x2: tensor.Tensor, expand_rank_1: bool = True
) -> tuple[tensor.Tensor, tensor.Tensor]:
    """Aligns ranks that differ by one through a trailing axis of size 1 (Keras's rule).

    Examples:
        >>> import eagerflow as ef
        >>> a, b = squeeze_or_expand_to_same_rank(ef.ones((4, 1)), ef.ones((4,)))
        >>> a.shape, b.shape
        ((4, 1), (4, 1))
    """
    rank_1, rank_2 = x1.ndim, x2.ndim
    if rank_1 == rank_2 + 1 and x1.shape[-1] == 1:
        if rank_2 == 1 and expand_rank_1:
            x2 = array_ops.expand_dims(x2, -1)
        else:
            x1 = array_ops.squeeze(x1, -1)
    elif rank_2 == rank_1 + 1 and x2.shape[-1] == 1:
        if rank_1 == 1 and expand_rank_1:
            x1 = array_ops.expand_dims(x1, -1)
        else:
            x2 = array_ops.squeeze(x2, -1)
    return x1, x2


def check_same_shape(y_true, y_pred, owner: str) -> None:
    if y_true.shape != y_pred.shape:
        raise errors.InvalidArgumentError(
            f"{owner}: y_true and y_pred must have the same shape. Received: "
            f"y_true.shape={y_true.shape}, y_pred.shape={y_pred.shape}. "
            + _shape_advice(y_true.shape, y_pred.shape, owner)
        )


def _shape_advice(true_shape: tuple, pred_shape: tuple, owner: str) -> str:
    """What to do about targets whose shape differs from the predictions'."""
    if owner == "categorical_crossentropy" and pred_shape and true_shape in (
            pred_shape[:-1], pred_shape[:-1] + (1,)):
        return (f"y_true looks like integer class labels (one per sample, not {pred_shape[-1]} "
                "one-hot columns): use loss='sparse_categorical_crossentropy' "
                "(ef.losses.SparseCategoricalCrossentropy), or one-hot encode the labels with "
                f"ef.one_hot(labels, {pred_shape[-1]}).")
    if "crossentropy" in owner:  # Keras 3 raises as well
        return "Give the targets the model's output shape."
    # Keras's regression and probabilistic losses broadcast one against the other.
    return ("eagerflow does not broadcast one against the other (Keras does, silently): "
            "give the targets the model's output shape.")


def _align_weights(values, sample_weight):
    """Broadcasts sample weights over per-sample values, aligned on the leading axes."""
    weights = as_target(sample_weight, values)
    given = weights.shape
    if weights.ndim == values.ndim + 1 and weights.shape[-1] == 1:
        weights = array_ops.squeeze(weights, -1)
    if weights.ndim < values.ndim:
        weights = array_ops.reshape(weights, weights.shape + (1,) * (values.ndim - weights.ndim))
    try:
        if np.broadcast_shapes(weights.shape, values.shape) != values.shape:
            raise ValueError
    except ValueError:
        raise errors.InvalidArgumentError(
            f"sample_weight of shape {given} cannot be broadcast to the per-sample losses of "
            f"shape {values.shape}; give one weight per sample (shape (batch,)) or one per "
            "loss value."
        ) from None
    return weights


def reduce_weighted_values(values: tensor.Tensor, sample_weight: TensorLike | None = None,
                           reduction: str | None = "sum_over_batch_size") -> Any:
    """Weights per-sample loss values and reduces them (see the module docstring).

    Args:
        values: per-sample losses (a floating Tensor).
        sample_weight: None, or weights broadcastable over `values` from the leading axes.
        reduction: one of `REDUCTIONS`.

    Returns:
        A scalar Tensor, or the weighted values for ``"none"``.

    Raises:
        InvalidArgumentError: if `sample_weight` cannot be broadcast to the values.

    Examples:
        >>> import eagerflow as ef
        >>> reduce_weighted_values(ef.constant([1.0, 3.0]), [1.0, 0.0], "sum")
        ef.Tensor(1.0, shape=(), dtype=float32)
    """
    weights = None
    if sample_weight is not None:
        sample_weight = creation_ops.convert_to_tensor(sample_weight)
        if values.ndim == 1 and sample_weight.ndim == 2 and sample_weight.shape[-1] == 1:
            values = array_ops.expand_dims(values, -1)  # Keras: (batch,) by (batch, 1) weights
        weights = _align_weights(values, sample_weight)
        values = math_ops.multiply(values, weights)
    if reduction is None or reduction == "none":
        return values
    total = reduce_ops.reduce_sum(values)
    if reduction == "sum":
        return total
    if reduction == "mean_with_sample_weight" and weights is not None:
        denominator: Any = reduce_ops.reduce_sum(
            array_ops.broadcast_to(weights, array_ops.shape(values)))
    elif None in values.shape:  # a dimension unknown while tracing: counted at run time
        denominator = math_ops.cast(array_ops.size(values), total.dtype)
    else:
        denominator = float(np.prod(values.shape))
    return _divide_no_nan(total, denominator)


def mask_weights(mask: TensorLike, sample_weight: TensorLike | None, dtype: Any,
                 reduction: str | None) -> tensor.Tensor:
    """`sample_weight` times a boolean `mask` (Keras 3's rule for masked predictions).

    For ``"sum_over_batch_size"`` (and ``"mean"``) the unmasked entries weigh
    ``mask.size / count(mask)``, so the reduced loss is the weighted sum divided by the
    number of unmasked values; otherwise they weigh 1. Weights of shape ``(batch,)`` are
    aligned on the mask's leading axis.

    Examples:
        >>> import eagerflow as ef
        >>> mask_weights(ef.constant([[True, False]]), None, "float32", "sum")
        ef.Tensor([[1. 0.]], shape=(1, 2), dtype=float32)
        >>> mask_weights(ef.constant([[True, False]]), [3.0], "float32", "sum_over_batch_size")
        ef.Tensor([[6. 0.]], shape=(1, 2), dtype=float32)
    """
    mask = creation_ops.convert_to_tensor(mask)
    weights = math_ops.cast(mask, dtype)
    if reduction in ("sum_over_batch_size", "mean"):
        total = math_ops.cast(array_ops.size(mask), dtype)
        weights = math_ops.multiply(
            weights, _divide_no_nan(total, reduce_ops.reduce_sum(weights)))
    if sample_weight is not None:
        weights = math_ops.multiply(_align_weights(weights, sample_weight), weights)
    return weights


def _broadcastable_prefix(mask_shape: tuple, values_shape: tuple) -> bool:
    """Whether a mask matches the leading axes of the values (unknown sizes match)."""
    return all(m is None or v is None or m == v or m == 1
               for m, v in zip(mask_shape, values_shape, strict=False))


def _divide_no_nan(total, denominator):
    """``total / denominator``, or 0 when the denominator is 0 (Keras: an empty or all-zero
    weighted batch has loss 0)."""
    if not isinstance(denominator, tensor.Tensor):
        return math_ops.multiply(total, 0.0) if denominator == 0 else math_ops.divide(
            total, denominator)
    zero = logic_ops.equal(denominator, 0)
    return math_ops.where(zero, math_ops.multiply(total, 0.0),
                          math_ops.divide(total, math_ops.where(zero, 1.0, denominator)))


class Loss(abc.ABC):
    """Base class of losses: subclasses implement ``call(y_true, y_pred)``.

    Args:
        name: the loss's name (default: the class name in snake case).
        reduction: how per-sample values are combined (see `REDUCTIONS`; default
            ``"sum_over_batch_size"``).
        dtype: the floating dtype of the computation (default: `ef.backend.floatx()`,
            ``"float32"``). As in Keras 3, targets and predictions are cast to it before
            `call`, so float64 data gives a float32 loss unless ``dtype="float64"``.

    Raises:
        ValueError: for an unknown reduction.
        TypeError: for a dtype that is not floating, or bfloat16 (NumPy has none).

    Examples:
        >>> import eagerflow as ef
        >>> class Cubed(ef.losses.Loss):
        ...     def call(self, y_true, y_pred):
        ...         return ef.reduce_mean((y_pred - y_true) ** 3, axis=-1)
        >>> float(Cubed(reduction="sum")([[0.0], [0.0]], [[1.0], [2.0]]))
        9.0
    """

    def __init__(self, name: str | None = None,
                 reduction: str | None = "sum_over_batch_size", dtype: Any = None) -> None:
        self.reduction = standardize_reduction(reduction, type(self).__name__)
        self.name = name or naming.snake_case(type(self).__name__)
        self._dtype = loss_dtype(dtype, type(self).__name__)

    @property
    def dtype(self) -> str:
        """The dtype the loss computes in (Keras 3's `Loss.dtype`)."""
        return self._dtype

    def __call__(self, y_true: TensorLike, y_pred: TensorLike,
                 sample_weight: TensorLike | None = None) -> Any:
        """Computes the weighted, reduced loss.

        Args:
            y_true: targets.
            y_pred: predictions (probabilities or logits, depending on the loss).
            sample_weight: optional weights, one per sample or one per loss value.

        Returns:
            A scalar Tensor (or per-sample values with ``reduction="none"``).
        """
        mask = masks.get_mask(y_pred) if isinstance(y_pred, tensor.Tensor) else None
        y_pred, y_true = _as_loss_dtype(y_pred, self.dtype), _as_loss_dtype(y_true, self.dtype)
        values = self.call(y_true, y_pred)
        out_mask = masks.get_mask(values) if isinstance(values, tensor.Tensor) else None
        if isinstance(values, tensor.Tensor) and values.dtype != self.dtype:
            values = math_ops.cast(values, self.dtype)
        if out_mask is not None:  # e.g. ignore_class of a sparse cross-entropy
            mask = out_mask if mask is None else logic_ops.logical_and(
                creation_ops.convert_to_tensor(mask), out_mask)
        if mask is not None:
            values = creation_ops.convert_to_tensor(values)
            mask = creation_ops.convert_to_tensor(mask)
            mask_shape = tuple(mask.shape)
            if len(mask_shape) > values.ndim or not _broadcastable_prefix(mask_shape,
                                                                          values.shape):
                raise errors.InvalidArgumentError(
                    f"{self.name}: y_pred carries a mask of shape {mask_shape} (from Masking, "
                    "Embedding(mask_zero=True) or ignore_class) but the per-sample losses "
                    f"have shape {tuple(values.shape)}; the mask must cover their leading "
                    "axes. Return one loss value per masked step, or drop the mask."
                )
            sample_weight = mask_weights(mask, sample_weight, values.dtype, self.reduction)
        return reduce_weighted_values(values, sample_weight, self.reduction)

    @abc.abstractmethod
    def call(self, y_true: TensorLike, y_pred: TensorLike) -> Any:
        """Returns the per-sample loss values (subclasses implement it)."""

    def get_config(self) -> dict:
        """The constructor arguments.

        Examples:
            >>> import eagerflow as ef
            >>> ef.losses.Huber(delta=2.0).get_config()
            {'name': 'huber_loss', 'reduction': 'sum_over_batch_size', 'delta': 2.0}
        """
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        """Creates the loss from `get_config()` output."""
        return cls(**config)

    def __repr__(self) -> str:
        return f"<ef.losses.{type(self).__name__} name={self.name!r}>"


class LossFunctionWrapper(Loss):
    """Turns a per-sample loss function ``fn(y_true, y_pred, **kwargs)`` into a `Loss`.

    `ef.losses.get("mse")` returns the function `mean_squared_error`, as in Keras; wrap
    such a function to get reductions and sample weights. `compile(loss=fn)` wraps a
    function this way. As in Keras, targets and predictions whose ranks differ by a
    trailing axis of size 1 are aligned before `fn` sees them (`(batch,)` targets against
    `(batch, 1)` predictions become `(batch, 1)`); a `Loss` subclass gets them as given.

    Args:
        fn: the per-sample loss function.
        reduction: see `Loss`.
        name: the loss's name (default: the function's name).
        **kwargs: extra keyword arguments for `fn`.

    Examples:
        >>> import eagerflow as ef
        >>> loss = ef.losses.LossFunctionWrapper(ef.losses.mean_absolute_error)
        >>> float(loss([[1.0, 2.0]], [[2.0, 4.0]]))
        1.5
        >>> custom = ef.losses.LossFunctionWrapper(lambda t, p: ef.reduce_mean((t - p) ** 2))
        >>> float(custom(ef.constant([1.0, 2.0]), ef.constant([[1.0], [4.0]])))  # not (2, 2)
        2.0
    """

    def __init__(self, fn: Callable[..., Any], reduction: str | None = "sum_over_batch_size",
                 name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(name=name or getattr(fn, "__name__", None), reduction=reduction,
                         dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true: TensorLike, y_pred: TensorLike) -> Any:
        """Calls `fn` on the targets and predictions aligned to the same rank (Keras's
        `squeeze_or_expand_to_same_rank`): ``(batch,)`` targets against ``(batch, 1)``
        predictions become ``(batch, 1)``, so a function that broadcasts one against the
        other gets matching shapes, not a ``(batch, batch)`` matrix."""
        if nest.is_nested(y_true) or nest.is_nested(y_pred):
            pairs = [squeeze_or_expand_to_same_rank(creation_ops.convert_to_tensor(t),
                                                    creation_ops.convert_to_tensor(p))
                     for t, p in zip(nest.flatten(y_true), nest.flatten(y_pred), strict=True)]
            y_true = nest.pack_sequence_as(y_true, [t for t, _ in pairs])
            y_pred = nest.pack_sequence_as(y_pred, [p for _, p in pairs])
        else:
            y_true, y_pred = squeeze_or_expand_to_same_rank(
                creation_ops.convert_to_tensor(y_true), creation_ops.convert_to_tensor(y_pred))
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict:
        return {**super().get_config(), **self._fn_kwargs}


registry.register("loss", LossFunctionWrapper)


def get(identifier: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Returns a loss for a name, a config dict, a `Loss` or a function (as is), or None.

    As in Keras, a function name or alias (``"mse"``, ``"mean_squared_error"``,
    ``"sparse_categorical_crossentropy"``) gives the per-sample function, and a class name
    (``"MeanSquaredError"``) an instance with default arguments; wrap a function with
    `LossFunctionWrapper` to get reductions and sample weights.

    Raises:
        InvalidArgumentError (a ValueError): for an unknown name or an identifier of
            another type.

    Examples:
        >>> import eagerflow as ef
        >>> ef.losses.get("mse") is ef.losses.mean_squared_error
        True
        >>> ef.losses.get({"class_name": "BinaryCrossentropy", "config": {"from_logits": True}})
        <ef.losses.BinaryCrossentropy name='binary_crossentropy'>
    """
    return registry.get("loss", identifier, custom_objects)


def serialize(loss: Any) -> Any:
    """A loss object as ``{"class_name", "config"}``; a built-in function as its name.

    Raises:
        InvalidArgumentError: for a function that is not a registered loss.

    Examples:
        >>> import eagerflow as ef
        >>> ef.losses.serialize(ef.losses.mean_absolute_error)
        'mean_absolute_error'
    """
    return registry.serialize(loss, "loss")


def deserialize(config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Any:
    """The inverse of `serialize`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.losses.deserialize({"class_name": "Huber", "config": {"delta": 2.0}}).delta
        2.0
    """
    return registry.deserialize(config, custom_objects, "loss")
