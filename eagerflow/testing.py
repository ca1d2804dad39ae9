"""Gradient checking: compare tape gradients with central finite differences.

`check_gradients(f, *args, order=2)` checks, in float64, that the vector-Jacobian product
the tape computes agrees with a numeric directional derivative: for a random output
weighting ``u`` and a random input direction ``v``, ``<VJP(u), v>`` must equal
``<u, (f(x + eps v) - f(x - eps v)) / (2 eps)>``. Each floating-point input is checked on
its own; on a mismatch the checker computes that input's full numeric gradient and names
the worst element. With ``order=2`` the gradient function itself is checked the same way
(and so on for higher orders).

`check_jvp(f, *args, order=2)` checks forward mode the same way: the Jacobian-vector
product a `ForwardAccumulator` computes along a random direction must equal
``(f(x + eps v) - f(x - eps v)) / (2 eps)`` element by element, for each input alone and
for all together; with ``order=2`` the maps from the inputs to that JVP (nested
accumulators) and to the gradient (an accumulator around a tape) are checked again.

Examples:
    >>> import eagerflow as ef
    >>> ef.testing.check_gradients(lambda x: ef.sin(x) * x, [0.3, 1.2], order=2)
    >>> @ef.custom_gradient
    ... def wrong(x):
    ...     return x * x, lambda dy: dy * 3.0 * x
    >>> ef.testing.check_gradients(wrong, [1.0])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    AssertionError: order-1 gradient of wrong w.r.t. input 0 ...: tape gives 3, numeric 2 ...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from eagerflow.core import buffers, nest, tensor
from eagerflow.core.forwardprop import ForwardAccumulator
from eagerflow.core.tape import GradientTape
from eagerflow.ops.typing import TensorLike

__all__ = ["assert_allclose", "check_gradients", "check_jvp", "numeric_gradient"]


def _as_float64(value):
    array = np.array(value)
    if array.dtype.kind == "f":
        array = array.astype(np.float64)
    return tensor.new_tensor(array)


def _flat_outputs(f, args) -> list:
    outputs = [o for o in nest.flatten(f(*args)) if o is not None]
    return [o if isinstance(o, tensor.Tensor) else tensor.Tensor(o) for o in outputs]


def _weighted_sum(outputs, weights) -> float:
    return float(sum(np.vdot(w, buffers.read(o)) for o, w in zip(outputs, weights, strict=True)))


def numeric_gradient(f: Callable[..., Any], args: Any, index: Any, weights: TensorLike,
                     eps: float = 1e-6) -> np.ndarray:
    """Central-difference gradient of ``sum(weights * f(*args))`` w.r.t. ``args[index]``."""
    base = buffers.read(args[index])
    grad = np.zeros_like(base, dtype=np.float64)
    for position in np.ndindex(*base.shape):
        shifted = []
        for sign in (1.0, -1.0):
            value = base.copy()
            value[position] += sign * eps
            trial = list(args)
            trial[index] = tensor.new_tensor(value)
            shifted.append(_weighted_sum(_flat_outputs(f, trial), weights))
        grad[position] = (shifted[0] - shifted[1]) / (2 * eps)
    return grad


def _tape_gradients(f, args, weights, indices):
    with GradientTape() as tape:
        for i in indices:
            tape.watch(args[i])
        outputs = _flat_outputs(f, args)
    seeds = [tensor.new_tensor(np.asarray(w, o.dtype))
             for o, w in zip(outputs, weights, strict=True)]
    return tape.gradient(outputs, [args[i] for i in indices], output_gradients=seeds)


def _check_first_order(f, args, indices, rng, eps, rtol, atol, order, name):
    outputs = _flat_outputs(f, args)
    weights = [rng.standard_normal(o.shape) for o in outputs]
    grads = _tape_gradients(f, args, weights, indices)
    for i, grad in zip(indices, grads, strict=True):
        x = buffers.read(args[i])
        direction = rng.standard_normal(x.shape)
        plus, minus = list(args), list(args)
        plus[i] = tensor.new_tensor(x + eps * direction)
        minus[i] = tensor.new_tensor(x - eps * direction)
        numeric = (_weighted_sum(_flat_outputs(f, plus), weights)
                   - _weighted_sum(_flat_outputs(f, minus), weights)) / (2 * eps)
        analytic = 0.0 if grad is None else float(np.vdot(buffers.read(grad), direction))
        if abs(analytic - numeric) <= atol + rtol * max(abs(analytic), abs(numeric)):
            continue
        full, tape_grad = _report_gradients(f, args, i, indices, weights, eps)
        errors = np.abs(tape_grad - full)
        worst = np.unravel_index(int(np.argmax(errors)), full.shape) if full.size else ()
        raise AssertionError(
            f"order-{order} gradient of {name} w.r.t. input {i} disagrees with finite "
            f"differences: tape gives {_fmt(tape_grad[worst])}"
            f"{' (gradient was None)' if grad is None else ''}, numeric {_fmt(full[worst])} "
            f"at element {tuple(int(k) for k in worst)} (input shape {x.shape})"
        )
    return weights


def _report_gradients(f, args, index, indices, weights, eps):
    """Full numeric and tape gradients of one input, for the failure message.

    Weights of ones make the numbers the plain derivatives a reader expects; the random
    weights of the check are used when ones happen to hide the disagreement.
    """
    outputs = _flat_outputs(f, args)
    for trial in ([np.ones(o.shape) for o in outputs], weights):
        full = numeric_gradient(f, args, index, trial, eps)
        grad = _tape_gradients(f, args, trial, indices)[indices.index(index)]
        tape_grad = np.zeros_like(full) if grad is None else np.broadcast_to(buffers.read(grad),
                                                                             full.shape)
        if np.abs(tape_grad - full).max(initial=0.0) > 10 * eps:
            break
    return full, tape_grad


def _fmt(value) -> str:
    return f"{float(value):.6g}"


def check_gradients(f: Callable[..., Any], *args: Any, order: int = 2, eps: float = 1e-6,
                    rtol: float = 1e-4, atol: float = 1e-5, seed: int | None = 0) -> None:
    """Checks the gradients of `f` at `args` against finite differences, up to `order`.

    Args:
        f: a function of tensors returning a tensor or a structure of tensors.
        *args: its arguments; floating-point ones (and Python float data) are converted to
            float64 and checked, integer ones are passed through unchanged.
        order: highest derivative order to check (1 = gradients, 2 = also the gradients of
            the gradients, ...).
        eps: finite-difference step.
        rtol, atol: tolerances of the directional-derivative comparison.
        seed: seed of the random directions.

    Raises:
        AssertionError: naming the order, the input and the worst element on a mismatch.
    """
    rng = np.random.default_rng(seed)
    values = [_as_float64(a) for a in args]
    indices = [i for i, a in enumerate(values) if a.dtype.kind == "f"]
    if not indices:
        raise ValueError("check_gradients needs at least one floating-point argument")
    name = getattr(f, "__name__", "f")
    for current in range(1, order + 1):
        weights = _check_first_order(f, values, indices, rng, eps, rtol, atol, current, name)
        if current == order:
            return
        f = _gradient_function(f, weights, indices)


def _gradient_function(f, weights, indices):
    """The map args -> gradients of sum(weights * f(args)); what the next order checks."""

    def grad_f(*args):
        grads = _tape_gradients(f, list(args), weights, indices)
        return [g for g in grads if g is not None]

    grad_f.__name__ = getattr(f, "__name__", "f")
    return grad_f


def check_jvp(f: Callable[..., Any], *args: Any, order: int = 2, eps: float = 1e-6,
              rtol: float = 1e-4, atol: float = 1e-5, seed: int | None = 0) -> None:
    """Checks the forward-mode JVPs of `f` at `args` against finite differences.

    Args:
        f: a function of tensors returning a tensor or a structure of tensors.
        *args: its arguments; floating-point ones are converted to float64 and get
            tangents, integer ones are passed through unchanged.
        order: highest derivative order to check (2 also checks the JVP of the JVP and
            the JVP of the gradient).
        eps: finite-difference step.
        rtol, atol: elementwise tolerances.
        seed: seed of the random directions.

    Raises:
        AssertionError: naming the order, the inputs and the worst element on a mismatch.

    Examples:
        >>> import eagerflow as ef
        >>> ef.testing.check_jvp(lambda x, y: ef.sin(x) * y, [0.3, 1.2], [2.0, -1.0])
    """
    rng = np.random.default_rng(seed)
    values = [_as_float64(a) for a in args]
    indices = [i for i, a in enumerate(values) if a.dtype.kind == "f"]
    if not indices:
        raise ValueError("check_jvp needs at least one floating-point argument")
    _check_jvp_orders(f, values, indices, rng, 1, order, (eps, rtol, atol),
                      getattr(f, "__name__", "f"))


def _check_jvp_orders(f, values, indices, rng, current, order, tolerances, name):
    directions = {i: rng.standard_normal(values[i].shape) for i in indices}
    groups = [[i] for i in indices] + ([indices] if len(indices) > 1 else [])
    for group in groups:
        eps, rtol, atol = tolerances
        _check_jvp_once(f, values, {i: directions[i] for i in group}, eps, rtol, atol,
                        current, name)
    if current == order:
        return
    # Forward over forward (the JVP of the JVP), then forward over reverse (the JVP of the
    # gradient, a Hessian-vector product): the second reaches the JVP rules of the ops
    # that only gradients run (GatherGrad, Conv2DBackpropInput, ...).
    _check_jvp_orders(_jvp_function(f, directions), values, indices, rng, current + 1, order,
                      tolerances, f"JVP of {name}")
    weights = [rng.standard_normal(o.shape) for o in _flat_outputs(f, values)]
    _check_jvp_orders(_gradient_function(f, weights, indices), values, indices, rng,
                      current + 1, order, tolerances, f"gradient of {name}")


def _forward_tangents(f, args, directions):
    primals = [args[i] for i in directions]
    tangents = [tensor.new_tensor(np.asarray(d, args[i].dtype)) for i, d in directions.items()]
    with ForwardAccumulator(primals, tangents) as accumulator:
        outputs = _flat_outputs(f, args)
    return outputs, [accumulator.jvp(o, unconnected_gradients="zero") for o in outputs]


def _check_jvp_once(f, args, directions, eps, rtol, atol, order, name):
    outputs, tangents = _forward_tangents(f, args, directions)
    plus, minus = list(args), list(args)
    for i, d in directions.items():
        plus[i] = tensor.new_tensor(buffers.read(args[i]) + eps * d)
        minus[i] = tensor.new_tensor(buffers.read(args[i]) - eps * d)
    ups, downs = _flat_outputs(f, plus), _flat_outputs(f, minus)
    for k, (out, tangent) in enumerate(zip(outputs, tangents, strict=True)):
        if out.dtype.kind != "f":
            continue
        numeric = (buffers.read(ups[k]).astype(np.float64) - buffers.read(downs[k])) / (2 * eps)
        analytic = np.broadcast_to(buffers.read(tangent), numeric.shape)
        bad = np.abs(analytic - numeric) > atol + rtol * np.maximum(np.abs(analytic),
                                                                    np.abs(numeric))
        if bad.any():
            worst = np.unravel_index(int(np.argmax(np.abs(analytic - numeric))), bad.shape)
            raise AssertionError(
                f"order-{order} JVP of {name} along inputs {sorted(directions)} disagrees with "
                f"finite differences at output {k}, element {tuple(int(w) for w in worst)}: "
                f"forward mode gives {_fmt(analytic[worst])}, numeric {_fmt(numeric[worst])}"
            )


def _jvp_function(f, directions):
    """The map args -> JVP of `f` along `directions`; what the next order checks."""

    def jvp_f(*args):
        return _forward_tangents(f, list(args), directions)[1]

    jvp_f.__name__ = getattr(f, "__name__", "f")
    return jvp_f


def assert_allclose(actual: Any, expected: Any, rtol: float = 1e-6, atol: float = 0.0,
                    err_msg: str = "") -> None:
    """`numpy.testing.assert_allclose` that accepts tensors and variables."""
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=rtol, atol=atol,
                               err_msg=err_msg)
