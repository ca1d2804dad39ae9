"""Keras 3's control-flow ops (`keras.ops.cond`, `while_loop`, `fori_loop`) on eagerflow's
`ef.cond` / `ef.while_loop`: eager calls run Python, traced calls (inside `ef.function`)
build graph control flow. They are reached as `ef.ops.<name>`.

Examples:
    >>> import eagerflow as ef
    >>> int(ef.ops.fori_loop(0, 4, lambda i, total: total + i, 0))
    6
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from eagerflow.graph import control_flow


def cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any:
    """Calls `true_fn()` if `pred` is true, else `false_fn()` (`keras.ops.cond`).

    Examples:
        >>> import eagerflow as ef
        >>> ef.ops.cond(ef.constant(1.0) > 0, lambda: 1, lambda: 2)
        1
    """
    return control_flow.cond(pred, true_fn, false_fn)


def while_loop(cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any,
               maximum_iterations: int | None = None) -> Any:
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` (`keras.ops.while_loop`).

    As in Keras, `loop_vars` may be a single tensor (then `body` returns one value and so
    does the loop) or a tuple or list (the result is a tuple).

    Examples:
        >>> import eagerflow as ef
        >>> ef.ops.while_loop(lambda i: i < 3, lambda i: i + 1, ef.constant(0))
        ef.Tensor(3, shape=(), dtype=int32)
    """
    is_tuple = isinstance(loop_vars, (tuple, list))
    packed = tuple(loop_vars) if is_tuple else (loop_vars,)

    def step(*args: Any) -> tuple:
        outputs = body(*args)
        return tuple(outputs) if is_tuple else (outputs,)

    outputs = control_flow.while_loop(cond, step, packed, maximum_iterations=maximum_iterations)
    return tuple(outputs) if is_tuple else outputs[0]


def fori_loop(lower: Any, upper: Any, body_fun: Callable[[Any, Any], Any],
              init_val: Any) -> Any:
    """`init_val` passed through `body_fun(i, value)` for `i` in `[lower, upper)`
    (`keras.ops.fori_loop`)."""
    _, value = control_flow.while_loop(lambda i, _: i < upper,
                                       lambda i, v: (i + 1, body_fun(i, v)), (lower, init_val))
    return value
