"""Tensor: an immutable value with operators, produced and consumed by every op.

A Tensor wraps one NumPy array that nobody writes to (the tape relies on that when it
replays an op backwards): `numpy()` / `__array__` hand out read-only views, DLPack a copy.

Examples:
    >>> import eagerflow as ef
    >>> x = ef.constant([1.0, 2.0])
    >>> x.shape, x.dtype
    ((2,), dtype('float32'))
    >>> x * 2 + 1
    ef.Tensor([3. 5.], shape=(2,), dtype=float32)
    >>> float(ef.reduce_sum(x))
    3.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from eagerflow.core import context, device, dtypes, errors, logits, masks

_DEVICE = "/device:CPU:0"
if TYPE_CHECKING:  # operators, indexing, iteration, DLPack: bound by ops/operators.py
    from eagerflow.core.operators import TensorOperators as _Operators
else:
    _Operators = object


class Tensor(_Operators):
    """An immutable multi-dimensional value, the input and output of every op.

    Tensors come from ops (`ef.constant`, `ef.matmul`, ...); ``ef.Tensor(value, dtype)``
    converts Python or NumPy data like `ef.constant` does.

    Args:
        value: Python scalar, nested list, NumPy array, or tensor.
        dtype: optional dtype to convert to.

    Attributes:
        shape: tuple of ints.
        dtype: a `numpy.dtype`, or `ef.string` for text (whose elements are `bytes`).
        ndim: number of dimensions.
        device: the device holding the value (always ``"/device:CPU:0"``).

    Examples:
        >>> import eagerflow as ef
        >>> t = ef.Tensor([1, 2, 3])
        >>> t
        ef.Tensor([1 2 3], shape=(3,), dtype=int32)
        >>> [int(v) for v in t]
        [1, 2, 3]
    """

    __slots__ = ("_value", "__weakref__")
    # Makes `ndarray op Tensor` defer to the Tensor's reflected operator, so it
    # returns a Tensor (and is recorded on tapes) instead of an ndarray.
    __array_priority__ = 100

    def __init__(self, value: object, dtype: np.dtype | type | str | None = None) -> None:
        self._value = dtypes.to_array(value, dtype)

    # -- value access ---------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        """The shape, a tuple of ints."""
        return self._value.shape

    @property
    def dtype(self) -> dtypes.DType:
        """The element type: a `numpy.dtype` (`ef.float32`, ...), or `ef.string` for text."""
        dtype = self._value.dtype
        return dtypes.string if dtype.kind in "SUO" else dtype

    @property
    def ndim(self) -> int:
        """The number of dimensions (the rank)."""
        return self._value.ndim

    @property
    def device(self) -> str:
        """The device holding the value, ``"/device:CPU:0"``."""
        return _DEVICE

    @property
    def _keras_mask(self):
        """The mask a layer attached to this tensor (Keras's attribute), or None."""
        return masks.get_mask(self)

    @property
    def _keras_logits(self):
        """The logits a softmax or sigmoid activation made this tensor from (Keras's
        attribute; see `eagerflow.core.logits`), or None."""
        return logits.activation_logits(self)

    def numpy(self) -> np.ndarray:
        """Returns the value as a read-only NumPy array (a view: no copy is made).

        A scalar string tensor gives its `bytes` instead, as in TensorFlow
        (``t.numpy().decode()``); other string tensors give object arrays of `bytes`.
        """
        for tape in context.thread.tapes:  # it leaves them: `tape.gradient` may say so
            tape._left_by_numpy.add(id(self))
        if self._value.dtype.kind == "O" and self._value.ndim == 0:
            return self._value[()]
        view = self._value.view()
        view.flags.writeable = False
        return view

    def __array__(self, dtype=None, copy=None):
        if dtype is None or np.dtype(dtype) == self._value.dtype:
            if copy:
                return self._value.copy()
            array = self.numpy()  # (a read-only view; a scalar string's is its bytes)
            if not isinstance(array, np.ndarray):
                array = self._value.view()
                array.flags.writeable = False
            return array
        if copy is False:  # NumPy 2's protocol: never copy, and a new dtype is a copy
            raise ValueError(f"Tensor.__array__: {self.dtype} to {dtype} copies; copy=False")
        return self._value.astype(dtype)

    def cpu(self) -> Tensor:
        """Returns this tensor: every tensor already lives on the CPU."""
        return self

    def gpu(self, gpu_index: int = 0) -> Tensor:
        """Raises NotFoundError: eagerflow has no GPU backend."""
        return device.no_gpu(f"Tensor.gpu({gpu_index})")

    # -- Python protocol ------------------------------------------------------------
    def __repr__(self) -> str:
        value = self._value
        if value.ndim or value.dtype.kind in "SUO":  # an array, or text (quoted: b'...')
            body = np.array2string(value, max_line_width=80)
        else:  # a number, as Python prints it (TensorFlow prints ``1.0``, not ``array(1.)``)
            body = str(value[()])
        if "\n" in body:  # rows start on their own line, as in TensorFlow
            body = "\n" + body
        return f"ef.Tensor({body}, shape={self.shape}, dtype={self.dtype.name})"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self._value.ndim == 0:
            return format(self._value.item(), spec)
        if not spec:  # "{}".format(t) shows the values, as TensorFlow's tensors do
            return str(self._value)
        raise TypeError(
            f"unsupported format string {spec!r} for a Tensor of shape {self.shape}: "
            "only scalar tensors accept format specs"
        )

    def _scalar(self, kind: str):
        if self._value.size != 1:
            raise errors.InvalidArgumentError(
                f"{kind}() needs a tensor with exactly one element, got shape {self.shape}. "
                "Reduce it first (ef.reduce_all / ef.reduce_any / ef.reduce_sum) or index it."
            )
        return self._value.reshape(()).item()

    def __bool__(self) -> bool:
        return bool(self._scalar("bool"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def __index__(self) -> int:
        if not dtypes.is_integer(self.dtype) and self.dtype != dtypes.bool:
            raise TypeError(
                f"Only integer tensors can be used as an index, got dtype {self.dtype.name}"
            )
        return int(self._scalar("index"))

    def __len__(self) -> int:
        if self._value.ndim == 0:
            raise TypeError("len() of unsized object: a scalar tensor (shape ()) has no length")
        return self._value.shape[0]

    def __setitem__(self, key, value):
        raise TypeError(
            "Tensors are immutable and do not support item assignment. Build a new tensor "
            "instead: ef.where(mask, new, old), ef.scatter_nd(...), or use an ef.Variable "
            "and its assign methods."
        )

    __hash__ = object.__hash__

    def __reduce__(self):
        return Tensor, (self._value,)

    def __copy__(self) -> Tensor:
        return self

    def __deepcopy__(self, memo) -> Tensor:
        return self


_new = object.__new__


def new_tensor(value: np.ndarray) -> Tensor:
    """Wraps an ndarray that nobody else will write to in a Tensor, without copying."""
    tensor = _new(Tensor)
    tensor._value = value
    return tensor
