"""Fused optimizer updates: one op updates every variable of one dtype, slots included.

`eagerflow/optim/fused.py` runs them in place of the per-variable rules (Adam and AdamW,
SGD with or without momentum, RMSprop) when the numba kernel set is active; each op's
results are the values the rule's formula gives, bit for bit (the same float operations
in the same order, rounded to the variables' dtype after each), so the fused and per-op
paths are interchangeable mid-training.

Inputs are flat: the ``count`` variables' values, then each slot's values in the rule's
order, then the gradients, then the step's scalars (0-d arrays of the dtype). The
outputs are the new values of the variables, then of each slot. ``decayed`` says, per
variable, whether decoupled weight decay ``w -= (w * weight_decay) * learning_rate``
applies first (Keras's order and rounding).

The NumPy forwards below are the formulas; `ops/kernels/optim_jit.py` does each variable
in one pass. None of these ops is differentiable: they are updates.

Examples:
    >>> import numpy as np
    >>> from eagerflow.ops import training_ops
    >>> w, g, lr = np.float32([1.0]), np.float32([2.0]), np.float32(0.5)
    >>> training_ops.sgd_update([w], [], [g], lr)
    (ef.Tensor([0.], shape=(1,), dtype=float32),)
"""

from __future__ import annotations

import numpy as np

from eagerflow.core.dispatch import execute, primitive
from eagerflow.ops.kernels import kernel_sets


def _split(arrays, count, groups):
    return [arrays[i * count:(i + 1) * count] for i in range(groups)], arrays[groups * count:]


def _decay(w, decayed, weight_decay, lr):
    return w - (w * weight_decay) * lr if decayed else w


@primitive("FusedAdamUpdate", differentiable=False, num_outputs=-1)
def _adam(*arrays, count, decayed):
    """``m += (g - m) * (1 - beta_1)``, ``v += (g^2 - v) * (1 - beta_2)``,
    ``w -= (m * alpha) / (sqrt(v) + epsilon)`` (see `optim/adam.py`)."""
    (ws, ms, vs, gs), (alpha, one_minus_b1, one_minus_b2, epsilon, weight_decay, lr) = (
        _split(arrays, count, 4))
    new_w, new_m, new_v = [], [], []
    for w, m, v, g, decay in zip(ws, ms, vs, gs, decayed, strict=True):
        w = _decay(w, decay, weight_decay, lr)
        m = m + (g - m) * one_minus_b1
        v = v + (np.square(g) - v) * one_minus_b2
        new_w.append(w - (m * alpha) / (np.sqrt(v) + epsilon))
        new_m.append(m)
        new_v.append(v)
    return (*new_w, *new_m, *new_v)


@primitive("FusedSGDUpdate", differentiable=False, num_outputs=-1)
def _sgd(*arrays, count, decayed, nesterov):
    """Without momentum ``w -= g * lr``; with it ``m = m * momentum - g * lr`` and
    ``w += m`` (Nesterov: ``w += m * momentum - g * lr``); see `optim/sgd.py`."""
    has_momentum = len(arrays) == 3 * count + 3
    groups = 3 if has_momentum else 2
    parts, (lr, momentum, weight_decay) = _split(arrays, count, groups)
    ws, gs = parts[0], parts[-1]
    new_w, new_m = [], []
    for index, (w, g, decay) in enumerate(zip(ws, gs, decayed, strict=True)):
        w = _decay(w, decay, weight_decay, lr)
        if not has_momentum:
            new_w.append(w - g * lr)
            continue
        m = parts[1][index] * momentum - g * lr
        new_w.append(w + (m * momentum - g * lr if nesterov else m))
        new_m.append(m)
    return (*new_w, *new_m)


@primitive("FusedRMSpropUpdate", differentiable=False, num_outputs=-1)
def _rmsprop(*arrays, count, decayed):
    """``v = rho * v + (1 - rho) * g^2``, ``step = lr * g / sqrt(v + epsilon)``, then
    ``w -= step`` or, with momentum, ``m = momentum * m + step`` and ``w -= m``
    (`optim/rmsprop.py`, not centered)."""
    has_momentum = len(arrays) == 4 * count + 6
    groups = 4 if has_momentum else 3
    parts, (lr, rho, one_minus_rho, epsilon, momentum, weight_decay) = _split(
        arrays, count, groups)
    ws, vs, gs = parts[0], parts[1], parts[-1]
    new_w, new_v, new_m = [], [], []
    for index, (w, v, g, decay) in enumerate(zip(ws, vs, gs, decayed, strict=True)):
        w = _decay(w, decay, weight_decay, lr)
        v = rho * v + one_minus_rho * np.square(g)
        step = lr * g / np.sqrt(v + epsilon)
        if has_momentum:
            m = momentum * parts[2][index] + step
            new_m.append(m)
            step = m
        new_w.append(w - step)
        new_v.append(v)
    return (*new_w, *new_v, *new_m)


