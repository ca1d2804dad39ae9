"""The numba kernels of the fused optimizer updates (`ops/training_ops.py`).

Each variable is one pass: its value, its slots and its gradient are read once and the
new values written once, where the NumPy formulas take six to ten passes. The arithmetic
is the formulas' own, operation by operation in the variables' dtype (float32 scalars
stay float32: numba types a NumPy scalar by its dtype), and `jit.elementwise_kernel`
compiles without fast-math, so no multiply-add is contracted: the results are
bit-identical to the NumPy forwards (tested on float32).
"""

from __future__ import annotations

import numpy as np

from eagerflow.ops.kernels import jit, kernel_sets


# -- each update's formula, once: the kernels below (into new arrays, and in place) inline it
@jit.inline_formula
def _decayed(wk, weight_decay, lr, decay):  # pragma: no cover - compiled
    return wk - (wk * weight_decay) * lr if decay else wk


@jit.inline_formula
def _adam_step(wk, mk, vk, gk, alpha, one_minus_b1, one_minus_b2,
               epsilon):  # pragma: no cover - compiled
    """``(w, m, v)`` after one Adam step."""
    mk = mk + (gk - mk) * one_minus_b1
    vk = vk + (gk * gk - vk) * one_minus_b2
    return wk - (mk * alpha) / (np.sqrt(vk) + epsilon), mk, vk


@jit.inline_formula
def _momentum_step(wk, mk, gk, lr, momentum, nesterov):  # pragma: no cover - compiled
    """``(w, m)`` after one SGD step with momentum."""
    step = gk * lr
    mk = mk * momentum - step
    return wk + (mk * momentum - step if nesterov else mk), mk


@jit.inline_formula
def _rms_step(vk, gk, lr, rho, one_minus_rho, epsilon):  # pragma: no cover - compiled
    """``(v, step)`` of one RMSprop step, before its momentum."""
    vk = rho * vk + one_minus_rho * (gk * gk)
    return vk, lr * gk / np.sqrt(vk + epsilon)


@jit.elementwise_kernel
def _adam(w, m, v, g, alpha, one_minus_b1, one_minus_b2, epsilon, weight_decay, lr, decay,
          new_w, new_m, new_v):  # pragma: no cover - compiled
    for k in range(w.size):
        new_w[k], new_m[k], new_v[k] = _adam_step(
            _decayed(w[k], weight_decay, lr, decay), m[k], v[k], g[k], alpha, one_minus_b1,
            one_minus_b2, epsilon)


@jit.elementwise_kernel
def _sgd(w, m, g, lr, momentum, weight_decay, decay, nesterov, has_momentum,
         new_w, new_m):  # pragma: no cover - compiled
    for k in range(w.size):
        wk = _decayed(w[k], weight_decay, lr, decay)
        if has_momentum:
            new_w[k], new_m[k] = _momentum_step(wk, m[k], g[k], lr, momentum, nesterov)
        else:
            new_w[k] = wk - g[k] * lr


@jit.elementwise_kernel
def _rmsprop(w, v, m, g, lr, rho, one_minus_rho, epsilon, momentum, weight_decay, decay,
             has_momentum, new_w, new_v, new_m):  # pragma: no cover - compiled
    for k in range(w.size):
        vk, step = _rms_step(v[k], g[k], lr, rho, one_minus_rho, epsilon)
        if has_momentum:
            step = momentum * m[k] + step
            new_m[k] = step
        new_v[k] = vk
        new_w[k] = _decayed(w[k], weight_decay, lr, decay) - step


def _flat(array):
    return np.ascontiguousarray(array).reshape(-1)


def _scalar(value, dtype):
    return np.asarray(value, dtype)[()]


def _empty(count, like):
    return [np.empty(a.shape, a.dtype) for a in like[:count]]


