"""Python operators of Tensor and Variable, bound to the public ops.

Binding the ops themselves (``Tensor.__add__ = add``) keeps the operator path as short
as a direct op call: there is no extra Python frame between ``a + b`` and the dispatcher.
Variables get the same operators; ops read a variable (letting tapes watch it) when they
convert their inputs.
"""

from __future__ import annotations

from eagerflow.core.tensor import Tensor
from eagerflow.core.variable import Variable
from eagerflow.ops import array, linalg, math


def _reflected(op):
    def reflected(self, other):
        return op(other, self)

    reflected.__name__ = f"r{op.__name__}"
    return reflected


def _eq(self, other):
    return False if other is None else math.equal(self, other)


def _ne(self, other):
    return True if other is None else math.not_equal(self, other)


def _iter(self):
    value = self._read() if isinstance(self, Variable) else self
    if value.ndim == 0:
        raise TypeError("Cannot iterate over a scalar tensor (shape ())")
    return iter(array.unstack(value))


_BINARY = {
    "add": math.add,
    "sub": math.subtract,
    "mul": math.multiply,
    "truediv": math.divide,
    "floordiv": math.floordiv,
    "mod": math.mod,
    "pow": math.pow,
    "matmul": linalg.matmul,
    "and": math.bitwise_and,
    "or": math.bitwise_or,
    "xor": math.bitwise_xor,
}
_OTHERS = {
    "__neg__": math.negative,
    "__pos__": array.identity,
    "__abs__": math.abs,
    "__invert__": math.invert,
    "__lt__": math.less,
    "__le__": math.less_equal,
    "__gt__": math.greater,
    "__ge__": math.greater_equal,
    "__eq__": _eq,
    "__ne__": _ne,
    "__getitem__": array.getitem,
    "__iter__": _iter,
}

for _cls in (Tensor, Variable):
    for _name, _op in _BINARY.items():
        setattr(_cls, f"__{_name}__", _op)
        setattr(_cls, f"__r{_name}__", _reflected(_op))
    for _name, _op in _OTHERS.items():
        setattr(_cls, _name, _op)
    _cls.__hash__ = object.__hash__  # defining __eq__ would otherwise drop it
del _cls, _name, _op
