"""TensorSpec: the dtype and (partially known) shape of a tensor.

Used for `ef.function` input signatures and dataset element specs. A shape entry of
None is unknown and matches any size; a shape of None matches any rank.

Examples:
    >>> import eagerflow as ef
    >>> spec = ef.TensorSpec([None, 784], ef.float32)
    >>> spec.is_compatible_with(ef.zeros([32, 784]))
    True
    >>> spec
    TensorSpec(shape=(None, 784), dtype=float32, name=None)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from eagerflow.core import dtypes


class TensorSpec:
    """Describes a tensor by dtype and shape (entries may be None: unknown).

    Args:
        shape: a list of ints or None, or None for unknown rank.
        dtype: the dtype (default float32).
        name: an optional name.
    """

    __slots__ = ("dtype", "name", "shape")

    def __init__(self, shape: Iterable[int | None] | None,
                 dtype: np.typing.DTypeLike | None = dtypes.float32,
                 name: str | None = None) -> None:
        self.shape = None if shape is None else tuple(
            None if d is None else int(d) for d in shape
        )
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor: np.typing.ArrayLike, name: str | None = None) -> TensorSpec:
        """The spec of an existing tensor, array or variable."""
        array: Any = np.asarray(tensor) if not hasattr(tensor, "shape") else tensor
        return cls(array.shape, array.dtype, name)

    def is_compatible_with(self, other: Any) -> bool:
        """Whether `other` (a spec or a tensor-like value) fits this spec."""
        shape = other.shape
        dtype = dtypes.as_dtype(other.dtype)
        if dtype != self.dtype:
            return False
        if self.shape is None or shape is None:
            return True
        return len(shape) == len(self.shape) and all(
            a is None or b is None or a == b for a, b in zip(self.shape, shape, strict=True)
        )

    def __eq__(self, other) -> bool:
        return (isinstance(other, TensorSpec) and self.shape == other.shape
                and self.dtype == other.dtype and self.name == other.name)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype.name}, name={self.name!r})"
