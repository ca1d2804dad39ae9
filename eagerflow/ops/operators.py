"""Python operators of Tensor and Variable, bound to the public ops.

Binding the ops themselves (``Tensor.__add__ = add``) keeps the operator path as short
as a direct op call: there is no extra Python frame between ``a + b`` and the dispatcher.
Variables get the same operators; ops read a variable (letting tapes watch it) when they
convert their inputs. DLPack export lives here too, so that any array library
(`torch.from_dlpack(t)`, `torch.as_tensor(t)`, `np.from_dlpack(t)`) can take a tensor.
"""

from __future__ import annotations

import numpy as np

from eagerflow.core.tensor import Tensor
from eagerflow.core.variable import Variable
from eagerflow.ops import array, linalg, logic, math, unary


def _reflected(op):
    def reflected(self, other):
        return op(other, self)

    reflected.__name__ = f"r{op.__name__}"
    return reflected


def _eq(self, other):
    return False if other is None else logic.equal(self, other)


def _ne(self, other):
    return True if other is None else logic.not_equal(self, other)


def _iter(self):
    value = self._read() if isinstance(self, Variable) else self
    if value.ndim == 0:
        raise TypeError("Cannot iterate over a scalar tensor (shape ())")
    return iter(array.unstack(value))


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """Exports the value through DLPack as a copy that the consumer owns and may write to.

    A tensor is immutable, and sharing its buffer would let a consumer change it: DLPack
    can flag a buffer read-only, but PyTorch ignores the flag and writes. So every export
    copies, and `copy=False` raises BufferError; `t.numpy()` is the zero-copy, read-only view.
    """
    if copy is False:
        raise BufferError(
            f"__dlpack__(copy=False) on a {type(self).__name__} of shape {self.shape}: "
            "eagerflow tensors are immutable, so DLPack exports a copy. Use t.numpy() for a "
            "read-only view without a copy."
        )
    return np.array(self, copy=True).__dlpack__(
        stream=stream, max_version=max_version, dl_device=dl_device
    )


def _dlpack_device(self):
    return (1, 0)  # DLPack's kDLCPU, device 0: every tensor lives on the CPU


_BINARY = {
    "add": math.add,
    "sub": math.subtract,
    "mul": math.multiply,
    "truediv": math.divide,
    "floordiv": math.floordiv,
    "mod": math.mod,
    "pow": math.pow,
    "matmul": linalg.matmul,
    "and": logic.bitwise_and,
    "or": logic.bitwise_or,
    "xor": logic.bitwise_xor,
}
_OTHERS = {
    "__neg__": unary.negative,
    "__pos__": array.identity,
    "__abs__": unary.abs,
    "__invert__": logic.invert,
    "__lt__": logic.less,
    "__le__": logic.less_equal,
    "__gt__": logic.greater,
    "__ge__": logic.greater_equal,
    "__eq__": _eq,
    "__ne__": _ne,
    "__getitem__": array.getitem,
    "__iter__": _iter,
    "__dlpack__": _dlpack,
    "__dlpack_device__": _dlpack_device,
}

for _cls in (Tensor, Variable):
    for _name, _op in _BINARY.items():
        setattr(_cls, f"__{_name}__", _op)
        setattr(_cls, f"__r{_name}__", _reflected(_op))
    for _name, _op in _OTHERS.items():
        setattr(_cls, _name, _op)
    _cls.__hash__ = object.__hash__  # type: ignore[method-assign, assignment]  # (dropped by __eq__)
del _cls, _name, _op