def adam_update(*arrays, count, decayed):
    """The numba forward of ``FusedAdamUpdate`` (arguments as the op's)."""
    ws, ms, vs, gs = (arrays[i * count:(i + 1) * count] for i in range(4))
    dtype = ws[0].dtype if count else np.dtype(np.float32)
    if dtype not in kernel_sets.COMPILED_DTYPES:  # (float16: the NumPy forward)
        return kernel_sets.numpy_forward("FusedAdamUpdate")(*arrays, count=count,
                                                            decayed=decayed)
    alpha, one_minus_b1, one_minus_b2, epsilon, weight_decay, lr = (
        _scalar(s, dtype) for s in arrays[4 * count:])
    new_w, new_m, new_v = _empty(count, ws), _empty(count, ms), _empty(count, vs)
    for i in range(count):
        _adam(_flat(ws[i]), _flat(ms[i]), _flat(vs[i]), _flat(gs[i]), alpha, one_minus_b1,
              one_minus_b2, epsilon, weight_decay, lr, bool(decayed[i]),
              new_w[i].reshape(-1), new_m[i].reshape(-1), new_v[i].reshape(-1))
    return (*new_w, *new_m, *new_v)


def sgd_update(*arrays, count, decayed, nesterov):
    """The numba forward of ``FusedSGDUpdate`` (arguments as the op's)."""
    has_momentum = len(arrays) == 3 * count + 3
    ws = arrays[:count]
    ms = arrays[count:2 * count] if has_momentum else ws
    gs = arrays[(2 if has_momentum else 1) * count:][:count]
    dtype = ws[0].dtype if count else np.dtype(np.float32)
    if dtype not in kernel_sets.COMPILED_DTYPES:
        return kernel_sets.numpy_forward("FusedSGDUpdate")(*arrays, count=count,
                                                           decayed=decayed, nesterov=nesterov)
    lr, momentum, weight_decay = (_scalar(s, dtype) for s in arrays[-3:])
    new_w = _empty(count, ws)
    new_m = _empty(count, ms) if has_momentum else new_w
    for i in range(count):
        _sgd(_flat(ws[i]), _flat(ms[i]), _flat(gs[i]), lr, momentum, weight_decay,
             bool(decayed[i]), bool(nesterov), has_momentum, new_w[i].reshape(-1),
             new_m[i].reshape(-1))
    return (*new_w, *new_m) if has_momentum else tuple(new_w)


def rmsprop_update(*arrays, count, decayed):
    """The numba forward of ``FusedRMSpropUpdate`` (arguments as the op's)."""
    has_momentum = len(arrays) == 4 * count + 6
    ws, vs = arrays[:count], arrays[count:2 * count]
    ms = arrays[2 * count:3 * count] if has_momentum else vs
    gs = arrays[(3 if has_momentum else 2) * count:][:count]
    dtype = ws[0].dtype if count else np.dtype(np.float32)
    if dtype not in kernel_sets.COMPILED_DTYPES:
        return kernel_sets.numpy_forward("FusedRMSpropUpdate")(*arrays, count=count,
                                                               decayed=decayed)
    lr, rho, one_minus_rho, epsilon, momentum, weight_decay = (
        _scalar(s, dtype) for s in arrays[-6:])
    new_w, new_v = _empty(count, ws), _empty(count, vs)
    new_m = _empty(count, ms) if has_momentum else new_v
    for i in range(count):
        _rmsprop(_flat(ws[i]), _flat(vs[i]), _flat(ms[i]), _flat(gs[i]), lr, rho,
                 one_minus_rho, epsilon, momentum, weight_decay, bool(decayed[i]),
                 has_momentum, new_w[i].reshape(-1), new_v[i].reshape(-1),
                 new_m[i].reshape(-1))
    return (*new_w, *new_v, *new_m) if has_momentum else (*new_w, *new_v)


# -- in place: the same passes, writing each variable's and slot's own buffer -------------------
# The same formulas, each state array read and written through one argument. (Passing a
# state array as both an input and an output of the kernels above would compute the same
# values, but LLVM's runtime alias check then finds the arrays overlapping and runs its
# scalar loop: 6x slower for Adam here.) The arrays are C-contiguous
# (`training_ops.in_place_writer` checks), so the flat reshapes are views of them.
@jit.elementwise_kernel
def _adam_in_place(w, m, v, g, alpha, one_minus_b1, one_minus_b2, epsilon, weight_decay, lr,
                   decay):  # pragma: no cover - compiled
    for k in range(w.size):
        w[k], m[k], v[k] = _adam_step(_decayed(w[k], weight_decay, lr, decay), m[k], v[k],
                                      g[k], alpha, one_minus_b1, one_minus_b2, epsilon)


