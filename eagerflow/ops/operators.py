"""Python operators of Tensor and Variable, bound to the public ops.

Binding the ops themselves (``Tensor.__add__ = add``) keeps the operator path as short
as a direct op call: there is no extra Python frame between ``a + b`` and the dispatcher.
Variables get the same operators; ops read a variable (letting tapes watch it) when they
convert their inputs.
"""

from __future__ import annotations

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
}

for _cls in (Tensor, Variable):
    for _name, _op in _BINARY.items():
        setattr(_cls, f"__{_name}__", _op)
        setattr(_cls, f"__r{_name}__", _reflected(_op))
    for _name, _op in _OTHERS.items():
        setattr(_cls, _name, _op)
    _cls.__hash__ = object.__hash__  # type: ignore[method-assign, assignment]  # (dropped by __eq__)
del _cls, _name, _op
