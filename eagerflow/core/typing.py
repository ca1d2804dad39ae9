"""Type aliases for annotations: what the public API accepts where a tensor, dtype or
shape is expected. Modules import them for their signatures; they are not an API namespace.

`TensorLike` is anything `ef.convert_to_tensor` takes: a Tensor, a Variable or any NumPy
array-like (arrays, Python numbers and nested lists of them, objects with `__array__`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

from eagerflow.core.tensor import Tensor

TensorLike: TypeAlias = Tensor | npt.ArrayLike
DTypeLike: TypeAlias = npt.DTypeLike | None  # a numpy dtype, a type such as float, a name
ShapeLike: TypeAlias = int | Sequence[int | None] | Tensor | np.ndarray
AxisLike: TypeAlias = int | Sequence[int] | Tensor | None
