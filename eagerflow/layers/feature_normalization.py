"""`Normalization`: standardizes features with a mean and variance learned by `adapt`.

``(x - mean) / max(sqrt(variance), 1e-7)`` along the kept `axis` (per feature by default),
or the inverse with ``invert=True``. `adapt(data)` computes the statistics of an array or of
an `ef.data.Dataset` of batches in one streaming pass (each batch's mean and variance are
merged with the running ones by their counts, so nothing is held in memory), as Keras 3's
layer does; or pass `mean` and `variance` directly.

Examples:
    >>> import eagerflow as ef, numpy as np
    >>> layer = ef.layers.Normalization()
    >>> layer.adapt(np.array([[1.0, 10.0], [3.0, 30.0]]))
    >>> layer([[2.0, 20.0]]).numpy()
    array([[0., 0.]], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import nest
from eagerflow.layers.base import Layer
from eagerflow.ops import array as array_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import unary as unary_ops

_EPSILON = 1e-7


class Normalization(Layer):
    """Feature-wise standardization (Keras 3's ``layers.Normalization``).

    Args:
        axis: the axis (or tuple of axes) that keeps its own statistics (default -1: one
            mean and variance per feature); None for a single scalar mean and variance.
        mean, variance: the statistics, instead of `adapt` (both or neither); scalars or
            arrays broadcast against the kept axes.
        invert: apply the inverse, ``mean + x * sqrt(variance)``, to undo a normalization.

    Raises:
        ValueError: for only one of `mean`/`variance`, or data of the wrong shape in
            `adapt`. (A layer used before `adapt` normalizes with mean 0, variance 1.)

    Examples:
        >>> import eagerflow as ef, numpy as np
        >>> data = ef.data.Dataset.from_tensor_slices(np.arange(8.0).reshape(4, 2)).batch(3)
        >>> layer = ef.layers.Normalization(axis=None)
        >>> layer.adapt(data)
        >>> round(float(layer.mean), 4), round(float(layer.variance), 4)
        (3.5, 5.25)
    """

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            self.axis = ()
        elif isinstance(axis, int) and not isinstance(axis, bool):
            self.axis = (axis,)
        else:
            self.axis = tuple(int(a) for a in axis)
        if (mean is None) != (variance is None):
            raise ValueError("Normalization: pass both `mean` and `variance` or neither "
                             f"(then call adapt()). Received: mean={mean!r}, "
                             f"variance={variance!r}")
        self.input_mean = mean
        self.input_variance = variance
        self.invert = bool(invert)
        self.supports_masking = True

    # -- statistics -----------------------------------------------------------------------
    def _kept(self, shape) -> tuple:
        rank = len(shape)
        kept = tuple(sorted(a % rank for a in self.axis))
        if any(a >= rank for a in self.axis) or any(a < -rank for a in self.axis):
            raise ValueError(f"Normalization: axis {self.axis} is out of range for inputs of "
                             f"rank {rank} (shape {tuple(shape)})")
        return kept

    def _broadcast_shape(self, shape) -> tuple:
        kept = self._kept(shape)
        return tuple(shape[a] if a in kept else 1 for a in range(len(shape)))

    def build(self, input_shape):
        kept = self._kept(input_shape)
        shape = tuple(input_shape[a] for a in kept)
        if None in shape:
            raise ValueError(f"Normalization: the kept axes {self.axis} of the inputs must "
                             f"have known sizes. Received: input_shape={tuple(input_shape)}")
        # Non-trainable weights, so that saved weights and checkpoints keep the statistics.
        self.adapt_mean = self.add_weight("mean", shape, initializer="zeros", trainable=False)
        self.adapt_variance = self.add_weight("variance", shape, initializer="ones",
                                              trainable=False)
        if self.input_mean is not None:
            self.adapt_mean.assign(np.broadcast_to(
                np.asarray(self.input_mean, np.float32), shape))
            self.adapt_variance.assign(np.broadcast_to(
                np.asarray(self.input_variance, np.float32), shape))

    def adapt(self, data, batch_size=None, steps=None) -> None:
        """Computes the mean and variance of `data` (an array, a tensor, or a Dataset of
        batches; the statistics are merged batch by batch).

        Args:
            data: the features (not ``(x, y)`` pairs).
            batch_size: for arrays, the size of the batches streamed (default: all at once).
            steps: the number of Dataset batches to read (default: all).

        Raises:
            ValueError: for ``(features, labels)`` elements, empty data, or batches whose
                kept axes differ.
        """
        count, mean, m2, kept_shape, first_shape = 0, None, None, None, None
        for batch in self._batches(data, batch_size, steps):
            batch = np.asarray(batch, np.float64)
            if batch.ndim == 0:
                batch = batch.reshape(1)
            kept = self._kept(batch.shape)
            reduce = tuple(a for a in range(batch.ndim) if a not in kept)
            shape = tuple(batch.shape[a] for a in kept)
            if kept_shape is None:
                kept_shape, first_shape = shape, batch.shape
            elif shape != kept_shape:
                raise ValueError(f"Normalization.adapt: batches differ on the kept axes "
                                 f"{self.axis}: {kept_shape} then {shape}")
            n = int(np.prod([batch.shape[a] for a in reduce])) if reduce else 1
            if n == 0:
                continue
            b_mean = batch.mean(axis=reduce, keepdims=True)
            b_m2 = ((batch - b_mean) ** 2).sum(axis=reduce, keepdims=True)
            if mean is None:
                count, mean, m2 = n, b_mean, b_m2
            else:  # Chan et al.'s pairwise merge of two (count, mean, M2) summaries
                total = count + n
                delta = b_mean - mean
                mean = mean + delta * (n / total)
                m2 = m2 + b_m2 + delta ** 2 * (count * n / total)
                count = total
        if mean is None:
            raise ValueError("Normalization.adapt: the data is empty")
        if not self.built:
            self._build_from_shape(first_shape)
        if tuple(self.adapt_mean.shape) != kept_shape:
            raise ValueError(f"Normalization.adapt: the data's kept axes have sizes "
                             f"{kept_shape}, the layer was built for "
                             f"{tuple(self.adapt_mean.shape)}")
        self.adapt_mean.assign(mean.reshape(kept_shape).astype(np.float32))
        self.adapt_variance.assign((m2 / count).reshape(kept_shape).astype(np.float32))

    @staticmethod
    def _batches(data, batch_size, steps):
        from eagerflow.data import dataset as dataset_lib

        if isinstance(data, dataset_lib.Dataset):
            for index, element in enumerate(data):
                if steps is not None and index >= steps:
                    break
                if nest.is_nested(element):
                    raise ValueError(
                        "Normalization.adapt expects a Dataset of feature batches, got "
                        "elements with a structure (e.g. (features, labels)); map them to "
                        "the features first: dataset.map(lambda x, y: x)")
                yield element.numpy()
            return
        array = np.asarray(data.numpy() if hasattr(data, "numpy") else data)
        if batch_size is None or array.ndim == 0:
            yield array
            return
        for start in range(0, len(array), int(batch_size)):
            yield array[start:start + int(batch_size)]

    @property
    def mean(self):
        """The mean used, with the kept axes' shape (a Variable once built)."""
        self._check_ready()
        return self.adapt_mean

    @property
    def variance(self):
        """The variance used, with the kept axes' shape (a Variable once built)."""
        self._check_ready()
        return self.adapt_variance

    def _check_ready(self):
        if not self.built:
            raise ValueError("Normalization: no statistics yet; call adapt(data), pass "
                             "mean= and variance=, or call the layer on data first")

    def call(self, inputs):
        if inputs.dtype != self.dtype:
            inputs = math_ops.cast(inputs, self.dtype)
        shape = self._broadcast_shape(inputs.shape)
        shape = tuple(1 if n is None else n for n in shape)
        mean = array_ops.reshape(self.adapt_mean, shape)
        scale = math_ops.maximum(unary_ops.sqrt(array_ops.reshape(self.adapt_variance, shape)),
                                 _EPSILON)
        if self.invert:
            return math_ops.add(math_ops.multiply(inputs, scale), mean)
        return math_ops.divide(math_ops.subtract(inputs, mean), scale)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        config = super().get_config()
        to_list = lambda v: v.tolist() if isinstance(v, np.ndarray) else v  # noqa: E731
        config.update(axis=None if self.axis == () else list(self.axis),
                      mean=to_list(self.input_mean), variance=to_list(self.input_variance),
                      invert=self.invert)
        return config


