"""Function-style gradients (`ef.gradients_function` and friends, from the original
eager API, TensorFlow's ``backprop`` module): wrappers that call a Python function under a
tape and return its gradients with respect to its arguments or the variables it reads.

Examples:
    >>> import eagerflow as ef
    >>> grad = ef.gradients_function(lambda x: x * x)
    >>> grad(3.0)
    [ef.Tensor(6.0, shape=(), dtype=float32)]
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence

from eagerflow.core import autodiff
from eagerflow.core import tape as tape_lib


def _param_indices(f, params, count: int) -> list[int]:
    if params is None:
        return list(range(count))
    names = list(inspect.signature(f).parameters)
    indices = []
    for p in params:
        if isinstance(p, str):
            if p not in names:
                raise ValueError(f"params names {p!r}, which is not an argument of {f.__name__}")
            p = names.index(p)
        if not 0 <= int(p) < count:
            raise ValueError(f"params index {p} is out of range for {count} arguments")
        indices.append(int(p))
    return indices


def value_and_gradients_function(f: Callable, params: Sequence[int | str] | None = None,
                                 unconnected_gradients: str = "none") -> Callable:
    """Wraps `f` to return ``(f(*args), [gradient per argument])``.

    Args:
        f: a function of tensors returning a tensor (non-scalar results are summed).
        params: indices or names of the arguments to differentiate (default: all).
        unconnected_gradients: ``"none"`` (None for an argument `f` does not use) or
            ``"zero"`` (zeros of its shape), as for `GradientTape.gradient`.

    Returns:
        A function with `f`'s arguments (Python numbers become float32 tensors) and a
        keyword `dy`: the gradient of the result to start from (default ones), as
        TensorFlow's ``output_gradients``.

    Examples:
        >>> import eagerflow as ef
        >>> value, grads = ef.value_and_gradients_function(lambda x, y: x * y)(2.0, 5.0)
        >>> float(value), [float(g) for g in grads]
        (10.0, [5.0, 2.0])
    """

    @functools.wraps(f)
    def decorated(*args, dy=None, **kwargs):
        arguments = [autodiff.as_argument(a) for a in args]
        indices = _param_indices(f, params, len(arguments))
        # One tensor passed for two differentiated arguments counts as two independent
        # arguments (TensorFlow's "unique tensor objects"): f(x, x) gets one gradient each.
        seen: set = set()
        for i in indices:
            if id(arguments[i]) in seen:
                arguments[i] = autodiff.detached(arguments[i])
            seen.add(id(arguments[i]))
        with tape_lib.GradientTape() as tape:
            for i in indices:
                tape.watch(arguments[i])
            value = f(*arguments, **kwargs)
        _check_returned(value, f)
        return value, tape.gradient(value, [arguments[i] for i in indices],
                                    output_gradients=dy,
                                    unconnected_gradients=unconnected_gradients)

    return decorated


def _check_returned(value, f) -> None:
    if value is None:
        name = getattr(f, "__name__", f)
        raise ValueError(f"Cannot differentiate {name}: it returned None; a missing `return`?")


def gradients_function(f: Callable, params: Sequence[int | str] | None = None,
                       unconnected_gradients: str = "none") -> Callable:
    """Wraps `f` to return the list of its gradients, one per argument (or per `params`);
    ``unconnected_gradients="zero"`` gives zeros, not None, for arguments `f` ignores.

    Examples:
        >>> import eagerflow as ef
        >>> ef.gradients_function(lambda x, y: x * 2.0, unconnected_gradients="zero")(
        ...     1.0, 5.0)[1]
        ef.Tensor(0.0, shape=(), dtype=float32)
        >>> import eagerflow as ef
        >>> def abs_(x):
        ...     return x if x > 0.0 else -x
        >>> grad = ef.gradients_function(abs_)
        >>> grad(2.0), grad(-2.0)
        ([ef.Tensor(1.0, shape=(), dtype=float32)], [ef.Tensor(-1.0, shape=(), dtype=float32)])
    """
    value_and_grads = value_and_gradients_function(f, params, unconnected_gradients)

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        return value_and_grads(*args, **kwargs)[1]

    return decorated


def implicit_value_and_gradients(f: Callable) -> Callable:
    """Wraps `f` to return ``(value, [(gradient, variable), ...])`` for the trainable
    variables `f` reads.

    Raises:
        ValueError: if `f` reads no trainable variable.

    Examples:
        >>> import eagerflow as ef
        >>> v = ef.Variable(3.0)
        >>> value, grads_and_vars = ef.implicit_value_and_gradients(lambda x: v * x)(2.0)
        >>> float(value), float(grads_and_vars[0][0])
        (6.0, 2.0)
    """

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        with tape_lib.GradientTape() as tape:
            value = f(*args, **kwargs)
        _check_returned(value, f)
        variables = list(tape.watched_variables())
        if not variables:
            raise ValueError(
                f"No trainable variables were accessed while {f.__name__} was computed, so "
                "there is nothing to differentiate with respect to."
            )
        grads = tape.gradient(value, variables)
        return value, list(zip(grads, variables, strict=True))

    return decorated


def implicit_gradients(f: Callable) -> Callable:
    """Wraps `f` to return ``[(gradient, variable), ...]`` for the variables it reads.

    Examples:
        >>> import eagerflow as ef
        >>> vx = ef.Variable(1.0)
        >>> ef.implicit_gradients(lambda x: 2 * vx * x)(2.0)[0][0]
        ef.Tensor(4.0, shape=(), dtype=float32)
    """
    value_and_grads = implicit_value_and_gradients(f)

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        return value_and_grads(*args, **kwargs)[1]

    return decorated
