"""The numba kernels of batch normalization in training (`ops/batch_norm.py`).

The input is viewed as ``(outer, channels, inner)`` around its channel axis (``inner``
is 1 for channels-last, the usual case, where the loops run across the channels of each
row; otherwise they run along each channel's contiguous run). Two passes each way, where
the NumPy kernels make six to eight:

* forward: one pass summing, per channel, ``d = x - shift`` and ``d * d`` in float64, with
  ``shift`` the channel's first element (the shifted-data variance: no cancellation when
  the mean is large against the spread, and no second pass over ``x`` for a centred
  variance); then one pass writing ``(x - mean) * gamma * inv + beta``;
* backward: one pass summing ``dy`` and ``dy * (x - mean)`` per channel; then one pass
  writing ``dx = k * dy + b * (x - mean) + e`` with per-channel coefficients computed in
  between (`ops/batch_norm.py` gives the formula).

No transcendental function (a square root per channel, in NumPy). The sums are
reassociated (`jit.sum_kernel`) so that LLVM vectorizes them, at float64 rounding
differences; the loops are serial: at most a few megabytes each, read at memory speed.
"""

from __future__ import annotations

import numpy as np

from eagerflow.ops import batch_norm as batch_norm_ops
from eagerflow.ops.kernels import jit, kernel_sets, scratch


@jit.sum_kernel
def _sums(x, shift, total, square):  # pragma: no cover - compiled
    outer, channels, inner = x.shape
    if inner == 1:  # channels last: across the channels of each row
        for o in range(outer):
            for c in range(channels):
                d = x[o, c, 0] - shift[c]
                total[c] += d
                square[c] += d * d
        return
    for o in range(outer):
        for c in range(channels):
            k = shift[c]
            s = 0.0
            q = 0.0
            for i in range(inner):
                d = x[o, c, i] - k
                s += d
                q += d * d
            total[c] += s
            square[c] += q


@jit.sum_kernel
def _normalize(x, mean, scale, beta, out):  # pragma: no cover - compiled
    outer, channels, inner = x.shape
    if inner == 1:
        for o in range(outer):
            for c in range(channels):
                out[o, c, 0] = (x[o, c, 0] - mean[c]) * scale[c] + beta[c]
        return
    for o in range(outer):
        for c in range(channels):
            m = mean[c]
            s = scale[c]
            b = beta[c]
            for i in range(inner):
                out[o, c, i] = (x[o, c, i] - m) * s + b


@jit.sum_kernel
def _grad_sums(x, dy, mean, total, inner_sum):  # pragma: no cover - compiled
    outer, channels, inner = x.shape
    if inner == 1:
        for o in range(outer):
            for c in range(channels):
                g = dy[o, c, 0]
                total[c] += g
                inner_sum[c] += g * (x[o, c, 0] - mean[c])
        return
    for o in range(outer):
        for c in range(channels):
            m = mean[c]
            s = 0.0
            q = 0.0
            for i in range(inner):
                g = dy[o, c, i]
                s += g
                q += g * (x[o, c, i] - m)
            total[c] += s
            inner_sum[c] += q


@jit.sum_kernel
def _grad_apply(x, dy, mean, k, b, e, dx):  # pragma: no cover - compiled
    outer, channels, inner = x.shape
    if inner == 1:
        for o in range(outer):
            for c in range(channels):
                dx[o, c, 0] = k[c] * dy[o, c, 0] + b[c] * (x[o, c, 0] - mean[c]) + e[c]
        return
    for o in range(outer):
        for c in range(channels):
            kc = k[c]
            bc = b[c]
            ec = e[c]
            m = mean[c]
            for i in range(inner):
                dx[o, c, i] = kc * dy[o, c, i] + bc * (x[o, c, i] - m) + ec


def batch_norm(x, gamma, beta, epsilon, axis):
    """The numba forward of ``FusedBatchNorm`` (arguments as the op's):
    ``(y, mean, variance)``."""
    if x.size == 0:  # no statistics to take: NumPy's nan (and its warning), as the op's
        return kernel_sets.numpy_forward("FusedBatchNorm")(x, gamma, beta, epsilon, axis)
    view = batch_norm_ops.channel_view(x, axis)
    channels = view.shape[1]
    count = x.size // channels
    shift = view[0, :, 0].astype(np.float64)
    total = np.zeros(channels)
    square = np.zeros(channels)
    _sums(view, shift, total, square)
    offset = total / count
    mean = shift + offset
    variance = np.maximum(square / count - offset * offset, 0.0)
    scale = gamma / np.sqrt(variance + float(epsilon))
    out = scratch.empty(view.shape, x.dtype)
    _normalize(view, mean, scale, beta.astype(np.float64), out)
    return out.reshape(x.shape), mean.astype(x.dtype), variance.astype(x.dtype)


def batch_norm_grad(x, gamma, mean, variance, dy, dmean, dvar, epsilon, axis):
    """The numba forward of ``FusedBatchNormGrad``: ``(dx, dgamma, dbeta)``."""
    if x.size == 0:
        return kernel_sets.numpy_forward("FusedBatchNormGrad")(
            x, gamma, mean, variance, dy, dmean, dvar, epsilon, axis)
    view, grads = batch_norm_ops.channel_view(x, axis), batch_norm_ops.channel_view(dy, axis)
    channels = view.shape[1]
    count = x.size // channels
    mean = mean.astype(np.float64)
    dbeta = np.zeros(channels)
    dgamma = np.zeros(channels)
    _grad_sums(view, grads, mean, dbeta, dgamma)
    inv = 1.0 / np.sqrt(variance.astype(np.float64) + float(epsilon))
    dgamma *= inv
    k = gamma * inv
    b = (2.0 * dvar.astype(np.float64) - k * inv * dgamma) / count
    e = (dmean.astype(np.float64) - k * dbeta) / count
    dx = scratch.empty(view.shape, x.dtype)
    _grad_apply(view, grads, mean, k, b, e, dx)
    return dx.reshape(x.shape), dgamma.astype(x.dtype), dbeta.astype(x.dtype)
