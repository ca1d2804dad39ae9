"""Functions that change how gradients flow through other functions: `recompute_grad`
(recompute the forward pass during the backward pass) and `grad_pass_through` (an
identity gradient through a function), as TensorFlow's.

Examples:
    >>> import eagerflow as ef
    >>> x = ef.constant(2.4)
    >>> with ef.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = ef.grad_pass_through(ef.round)(x * 3.0)
    >>> tape.gradient(y, x)
    ef.Tensor(3.0, shape=(), dtype=float32)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from eagerflow.core import autodiff
from eagerflow.core import tape as tape_lib


def recompute_grad(f: Callable[..., Any]) -> Callable[..., Any]:
    """Wraps `f` so that its intermediate results are not kept for the backward pass but
    computed again when gradients are asked for (``tf.recompute_grad``): memory for time.

    The gradients are those of `f` itself, for its tensor arguments and for the trainable
    variables it reads.

    Args:
        f: a function of tensors written in eagerflow ops.

    Returns:
        A function with `f`'s arguments and results.

    Examples:
        >>> import eagerflow as ef
        >>> w = ef.Variable(2.0)
        >>> layer = ef.recompute_grad(lambda a: ef.sin(a * w))
        >>> a = ef.constant(1.0)
        >>> with ef.GradientTape() as tape:
        ...     tape.watch(a)
        ...     y = layer(a)
        >>> [round(float(g), 4) for g in tape.gradient(y, [a, w])]
        [-0.8323, -0.4161]
    """

    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        @autodiff.custom_gradient
        def recomputed(*inputs):
            result = f(*inputs, **kwargs)

            def grad(*dys, variables=None):
                watched = list(variables or [])
                with tape_lib.GradientTape() as tape:
                    tape.watch(list(inputs))
                    again = f(*inputs, **kwargs)
                grads = tape.gradient(again, list(inputs) + watched,
                                      output_gradients=list(dys) if len(dys) > 1 else dys[0])
                input_grads = grads[:len(inputs)]
                input_grads = input_grads[0] if len(inputs) == 1 else input_grads
                return (input_grads, grads[len(inputs):]) if variables else input_grads

            return result, grad

        return recomputed(*args)

    return wrapped


def grad_pass_through(f: Callable[..., Any]) -> Callable[..., Any]:
    """Wraps `f` so that the gradient of its result with respect to each argument is the
    identity (``tf.grad_pass_through``): a straight-through estimator, or a gradient that
    passes an assignment (``ef.grad_pass_through(v.assign)(x)``).

    Args:
        f: a function of tensors whose result has each argument's shape.

    Returns:
        A function with `f`'s arguments and results; variables it reads get no gradient.

    Examples:
        >>> import eagerflow as ef
        >>> v = ef.Variable(1.0)
        >>> y = ef.constant(3.0)
        >>> with ef.GradientTape() as tape:
        ...     tape.watch(y)
        ...     out = ef.grad_pass_through(v.assign)(y * 2.0)
        >>> float(v.numpy()), float(tape.gradient(out, y))
        (6.0, 2.0)
    """

    @functools.wraps(f)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        @autodiff.custom_gradient
        def passed(*inputs):
            def grad(*dys, variables=None):
                through = dys[0] if len(dys) == 1 else list(dys)
                return (through, [None] * len(variables)) if variables else through

            return f(*inputs, **kwargs), grad

        return passed(*args)

    return wrapped
