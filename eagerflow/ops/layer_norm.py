"""Layer normalization over the last axis as one op, forward and backward.

``y = (x - mean) / sqrt(var + epsilon) * gamma + beta`` with the mean and (population)
variance of each row (the last axis). Composed from `moments` and `batch_normalization`
it costs about nine full-size passes forward and twice as many backward, each an op on
the tape; here the forward is one op (``FusedLayerNorm``) and the backward another
(``FusedLayerNormGrad``), with the closed form, per row, ``xhat = (x - mean) * inv``::

    g = dy * gamma
    dx = inv * (g - mean(g) - xhat * mean(g * xhat))
    dgamma = sum over rows of dy * xhat,   dbeta = sum over rows of dy

The NumPy kernels are below; with the numba kernel set each is one compiled pass per row
(`ops/kernels/norm_jit.py`). The backward op's own gradient (second order)
differentiates the formula written in eagerflow ops. `LayerNormalization` uses this op
for its common form (normalizing the last axis, with gamma and beta).

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.ops import layer_norm
    >>> layer_norm.layer_norm([[1.0, 3.0]], [1.0, 1.0], [0.0, 0.0], epsilon=0.0)
    ef.Tensor([[-1.  1.]], shape=(1, 2), dtype=float32)
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import errors, forwardprop
from eagerflow.core import tape as tape_lib
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import unary as _unary
from eagerflow.ops.kernels import kernel_sets
from eagerflow.ops.typing import Tensor, TensorLike


def _normalized(x, epsilon):
    mean = np.mean(x, axis=-1, keepdims=True)
    centered = x - mean
    variance = np.mean(np.square(centered), axis=-1, keepdims=True)
    inv = 1 / np.sqrt(variance + np.asarray(epsilon, x.dtype))
    return centered * inv, inv


@primitive("FusedLayerNorm")
def _layer_norm(x, gamma, beta, epsilon):
    xhat, _ = _normalized(x, epsilon)
    return xhat * gamma + beta


_layer_norm.jvp(forwardprop.FROM_VJP)


@_layer_norm.gradient
def _layer_norm_grad(dy, y, x, gamma, beta, epsilon):
    return execute(_layer_norm_backward, (x, gamma, dy), {"epsilon": epsilon})


@primitive("FusedLayerNormGrad", num_outputs=3)
def _layer_norm_backward(x, gamma, dy, epsilon):
    xhat, inv = _normalized(x, epsilon)
    g = dy * gamma
    dx = inv * (g - np.mean(g, axis=-1, keepdims=True)
                - xhat * np.mean(g * xhat, axis=-1, keepdims=True))
    rows = tuple(range(x.ndim - 1))
    return dx, np.sum(dy * xhat, axis=rows), np.sum(dy, axis=rows)


_layer_norm_backward.jvp(forwardprop.FROM_VJP)


def _backward_formula(x, gamma, dy, epsilon):
    """`_layer_norm_backward` in eagerflow ops (for its gradient)."""
    mean = _reduce.reduce_mean(x, -1, keepdims=True)
    centered = x - mean
    inv = _unary.rsqrt(_reduce.reduce_mean(centered * centered, -1, keepdims=True) + epsilon)
    xhat = centered * inv
    g = dy * gamma
    dx = inv * (g - _reduce.reduce_mean(g, -1, keepdims=True)
                - xhat * _reduce.reduce_mean(g * xhat, -1, keepdims=True))
    rows = list(range(x.ndim - 1))
    return dx, _reduce.reduce_sum(dy * xhat, rows), _reduce.reduce_sum(dy, rows)


@_layer_norm_backward.gradient
def _layer_norm_backward_grad(dys, outs, x, gamma, dy, epsilon):
    inputs = [x, gamma, dy]
    with tape_lib.GradientTape() as tape:
        tape.watch(inputs)
        outputs = _backward_formula(x, gamma, dy, epsilon)
    return tape.gradient(list(outputs), inputs, output_gradients=list(dys))


kernel_sets.register("FusedLayerNorm", forward="eagerflow.ops.kernels.norm_jit:layer_norm")
kernel_sets.register("FusedLayerNormGrad",
                     forward="eagerflow.ops.kernels.norm_jit:layer_norm_grad")


def layer_norm(x: TensorLike, gamma: TensorLike, beta: TensorLike,
               epsilon: float = 1e-3) -> Tensor:
    """Normalizes `x` over its last axis, then scales by `gamma` and shifts by `beta`.

    Args:
        x: a floating-point tensor of rank >= 1.
        gamma, beta: vectors of the last axis' length, `x`'s dtype.
        epsilon: added to the variance.

    Returns:
        ``(x - mean) / sqrt(var + epsilon) * gamma + beta``, `x`'s shape and dtype.

    Raises:
        InvalidArgumentError: for a non-float `x` or parameters of the wrong shape.
    """
    x, gamma, beta = convert_input(x), convert_input(gamma), convert_input(beta)
    if x.dtype.kind != "f" or x.ndim == 0:
        raise errors.InvalidArgumentError(
            f"FusedLayerNorm needs a floating-point tensor of rank >= 1, got dtype "
            f"{x.dtype.name} and shape {x.shape}", "FusedLayerNorm")
    width = (x.shape[-1],)
    if gamma.shape != width or beta.shape != width:
        raise errors.InvalidArgumentError(
            f"FusedLayerNorm: gamma and beta must have shape {width} (the last axis of x "
            f"{x.shape}); got {gamma.shape} and {beta.shape}", "FusedLayerNorm")
    return execute(_layer_norm, (x, gamma, beta), {"epsilon": float(epsilon)})