@jit.elementwise_kernel
def _sgd_plain_in_place(w, g, lr, weight_decay, decay):  # pragma: no cover - compiled
    for k in range(w.size):
        w[k] = _decayed(w[k], weight_decay, lr, decay) - g[k] * lr


@jit.elementwise_kernel
def _sgd_in_place(w, m, g, lr, momentum, weight_decay, decay,
                  nesterov):  # pragma: no cover - compiled
    for k in range(w.size):
        w[k], m[k] = _momentum_step(_decayed(w[k], weight_decay, lr, decay), m[k], g[k], lr,
                                    momentum, nesterov)


@jit.elementwise_kernel
def _rmsprop_in_place(w, v, m, g, lr, rho, one_minus_rho, epsilon, momentum, weight_decay,
                      decay, has_momentum):  # pragma: no cover - compiled
    for k in range(w.size):
        v[k], step = _rms_step(v[k], g[k], lr, rho, one_minus_rho, epsilon)
        if has_momentum:
            step = momentum * m[k] + step
            m[k] = step
        w[k] = _decayed(w[k], weight_decay, lr, decay) - step


def adam_update_in_place(*arrays, count, decayed):
    """``FusedAdamUpdate`` written into its variables, momentums and velocities."""
    ws, ms, vs, gs = (arrays[i * count:(i + 1) * count] for i in range(4))
    dtype = ws[0].dtype if count else np.dtype(np.float32)
    alpha, one_minus_b1, one_minus_b2, epsilon, weight_decay, lr = (
        _scalar(s, dtype) for s in arrays[4 * count:])
    for i in range(count):
        _adam_in_place(ws[i].reshape(-1), ms[i].reshape(-1), vs[i].reshape(-1), _flat(gs[i]),
                       alpha, one_minus_b1, one_minus_b2, epsilon, weight_decay, lr,
                       bool(decayed[i]))


def sgd_update_in_place(*arrays, count, decayed, nesterov):
    """``FusedSGDUpdate`` written into its variables (and momentums)."""
    has_momentum = len(arrays) == 3 * count + 3
    ws = arrays[:count]
    gs = arrays[(2 if has_momentum else 1) * count:][:count]
    dtype = ws[0].dtype if count else np.dtype(np.float32)
    lr, momentum, weight_decay = (_scalar(s, dtype) for s in arrays[-3:])
    for i in range(count):
        if has_momentum:
            _sgd_in_place(ws[i].reshape(-1), arrays[count + i].reshape(-1), _flat(gs[i]), lr,
                          momentum, weight_decay, bool(decayed[i]), bool(nesterov))
        else:
            _sgd_plain_in_place(ws[i].reshape(-1), _flat(gs[i]), lr, weight_decay,
                                bool(decayed[i]))


def rmsprop_update_in_place(*arrays, count, decayed):
    """``FusedRMSpropUpdate`` written into its variables, velocities (and momentums)."""
    has_momentum = len(arrays) == 4 * count + 6
    ws, vs = arrays[:count], arrays[count:2 * count]
    gs = arrays[(3 if has_momentum else 2) * count:][:count]
    dtype = ws[0].dtype if count else np.dtype(np.float32)
    # without momentum the kernel never touches `m`: a writable one-element stand-in
    ms = arrays[2 * count:3 * count] if has_momentum else [np.zeros(1, dtype)] * count
    lr, rho, one_minus_rho, epsilon, momentum, weight_decay = (
        _scalar(s, dtype) for s in arrays[-6:])
    for i in range(count):
        _rmsprop_in_place(ws[i].reshape(-1), vs[i].reshape(-1), ms[i].reshape(-1), _flat(gs[i]),
                          lr, rho, one_minus_rho, epsilon, momentum, weight_decay,
                          bool(decayed[i]), has_momentum)
