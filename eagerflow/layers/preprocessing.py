"""Feature preprocessing layers: Rescaling and Normalization (Keras 3's arguments).

`Normalization` learns its statistics with `adapt(data)` rather than by gradient descent:
on an array or tensor in one pass, on an `ef.data` Dataset (or any iterable of batches)
by merging per-batch means and variances (Chan et al.'s pairwise update, in float64), so
data larger than memory can be streamed.

Examples:
    >>> import eagerflow as ef
    >>> import numpy as np
    >>> norm = ef.layers.Normalization()
    >>> norm.adapt(np.array([[0.0, 10.0], [2.0, 30.0]]))
    >>> norm(np.array([[1.0, 20.0]]))
    ef.Tensor([[0. 0.]], shape=(1, 2), dtype=float32)
    >>> ef.layers.Rescaling(1 / 255)(ef.constant([0, 255], ef.uint8))
    ef.Tensor([0. 1.], shape=(2,), dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow import backend
from eagerflow.core import tensor
from eagerflow.layers.base import Layer
from eagerflow.ops import array as array_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import unary as unary_ops
from eagerflow.ops.typing import AxisLike, Tensor
from eagerflow.utils import dataframes


def _plain(value):
    """Config-friendly data: arrays and tensors become (nested) lists."""
    if isinstance(value, (np.ndarray, tensor.Tensor)):
        return np.asarray(value).tolist()
    return value


class Rescaling(Layer):
    """Computes ``inputs * scale + offset`` in the layer's dtype (float32 by default).

    Args:
        scale: the multiplier (a number, or an array broadcast against the inputs, e.g.
            one per channel).
        offset: the value added after scaling.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Rescaling(1 / 127.5, offset=-1)(ef.constant([0.0, 255.0]))
        ef.Tensor([-1.  1.], shape=(2,), dtype=float32)
    """

    def __init__(self, scale: Any, offset: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale = scale
        self.offset = offset
        self.supports_masking = True

    def call(self, inputs: Any) -> Tensor:
        if inputs.dtype != self.compute_dtype:
            inputs = math_ops.cast(inputs, self.compute_dtype)
        scale = math_ops.cast(np.asarray(self.scale), self.compute_dtype)
        offset = math_ops.cast(np.asarray(self.offset), self.compute_dtype)
        return math_ops.add(math_ops.multiply(inputs, scale), offset)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "scale": _plain(self.scale),
                "offset": _plain(self.offset)}


def _first(element):
    """The features of a batch that may be an ``(x, y[, sample_weight])`` tuple."""
    return element[0] if isinstance(element, (tuple, list)) else element


class Normalization(Layer):
    """Shifts and scales inputs to zero mean and unit variance per feature:
    ``(x - mean) / sqrt(variance)`` (or the inverse with ``invert=True``).

    The statistics come from `mean`/`variance` given here or from `adapt`; until then the
    layer is the identity (mean 0, variance 1).

    Args:
        axis: the axis or axes that keep separate statistics (default -1: one mean and
            variance per feature of the last axis); None for a single mean and variance
            over everything.
        mean, variance: fixed statistics (both or neither), broadcast to the kept axes.
        invert: map normalized values back (``x * sqrt(variance) + mean``).

    Raises:
        ValueError: for only one of mean/variance, mismatched shapes, or an axis outside
            the inputs' rank.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.Normalization(mean=3.0, variance=4.0, axis=None)
        >>> layer(ef.constant([1.0, 5.0]))
        ef.Tensor([-1.  1.], shape=(2,), dtype=float32)
        >>> ef.layers.Normalization(mean=3.0, variance=4.0, invert=True, axis=None)(
        ...     ef.constant([-1.0]))
        ef.Tensor([1.], shape=(1,), dtype=float32)
    """

    def __init__(self, axis: AxisLike = -1, mean: Any = None, variance: Any = None,
                 invert: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        else:
            axis = tuple(int(a) for a in axis)
        self.axis = axis
        if (mean is None) != (variance is None):
            raise ValueError(
                "Normalization: when setting the statistics directly, both `mean` and "
                f"`variance` must be set. Received: mean={mean!r}, variance={variance!r}")
        if mean is not None:
            if np.shape(mean) != np.shape(variance):
                raise ValueError(
                    "Normalization: `mean` and `variance` must have the same shape. Received: "
                    f"mean.shape={np.shape(mean)}, variance.shape={np.shape(variance)}")
            if np.ndim(mean) > len(self.axis):
                raise ValueError(
                    f"Normalization: the rank of `mean` ({np.ndim(mean)}) must be at most the "
                    f"number of kept axes ({len(self.axis)}). Received: mean.shape="
                    f"{np.shape(mean)}, axis={self.axis}")
        self.input_mean = mean
        self.input_variance = variance
        self.invert = bool(invert)
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        rank = len(input_shape)
        if any(a < -rank or a >= rank for a in self.axis):
            raise ValueError(
                f"Normalization: every `axis` must be in [-{rank}, {rank}) for inputs of "
                f"shape {tuple(input_shape)}. Received: axis={self.axis}")
        self._keep = tuple(sorted(a % rank for a in self.axis))
        for a in self._keep:
            if input_shape[a] is None:
                raise ValueError(
                    f"Normalization: the kept axis {a} must have a known size. Received: "
                    f"input_shape={tuple(input_shape)}, axis={self.axis}")
        self._reduce = tuple(a for a in range(rank) if a not in self._keep)
        self._broadcast = [input_shape[a] if a in self._keep else 1 for a in range(rank)]
        stats_shape = tuple(input_shape[a] for a in self._keep)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight("mean", stats_shape, initializer="zeros",
                                              trainable=False)
            self.adapt_variance = self.add_weight("variance", stats_shape, initializer="ones",
                                                  trainable=False)
            self.count = self.add_weight("count", (), dtype="int64", initializer="zeros",
                                         trainable=False)
        else:
            # Given statistics align with the last kept axes, then broadcast.
            shape = [1] * rank
            for i, size in enumerate(reversed(np.shape(self.input_mean))):
                shape[self._keep[-1 - i]] = size
            self._fixed = [np.broadcast_to(np.reshape(np.asarray(v, np.float64), shape),
                                           self._broadcast).astype(self.compute_dtype)
                           for v in (self.input_mean, self.input_variance)]

    def _statistics(self):
        if self.input_mean is not None:
            return self._fixed
        return [array_ops.reshape(math_ops.cast(v, self.compute_dtype), self._broadcast)
                for v in (self.adapt_mean, self.adapt_variance)]

    @property
    def mean(self) -> Tensor:
        """The mean in the inputs' broadcast shape (Keras's ``layer.mean``: ``(1, 2)`` for
        inputs ``(batch, 2)``); the adapted weight itself is ``adapt_mean``."""
        return self._stat(0)

    @property
    def variance(self) -> Tensor:
        """The variance in the inputs' broadcast shape (the weight is ``adapt_variance``)."""
        return self._stat(1)

    def _stat(self, which: int) -> Tensor:
        if not self.built:
            raise AttributeError(
                f"Normalization layer '{self.name}' has no statistics before it is built: call "
                "adapt(), or call the layer on data")
        return tensor.new_tensor(np.asarray(self._statistics()[which]))

    def call(self, inputs: Any) -> Tensor:
        if inputs.dtype != self.compute_dtype:
            inputs = math_ops.cast(inputs, self.compute_dtype)
        mean, variance = self._statistics()
        stddev = math_ops.maximum(unary_ops.sqrt(variance), backend.epsilon())
        if self.invert:
            return math_ops.add(mean, math_ops.multiply(inputs, stddev))
        return math_ops.divide(math_ops.subtract(inputs, mean), stddev)

    def adapt(self, data: Any, batch_size: Any = None, steps: Any = None) -> None:
        """Computes the mean and variance of `data` for each position of the kept axes.

        Args:
            data: a NumPy array or tensor (all at once, or in chunks of `batch_size`
                rows), an `ef.data` Dataset of batches (a Dataset of single feature
                vectors is batched by 128, as Keras does), or any iterable of batches;
                ``(x, y)`` elements contribute their `x`.
            batch_size: for arrays, the rows per chunk (default: all at once).
            steps: for datasets and iterables, the number of batches to read (default:
                all).

        Raises:
            ValueError: when the layer was given `mean`/`variance`, when the data is empty,
                or when a batch's kept axes differ from the layer's.
            TypeError: for data that is neither an array, a tensor nor an iterable, and for
                a pandas Series or DataFrame (as in Keras 3: pass ``data.to_numpy()``).

        Examples:
            >>> import eagerflow as ef
            >>> import numpy as np
            >>> layer = ef.layers.Normalization(axis=None)
            >>> rows = np.arange(8.0).reshape(8, 1)
            >>> ds = ef.data.Dataset.from_tensor_slices(rows).batch(3)
            >>> layer.adapt(ds)
            >>> float(layer.adapt_mean.numpy()), float(layer.adapt_variance.numpy())
            (3.5, 5.25)
        """
        if self.input_mean is not None:
            raise ValueError(
                "Normalization: adapt() cannot be used on a layer given `mean` and "
                f"`variance` (layer '{self.name}'); create it without them to adapt.")
        if dataframes.is_pandas(data):
            raise TypeError(
                f"Normalization.adapt() takes arrays, tensors, datasets or iterables of "
                f"batches, not a pandas {type(data).__name__}: iterating one yields its "
                f"{'column names' if hasattr(data, 'columns') else 'single values'}, and "
                "Keras 3 raises a TypeError here too. Pass its values: "
                "adapt(data.to_numpy()) (one column: reshape to (n, 1), or use axis=None).")
        if isinstance(data, (np.ndarray, tensor.Tensor)):
            array = np.asarray(data)
            chunk = len(array) if not batch_size or not array.ndim else int(batch_size)
            batches = [array[i:i + chunk] for i in range(0, max(len(array), 1), max(chunk, 1))]
        elif hasattr(data, "element_spec") and hasattr(data, "batch"):
            spec = _first(data.element_spec)
            if len(getattr(spec, "shape", ())) <= 1:
                data = data.batch(128)
            batches = data
        elif hasattr(data, "__iter__"):
            batches = data
        else:
            raise TypeError(
                "Normalization.adapt() takes a NumPy array, a tensor, an ef.data Dataset or an "
                f"iterable of batches. Received: data of type {type(data).__name__}")
        total_mean: Any = None
        total_var: Any = None
        total_count = 0
        for step, batch in enumerate(batches):
            if steps is not None and step >= steps:
                break
            values = np.asarray(_first(batch), np.float64)
            if not self.built:
                self._build_from_shape(values.shape)
            self._check_batch(values.shape)
            count = int(np.prod([values.shape[a] for a in self._reduce]))
            if count == 0:
                continue
            mean = values.mean(axis=self._reduce)
            var = values.var(axis=self._reduce)
            if total_mean is None:
                total_mean, total_var, total_count = mean, var, count
                continue
            # Merge two (mean, variance, count) summaries exactly.
            merged = total_count + count
            delta = mean - total_mean
            total_mean = total_mean + delta * (count / merged)
            total_var = (total_var * total_count + var * count
                         + delta ** 2 * (total_count * count / merged)) / merged
            total_count = merged
        if total_mean is None:
            raise ValueError(
                f"Normalization: adapt() received no data (layer '{self.name}'); pass a "
                "non-empty array or dataset.")
        self.adapt_mean.assign(total_mean.astype(self.adapt_mean.dtype))
        self.adapt_variance.assign(total_var.astype(self.adapt_variance.dtype))
        self.count.assign(total_count)

    def _check_batch(self, shape) -> None:
        expected = self._build_input_shape
        if len(shape) != len(expected) or any(shape[a] != expected[a] for a in self._keep):
            raise ValueError(
                f"Normalization: adapt() got a batch of shape {tuple(shape)}, but the layer "
                f"'{self.name}' keeps axes {self._keep} of inputs shaped {tuple(expected)}.")

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": list(self.axis), "invert": self.invert,
                "mean": _plain(self.input_mean), "variance": _plain(self.input_variance)}

