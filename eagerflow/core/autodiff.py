"""Function-style gradients and custom gradients.

`gradients_function` and friends wrap a Python function so that calling the wrapper
returns gradients with respect to its arguments (or the variables it reads), from the
original eager API. `custom_gradient` replaces the gradient of a whole function by a
rule written by hand.

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

import numpy as np

from eagerflow.core import context, dispatch, dtypes, errors, nest, tensor, variable
from eagerflow.core import tape as tape_lib
from eagerflow.core.dispatch import Op, convert_input


def _as_argument(value):
    """Python numbers become float32 tensors; tensors and variables pass through."""
    if isinstance(value, (tensor.Tensor, variable.Variable)):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return tensor.new_tensor(np.asarray(value, dtypes.float32))
    return convert_input(value)


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
        arguments = [_as_argument(a) for a in args]
        indices = _param_indices(f, params, len(arguments))
        # One tensor passed for two differentiated arguments counts as two independent
        # arguments (TensorFlow's "unique tensor objects"): f(x, x) gets one gradient each.
        seen: set = set()
        for i in indices:
            if id(arguments[i]) in seen:
                arguments[i] = _detached(arguments[i])
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


def custom_gradient(f: Callable | None = None) -> Callable:
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


def _call_with_custom_gradient(f, args, kwargs):
    args = [_as_argument(a) if _is_numeric(a) else a for a in args]
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
    outputs = tuple(_detached(o) for o in flat_out)
    tensor_inputs = [a for a in nest.flatten(args) if isinstance(a, tensor.Tensor)]
    snapshots = [v._read() for v in variables]
    op = Op(f"CustomGradient_{f.__name__}", None, num_outputs=len(outputs))
    op.gradient(_custom_rule(f, grad_fn, len(tensor_inputs), variables, len(outputs)))
    tape_lib.record(context.thread.tapes, op, tuple(tensor_inputs + snapshots), {}, outputs)
    return nest.pack_sequence_as(result, list(outputs))


def _detached(value):
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
