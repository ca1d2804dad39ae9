"""Custom gradients: `custom_gradient` replaces the gradient of a whole function by a
rule written by hand (the function-style gradients built on the tape, such as
`gradients_function`, are in `eagerflow.backprop`).

Examples:
    >>> import eagerflow as ef
    >>> def square(x):
    ...     return ef.multiply(x, x)
    >>> grad = ef.gradients_function(square)
    >>> grad(3.0)
    [ef.Tensor(6.0, shape=(), dtype=float32)]
    >>> gradgrad = ef.gradients_function(lambda x: grad(x)[0])
    >>> gradgrad(3.0)
    [ef.Tensor(2.0, shape=(), dtype=float32)]
    >>> ef.gradients_function(lambda x: gradgrad(x)[0])(3.0)
    [None]
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from eagerflow.core import context, dispatch, dtypes, errors, nest, tensor, variable
from eagerflow.core import tape as tape_lib
from eagerflow.core.dispatch import Op, convert_input

# The family of the per-call op a tape records for one call of a `custom_gradient` function
# (the function is the op's `origin`).
CUSTOM_GRADIENT = dispatch.register(Op("CustomGradient", None, differentiable=False))


def custom_gradient(f: Callable[..., Any] | None = None) -> Any:
    """Decorates `f(*x)` returning ``(y, grad_fn)`` so gradients use `grad_fn`.

    ``grad_fn(*dy)`` returns one gradient per tensor input of `f` (a single value for one
    input; None for "no gradient"). If `f` reads trainable variables, ``grad_fn(*dy,
    variables=None)`` returns ``(input_grads, variable_grads)`` with one gradient per
    variable in `variables`. Written in eagerflow ops, `grad_fn` is itself
    differentiable, so higher-order gradients work through it.

    Examples:
        >>> import eagerflow as ef
        >>> @ef.custom_gradient
        ... def log1pexp(x):
        ...     e = ef.exp(x)
        ...     def grad(dy):
        ...         return dy * (1 - 1 / (1 + e))
        ...     return ef.log(1 + e), grad
        >>> ef.gradients_function(log1pexp)(100.0)
        [ef.Tensor(1.0, shape=(), dtype=float32)]
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        return _call_with_custom_gradient(f, args, kwargs)

    return decorated


def as_argument(value):
    """An argument to differentiate: Python numbers become float32 tensors (an int one
    could have no gradient); tensors and variables pass through; the rest converts."""
    if isinstance(value, (tensor.Tensor, variable.Variable)):
        return value
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return convert_input(value, dtype=dtypes.float32 if number else None)


def _call_with_custom_gradient(f, args, kwargs):
    args = [as_argument(a) if _is_numeric(a) else a for a in args]
    args = [a._read() if isinstance(a, variable.Variable) else a for a in args]
    if not context.thread.tapes:
        return _unpack(f(*args, **kwargs), f)[0]  # nothing records: grad_fn is never needed
    # Run f with every op recorded normally (so values captured by grad_fn stay
    # differentiable for higher orders) under a private tape that lists the variables f
    # reads.
    with tape_lib.GradientTape(persistent=True) as reader:
        result, grad_fn = _unpack(f(*args, **kwargs), f)
    variables = list(reader.watched_variables())
    del reader
    if variables and "variables" not in inspect.signature(grad_fn).parameters:
        raise TypeError(
            f"@custom_gradient function {f.__name__} reads variables "
            f"{[v.name for v in variables]}, so its grad_fn must accept a keyword argument "
            "`variables` and return (input_grads, variable_grads)."
        )
    flat_out = nest.flatten(result)
    outputs = tuple(detached(o) for o in flat_out)
    tensor_inputs = [a for a in nest.flatten(args) if isinstance(a, tensor.Tensor)]
    snapshots = [v._read() for v in variables]
    rule = _custom_rule(f, grad_fn, len(tensor_inputs), variables, len(outputs))
    op = CUSTOM_GRADIENT.instance(len(outputs), rule, name=f"CustomGradient_{f.__name__}",
                                  origin=f)
    context.record_op(context.thread.tapes, op, tuple(tensor_inputs + snapshots), {}, outputs)
    return nest.pack_sequence_as(result, list(outputs))


def detached(value):
    """A new tensor with `value`'s value that no tape records: the custom op produces it.

    Made by an op rather than by reading the value, so it also works while `ef.function`
    traces (the value is symbolic then).
    """
    state = context.thread
    tapes, state.tapes = state.tapes, []
    try:
        return dispatch.execute(dispatch.OPS["Identity"], (value,))
    finally:
        state.tapes = tapes


def _is_numeric(value) -> bool:
    return isinstance(value, (int, float, list, np.ndarray, np.generic)) and not isinstance(
        value, bool
    )


def _unpack(returned, f):
    if not isinstance(returned, tuple) or len(returned) != 2 or not callable(returned[1]):
        raise TypeError(
            f"@custom_gradient function {f.__name__} must return (output, grad_fn), got "
            f"{type(returned).__name__}"
        )
    return returned


def _custom_rule(f, grad_fn, num_inputs, variables, num_outputs):
    def rule(dy, y, *inputs):
        dys = dy if num_outputs > 1 else (dy,)
        if variables:
            returned = grad_fn(*dys, variables=variables)
            if not isinstance(returned, (tuple, list)) or len(returned) != 2:
                raise TypeError(
                    f"grad_fn of {f.__name__} reads variables, so it must return "
                    "(input_grads, variable_grads)"
                )
            input_grads, variable_grads = returned
            variable_grads = list(variable_grads)
        else:
            input_grads, variable_grads = grad_fn(*dys), []
        if not isinstance(input_grads, (tuple, list)):
            input_grads = [input_grads]
        input_grads = list(input_grads)
        if len(input_grads) != num_inputs or len(variable_grads) != len(variables):
            raise errors.InvalidArgumentError(
                f"grad_fn of {f.__name__} returned {len(input_grads)} input gradients and "
                f"{len(variable_grads)} variable gradients; expected {num_inputs} (one per "
                f"tensor argument) and {len(variables)} (one per variable read)"
            )
        return tuple(input_grads + variable_grads)

    return rule
