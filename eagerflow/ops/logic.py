"""Comparisons, logical and bitwise ops: elementwise, broadcasting, not differentiable.

Comparisons return bool tensors; logical ops need bool tensors (compare or cast first);
bitwise ops take bool or integer tensors and back the ``&``, ``|``, ``^`` and ``~``
operators. `ef.math` and the top level expose them.

Examples:
    >>> import eagerflow as ef
    >>> ef.logical_and(ef.greater([1, 5], 2), [True, True])
    ef.Tensor([False  True], shape=(2,), dtype=bool)
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import errors
from eagerflow.core.dispatch import execute, primitive
from eagerflow.ops.typing import Tensor, TensorLike

_equal = primitive("Equal", differentiable=False, fresh=True)(np.equal)


def equal(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns the truth value of ``x == y`` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.equal([1, 2], 2)
        ef.Tensor([False  True], shape=(2,), dtype=bool)
    """
    return execute(_equal, (x, y))


@primitive("NotEqual", differentiable=False, fresh=True, ufunc=np.not_equal)
def _not_equal(x, y):
    return np.not_equal(x, y)


def not_equal(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns the truth value of ``x != y`` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.not_equal([1, 2], 2)
        ef.Tensor([ True False], shape=(2,), dtype=bool)
    """
    return execute(_not_equal, (x, y))


_less = primitive("Less", differentiable=False, fresh=True)(np.less)


def less(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns the truth value of ``x < y`` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.less([1, 2], 2)
        ef.Tensor([ True False], shape=(2,), dtype=bool)
    """
    return execute(_less, (x, y))


@primitive("LessEqual", differentiable=False, fresh=True, ufunc=np.less_equal)
def _less_equal(x, y):
    return np.less_equal(x, y)


def less_equal(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns the truth value of ``x <= y`` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.less_equal([1, 3], 2)
        ef.Tensor([ True False], shape=(2,), dtype=bool)
    """
    return execute(_less_equal, (x, y))


_greater = primitive("Greater", differentiable=False, fresh=True)(np.greater)


def greater(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns the truth value of ``x > y`` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.greater([1, 3], 2)
        ef.Tensor([False  True], shape=(2,), dtype=bool)
    """
    return execute(_greater, (x, y))


@primitive("GreaterEqual", differentiable=False, fresh=True, ufunc=np.greater_equal)
def _greater_equal(x, y):
    return np.greater_equal(x, y)


def greater_equal(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns the truth value of ``x >= y`` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.greater_equal([1, 2], 2)
        ef.Tensor([False  True], shape=(2,), dtype=bool)
    """
    return execute(_greater_equal, (x, y))


def _check_bool(op_name, *arrays):
    for a in arrays:
        if isinstance(a, np.ndarray) and a.dtype != np.bool_:
            raise errors.InvalidArgumentError(
                f"{op_name} expects bool tensors, got dtype {a.dtype.name}; compare or cast first"
            )


@primitive("LogicalAnd", differentiable=False, fresh=True)
def _logical_and(x, y):
    _check_bool("logical_and", x, y)
    return np.logical_and(x, y)


def logical_and(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``x AND y`` elementwise for bool tensors.

    Examples:
        >>> import eagerflow as ef
        >>> ef.logical_and([True, True], [True, False])
        ef.Tensor([ True False], shape=(2,), dtype=bool)
    """
    return execute(_logical_and, (x, y))


@primitive("LogicalOr", differentiable=False, fresh=True)
def _logical_or(x, y):
    _check_bool("logical_or", x, y)
    return np.logical_or(x, y)


def logical_or(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``x OR y`` elementwise for bool tensors.

    Examples:
        >>> import eagerflow as ef
        >>> ef.logical_or([True, False], [False, False])
        ef.Tensor([ True False], shape=(2,), dtype=bool)
    """
    return execute(_logical_or, (x, y))


@primitive("LogicalXor", differentiable=False, fresh=True)
def _logical_xor(x, y):
    _check_bool("logical_xor", x, y)
    return np.logical_xor(x, y)


def logical_xor(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``x XOR y`` elementwise for bool tensors.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.logical_xor([True, True], [True, False])
        ef.Tensor([False  True], shape=(2,), dtype=bool)
    """
    return execute(_logical_xor, (x, y))


@primitive("LogicalNot", differentiable=False, fresh=True)
def _logical_not(x):
    _check_bool("logical_not", x)
    return np.logical_not(x)


def logical_not(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``NOT x`` elementwise for a bool tensor.

    Examples:
        >>> import eagerflow as ef
        >>> ef.logical_not([True, False])
        ef.Tensor([False  True], shape=(2,), dtype=bool)
    """
    return execute(_logical_not, (x,))


@primitive("BitwiseAnd", differentiable=False, fresh=True, ufunc=np.bitwise_and)
def _bitwise_and(x, y):
    return np.bitwise_and(x, y)


def bitwise_and(x, y, name=None):
    """Returns ``x & y`` elementwise for bool or integer tensors (the ``&`` operator).

    Examples:
        >>> import eagerflow as ef
        >>> ef.constant([6, 5]) & 3
        ef.Tensor([2 1], shape=(2,), dtype=int32)
    """
    return execute(_bitwise_and, (x, y))


@primitive("BitwiseOr", differentiable=False, fresh=True, ufunc=np.bitwise_or)
def _bitwise_or(x, y):
    return np.bitwise_or(x, y)


def bitwise_or(x, y, name=None):
    """Returns ``x | y`` elementwise for bool or integer tensors (the ``|`` operator).

    Examples:
        >>> import eagerflow as ef
        >>> ef.constant([True, False]) | ef.constant([False, False])
        ef.Tensor([ True False], shape=(2,), dtype=bool)
    """
    return execute(_bitwise_or, (x, y))


@primitive("BitwiseXor", differentiable=False, fresh=True, ufunc=np.bitwise_xor)
def _bitwise_xor(x, y):
    return np.bitwise_xor(x, y)


def bitwise_xor(x, y, name=None):
    """Returns ``x ^ y`` elementwise for bool or integer tensors (the ``^`` operator).

    Examples:
        >>> import eagerflow as ef
        >>> ef.constant([6, 5]) ^ 3
        ef.Tensor([5 6], shape=(2,), dtype=int32)
    """
    return execute(_bitwise_xor, (x, y))


@primitive("Invert", differentiable=False, fresh=True, ufunc=np.invert)
def _invert(x):
    return np.invert(x)


def invert(x, name=None):
    """Returns ``~x``: logical NOT for bool tensors, bitwise NOT for integers.

    Examples:
        >>> import eagerflow as ef
        >>> ~ef.constant([True, False])
        ef.Tensor([False  True], shape=(2,), dtype=bool)
        >>> ~ef.constant([0, 5])
        ef.Tensor([-1 -6], shape=(2,), dtype=int32)
    """
    return execute(_invert, (x,))
