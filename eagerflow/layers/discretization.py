"""`Discretization`: numbers to bucket indices by bin boundaries (Keras 3's layer).

A value ``x`` goes to bucket ``i`` when ``boundaries[i-1] <= x < boundaries[i]`` (below
the first boundary: 0; at or above the last: ``len(boundaries)``). Boundaries are given,
or `adapt` estimates the ``num_bins`` quantiles of the data with Keras's streaming
summary, so that adapting gives the same boundaries as Keras:

* each batch is sorted and thinned to about ``1 / epsilon`` evenly spaced values, each
  weighted by the number of values it stands for;
* summaries merge by sorting their union and, once larger than ``1 / epsilon`` points,
  compressing it: the values at cumulative-weight fractions ``epsilon, 2 epsilon, ..., 1``
  are read off by linear interpolation;
* the boundaries are the same compression at fractions ``1/num_bins, ...``, without the
  last one (the maximum).

Examples:
    >>> import eagerflow as ef
    >>> layer = ef.layers.Discretization(bin_boundaries=[0.0, 1.0, 2.0])
    >>> layer([[-1.5, 1.0, 3.4, 0.5]]).numpy()
    array([[0, 2, 3, 1]], dtype=int32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.core import context, dtypes, tensor
from eagerflow.graph import python_ops
from eagerflow.layers import lookup
from eagerflow.layers.base import Layer
from eagerflow.ops.typing import DTypeLike

_MODES = ("int", "one_hot", "multi_hot", "count")


def _summarize(values: np.ndarray, epsilon: float) -> np.ndarray:
    """A ``(2, n)`` summary of `values`: sorted sample points and their weights."""
    values = np.sort(values.reshape(-1))
    step = max(values.size / (1.0 / epsilon), 1.0)  # Keras's arithmetic, to the last bit
    points = values[int(step - 1)::int(step)]
    return np.stack([points, np.full(points.shape, step, points.dtype)])


def _compress(summary: np.ndarray, epsilon: float) -> np.ndarray:
    """The summary read at cumulative-weight fractions ``epsilon, 2 epsilon, ..., 1``."""
    if summary.shape[1] * epsilon < 1:
        return summary
    fractions = epsilon + np.arange(0.0, 1.0, epsilon)
    cumulative = summary[1].cumsum()
    at = cumulative / cumulative[-1]
    points = np.interp(fractions, at, summary[0])
    weights = np.diff(np.interp(fractions, at, cumulative), prepend=0.0)
    return np.stack((points, weights)).astype(np.float32)


def _merge(first: np.ndarray, second: np.ndarray, epsilon: float) -> np.ndarray:
    merged = np.concatenate((first, second), axis=1)
    return _compress(merged[:, np.argsort(merged[0])], epsilon)


class Discretization(Layer):
    """Buckets numbers by boundaries, given or learned from quantiles with `adapt`.

    Args:
        bin_boundaries: increasing boundaries (``n`` of them make ``n + 1`` buckets).
        num_bins: with `adapt`, how many buckets to learn (instead of `bin_boundaries`).
        epsilon: the quantile summary's error tolerance (smaller: more exact, slower).
        output_mode: ``"int"`` (int32 bucket ids, as Keras), ``"one_hot"``,
            ``"multi_hot"`` or ``"count"`` (float32 vectors).
        sparse: must be False (eagerflow has no sparse tensors).

    Raises:
        ValueError: for both or neither of `bin_boundaries` and `num_bins`, a negative
            `num_bins`, a bad `output_mode`, ``sparse=True``, or calling before the
            boundaries are known.

    Examples:
        >>> import eagerflow as ef
        >>> import numpy as np
        >>> layer = ef.layers.Discretization(num_bins=4)
        >>> layer.adapt(np.arange(10.0)[:, None])
        >>> [round(b, 4) for b in layer.bin_boundaries]
        [1.5, 4.0, 6.5]
    """

    def __init__(self, bin_boundaries: Any = None, num_bins: Any = None, epsilon: float = 0.01,
                 output_mode: str = "int", sparse: bool = False, dtype: DTypeLike = None,
                 name: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("autocast", False)
        super().__init__(name=name, dtype=dtype, **kwargs)
        if sparse:
            raise ValueError("Discretization: sparse=True is not supported (eagerflow has no "
                             "sparse tensors); leave sparse=False for dense outputs.")
        if output_mode not in _MODES:
            raise ValueError(f"Discretization: `output_mode` must be one of {_MODES}. "
                             f"Received: output_mode={output_mode!r}")
        if num_bins is not None and num_bins < 0:
            raise ValueError("Discretization: `num_bins` must be greater than or equal to 0. "
                             f"Received: num_bins={num_bins!r}")
        if num_bins is not None and bin_boundaries is not None:
            raise ValueError("Discretization: set `num_bins` or `bin_boundaries`, not both. "
                             f"Received: num_bins={num_bins!r} and "
                             f"bin_boundaries={bin_boundaries!r}")
        if num_bins is None and bin_boundaries is None:
            raise ValueError("Discretization: set either `num_bins` (then call adapt) or "
                             "`bin_boundaries`.")
        if bin_boundaries is not None:
            bin_boundaries = [float(b) for b in lookup.as_numpy(bin_boundaries).reshape(-1)]
            if np.any(np.diff(bin_boundaries) < 0):
                raise ValueError("Discretization: `bin_boundaries` must be sorted in "
                                 f"increasing order. Received: {bin_boundaries}")
        self.bin_boundaries = bin_boundaries
        self.num_bins = num_bins
        self.epsilon = float(epsilon)
        self.output_mode = output_mode
        self.sparse = False
        self.reset_state()

    # -- adapt ----------------------------------------------------------------------------
    def reset_state(self) -> None:
        """Forgets the quantile summary gathered by `update_state`."""
        self.summary = np.zeros((2, 0), np.float32)

    def update_state(self, data: Any) -> None:
        """Adds one batch of numbers to the quantile summary."""
        values = lookup.as_numpy(data)
        if values.dtype.kind not in "iufb":
            raise ValueError(f"Discretization expects numbers. Received: data of dtype "
                             f"{values.dtype}")
        self.summary = _merge(_summarize(values.astype(np.float32), self.epsilon),
                              self.summary, self.epsilon)

    def finalize_state(self) -> None:
        """Sets `bin_boundaries` to the `num_bins` quantiles of the summary."""
        if self.num_bins is None or not self.summary.shape[1]:
            return
        self.bin_boundaries = _compress(self.summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def adapt(self, data: Any, steps: Any = None) -> None:
        """Learns `num_bins` quantile boundaries from `data`: an array or tensor (one
        batch), or an `ef.data` Dataset, a list of arrays or any iterable of batches
        (`steps` bounds the batches read).

        Raises:
            ValueError: if the layer was given `bin_boundaries` instead of `num_bins`.

        Examples:
            >>> import eagerflow as ef
            >>> import numpy as np
            >>> layer = ef.layers.Discretization(num_bins=2)
            >>> layer.adapt(ef.data.Dataset.from_tensor_slices(np.arange(8.0)).batch(4))
            >>> layer.bin_boundaries
            [3.0]
        """
        if self.num_bins is None:
            raise ValueError("Discretization: cannot adapt a layer created with "
                             "`bin_boundaries`; create it with `num_bins` instead.")
        self.reset_state()
        for batch in self._batches(data, steps):
            self.update_state(batch)
        self.finalize_state()

    @staticmethod
    def _batches(data, steps):
        """An array or tensor is one batch; any other iterable (a Dataset, a list of
        arrays, a generator) yields batches, as in Keras."""
        if isinstance(data, (np.ndarray, tensor.Tensor)) or hasattr(data, "_read"):
            yield lookup.as_numpy(data)
            return
        if not hasattr(data, "__iter__"):
            raise TypeError("Discretization.adapt() takes an array, a tensor, an ef.data "
                            "Dataset or an iterable of batches. Received: data of type "
                            f"{type(data).__name__}")
        for index, batch in enumerate(data):
            if steps is not None and index >= steps:
                return
            yield lookup.as_numpy(batch[0] if isinstance(batch, tuple) else batch)

    # -- call -----------------------------------------------------------------------------
    def _convert_inputs(self, inputs):
        if isinstance(inputs, (list, tuple)):
            inputs = np.asarray(inputs)
        return super()._convert_inputs(inputs)

    def call(self, inputs: Any) -> Any:
        out_dtype = dtypes.int32 if self.output_mode == "int" else dtypes.float32
        if context.thread.tracer is None:
            return tensor.new_tensor(self._compute(lookup.as_numpy(inputs)).astype(out_dtype))
        return python_ops.py_function(
            lambda t: self._compute(t.numpy()).astype(out_dtype), [inputs], out_dtype)

    def _compute(self, values: np.ndarray) -> np.ndarray:
        if self.bin_boundaries is None:
            raise ValueError(
                f"Discretization '{self.name}': pass `bin_boundaries` or call `adapt` before "
                "using the layer.")
        if values.dtype.kind not in "iufb":
            raise ValueError(f"Discretization expects numbers. Received: inputs of dtype "
                             f"{values.dtype}")
        boundaries = np.asarray(self.bin_boundaries, np.float32)
        ids = np.digitize(values.astype(np.float32), boundaries).astype(np.int64)
        if self.output_mode == "int":
            return ids
        return lookup.encode(ids, self.output_mode, len(boundaries) + 1)

    def compute_output_shape(self, input_shape: Any) -> Any:
        depth = (len(self.bin_boundaries) + 1 if self.bin_boundaries is not None
                 else self.num_bins)
        return lookup.encoded_shape(input_shape, self.output_mode, depth)

    def get_config(self) -> dict:
        return {**super().get_config(), "bin_boundaries": self.bin_boundaries,
                "num_bins": self.num_bins, "epsilon": self.epsilon,
                "output_mode": self.output_mode, "sparse": False}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        """Recreates the layer; an adapted layer's config holds both `num_bins` and the
        learned `bin_boundaries` (as in Keras)."""
        config = dict(config)
        if config.get("bin_boundaries") is not None and config.get("num_bins") is not None:
            boundaries = config.pop("bin_boundaries")
            layer = cls(**config)
            layer.bin_boundaries = list(boundaries)
            return layer
        return cls(**config)
