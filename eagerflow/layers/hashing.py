"""`Hashing`: categorical values to one of `num_bins` bins by a stable hash (Keras 3).

Strings (and integers, through their decimal form; floats are truncated to integers
first, as Keras does) go to bin ``Fingerprint64(value) % num_bins``, FarmHash as in
TensorFlow's ``to_hash_bucket_fast``, or to a SipHash-2-4 bucket keyed by `salt`. So a
value lands in the same bin as with Keras. Like the lookup layers it computes on NumPy
values eagerly, and as an ``ef.py_function`` node inside traced functions.

Examples:
    >>> import eagerflow as ef
    >>> ef.layers.Hashing(num_bins=5)([["A", "B"], ["C", "D"]]).numpy()
    array([[4, 3],
           [2, 0]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.core import context, dtypes, tensor
from eagerflow.graph import python_ops
from eagerflow.layers import lookup
from eagerflow.layers.base import Layer

_MODES = ("int", "one_hot", "multi_hot", "count")


class Hashing(Layer):
    """Hashes strings or integers into `num_bins` bins (Keras 3's layer).

    With a `mask_value`, that value goes to bin 0 and the others are hashed into bins
    ``1 .. num_bins - 1``.

    Args:
        num_bins: the number of bins (mask bin included).
        mask_value: a value (string or int) sent to bin 0, or None.
        salt: None for FarmHash, or an int or two ints keying SipHash-2-4.
        output_mode: ``"int"`` (int64 bin ids), ``"one_hot"``, ``"multi_hot"`` or
            ``"count"`` (float32 vectors of `num_bins`).
        sparse: must be False (eagerflow has no sparse tensors).

    Raises:
        ValueError: for a bad `num_bins`, `salt` or `output_mode`, ``sparse=True``, an
            integer dtype outside ``"int"`` mode, or inputs that are not strings or numbers.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Hashing(num_bins=5, mask_value=0)([[0, 5, 9]]).numpy()
        array([[0, 4, 2]])
        >>> ef.layers.Hashing(num_bins=4, output_mode="count")([["A", "B", "A"]]).numpy()
        array([[3., 0., 0., 0.]], dtype=float32)
    """

    def __init__(self, num_bins: Any, mask_value: Any = None, salt: Any = None,
                 output_mode: str = "int", sparse: bool = False, **kwargs: Any) -> None:
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == "int" else "float32"
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        if isinstance(num_bins, bool) or not isinstance(num_bins, (int, np.integer)) or (
                num_bins <= 0):
            raise ValueError(f"Hashing: `num_bins` must be a positive int. Received: "
                             f"num_bins={num_bins!r}")
        if output_mode not in _MODES:
            raise ValueError(f"Hashing: `output_mode` must be one of {_MODES}. Received: "
                             f"output_mode={output_mode!r}")
        if output_mode == "int" and self.dtype.name not in ("int32", "int64"):
            raise ValueError("Hashing: with output_mode='int', `dtype` must be 'int32' or "
                             f"'int64'. Received: dtype={self.dtype.name!r}")
        if sparse:
            raise ValueError("Hashing: sparse=True is not supported (eagerflow has no sparse "
                             "tensors); leave sparse=False for dense outputs.")
        self.num_bins = int(num_bins)
        self.mask_value = mask_value
        self.salt = lookup.salt_pair(salt, "Hashing")
        self.strong_hash = self.salt is not None
        self.output_mode = output_mode
        self.sparse = False

    def _convert_inputs(self, inputs):
        if isinstance(inputs, (list, tuple)):
            inputs = np.asarray(inputs)
        return super()._convert_inputs(inputs)

    def call(self, inputs: Any) -> Any:
        out_dtype = self.dtype if self.output_mode == "int" else dtypes.float32
        if context.thread.tracer is None:
            return tensor.new_tensor(self._compute(lookup.as_numpy(inputs)).astype(out_dtype))
        return python_ops.py_function(
            lambda t: self._compute(np.asarray(t)).astype(out_dtype), [inputs], out_dtype)

    def _bins(self, values: np.ndarray) -> np.ndarray:
        kind = values.dtype.kind
        if kind in "USO":
            keys = lookup.to_text(values, "utf-8", "Hashing")
        elif kind in "iuf" or kind == "b":
            integers = values.astype(np.int64)  # floats truncate, as Keras's cast does
            keys = np.array([str(v) for v in integers.reshape(-1).tolist()],
                            dtype=object).reshape(values.shape)
        else:
            raise ValueError(f"Hashing expects strings or numbers. Received: inputs of dtype "
                             f"{values.dtype}")
        bins = self.num_bins
        mask = None
        if self.mask_value is not None and bins > 1:
            bins -= 1
            mask = values == np.asarray(self.mask_value)
        hashed = lookup.string_buckets(keys.astype(object), bins, self.salt)
        if mask is not None:
            hashed = np.where(mask, 0, hashed + 1)
        return hashed.astype(np.int64)

    def _compute(self, values: np.ndarray) -> np.ndarray:
        if self.output_mode == "one_hot" and values.ndim and values.shape[-1] == 1:
            values = values[..., 0]
        bins = self._bins(values)
        if self.output_mode == "int":
            return bins
        return lookup.encode(bins, self.output_mode, self.num_bins)

    def compute_output_shape(self, input_shape: Any) -> Any:
        input_shape = tuple(input_shape)
        if self.output_mode == "int":
            return input_shape
        return lookup.encoded_shape(input_shape or (1,), self.output_mode, self.num_bins)

    def get_config(self) -> dict:
        return {**super().get_config(), "num_bins": self.num_bins, "salt": self.salt,
                "mask_value": self.mask_value, "output_mode": self.output_mode,
                "sparse": False}
