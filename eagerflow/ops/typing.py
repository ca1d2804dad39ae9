"""Type aliases for annotations: what the public API accepts as a tensor (anything
`ef.convert_to_tensor` takes: tensors, variables, arrays, numbers and nested lists of them),
a dtype, a shape or an axis. The engine (core/) spells them with `numpy.typing` directly.
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