_KERNELS = {"FusedAdamUpdate": "adam_update", "FusedSGDUpdate": "sgd_update",
            "FusedRMSpropUpdate": "rmsprop_update"}
for _name, _kernel in _KERNELS.items():
    kernel_sets.register(_name, forward=f"eagerflow.ops.kernels.optim_jit:{_kernel}")


def is_update(op) -> bool:
    """Whether `op` is one of the fused updates above (they have an `in_place_writer`)."""
    return (op.family or op).name in _KERNELS


def in_place_writer(op, attrs: dict, state_count: int):
    """How to run update op `op` (with `attrs`) in place, or None if it is not one of the
    updates above: a function of the op's input arrays whose first `state_count` (the
    variables and slots, in the order of the op's outputs) are the buffers to write, for
    `buffers.update`.

    With the numba kernel set each variable is one pass writing its own buffers
    (`optim_jit.*_in_place`, the same arithmetic as the op's kernel, so the same bits);
    otherwise, or for a buffer that is not C-contiguous or a dtype the kernels do not take
    (float16), the op's forward computes the new values first and they are copied in,
    which is what ``assign`` would do.

    Examples:
        >>> import numpy as np
        >>> from eagerflow.core import dispatch
        >>> w = np.float32([1.0, 2.0])
        >>> write = in_place_writer(dispatch.OPS["FusedSGDUpdate"],
        ...                         {"count": 1, "decayed": (False,), "nesterov": False}, 1)
        >>> write(w, np.float32([2.0, 2.0]), *np.float32([0.5, 0.0, 0.0]))
        >>> w
        array([0., 1.], dtype=float32)
    """
    if not is_update(op):
        return None
    name = _KERNELS[(op.family or op).name]
    forward = op.forward
    kernel = None
    if kernel_sets.active() == "numba":
        from eagerflow.ops.kernels import optim_jit

        kernel = getattr(optim_jit, f"{name}_in_place")

    count = attrs["count"]

    def write(*arrays):
        states = arrays[:state_count]
        gradients = arrays[state_count:state_count + count]
        if kernel is not None and all(a.flags.c_contiguous for a in states) and all(
                g.shape == w.shape for g, w in zip(gradients, states[:count], strict=True)) \
                and all(w.dtype in kernel_sets.COMPILED_DTYPES for w in states[:count]):
            kernel(*arrays, **attrs)
            return
        for target, value in zip(states, forward(*arrays, **attrs), strict=True):
            np.copyto(target, value)

    return write


def _decay_flags(decayed, count):
    return tuple(bool(d) for d in decayed) if decayed is not None else (False,) * count


def adam_update(variables, momentums, velocities, gradients, alpha, one_minus_beta_1,
                one_minus_beta_2, epsilon, weight_decay=0.0, learning_rate=0.0,
                decayed=None) -> tuple:
    """New values of Adam's variables, momentums and velocities (see `_adam`).

    Args:
        variables, momentums, velocities, gradients: lists of equal length, one dtype.
        alpha, one_minus_beta_1, one_minus_beta_2, epsilon: the step's scalars.
        weight_decay, learning_rate: for the variables `decayed` marks.
        decayed: per variable, whether weight decay applies (default: none).

    Returns:
        A tuple of tensors: the new variables, then momentums, then velocities.
    """
    count = len(variables)
    return execute(_adam, (*variables, *momentums, *velocities, *gradients, alpha,
                           one_minus_beta_1, one_minus_beta_2, epsilon, weight_decay,
                           learning_rate),
                   {"count": count, "decayed": _decay_flags(decayed, count)})


def sgd_update(variables, momentums, gradients, learning_rate, momentum=0.0, nesterov=False,
               weight_decay=0.0, decayed=None) -> tuple:
    """New values of SGD's variables (then momentums, when `momentums` is not empty)."""
    count = len(variables)
    return execute(_sgd, (*variables, *momentums, *gradients, learning_rate, momentum,
                          weight_decay),
                   {"count": count, "decayed": _decay_flags(decayed, count),
                    "nesterov": bool(nesterov)})


def rmsprop_update(variables, velocities, momentums, gradients, learning_rate, rho,
                   one_minus_rho, epsilon, momentum=0.0, weight_decay=0.0,
                   decayed=None) -> tuple:
    """New values of RMSprop's variables, velocities (then momentums, when given)."""
    count = len(variables)
    return execute(_rmsprop, (*variables, *velocities, *momentums, *gradients, learning_rate,
                              rho, one_minus_rho, epsilon, momentum, weight_decay),
                   {"count": count, "decayed": _decay_flags(decayed, count)})
