"""The fused update path: one op per dtype updates every variable and its slots.

`Optimizer._update` asks `apply` first; when it returns True the step is done (but for
the variables' constraints), otherwise each variable goes through the rule's
`update_step` as usual. The fused ops (`ops/training_ops.py`) compute the rules'
formulas bit for bit; what they save is passes over memory and ops: one compiled pass per
variable (`ops/kernels/optim_jit.py`) instead of six to ten NumPy passes, and one op per
step instead of about eight per variable. So the path is taken only when the numba kernel
set is active (``ef.config.get_kernel_set()``), for these rules exactly (not their
subclasses, whose `update_step` may differ):

* `Adam` and `AdamW` without AMSGrad;
* `SGD` with (Nesterov) momentum or weight decay (plain SGD is faster unfused);
* `RMSprop`, not centered, with or without momentum.

Weight decay is folded into the same pass. The new values are written with the variables'
public `assign`, so the path is the same eagerly and traced; in a traced step (``fit``)
the executor turns the op and its assigns into one in-place write of the variables' own
buffers (`graph/passes/buffer_reuse.in_place_updates`), so nothing is allocated or copied
there. Eagerly each `assign` costs one copy per variable and slot.
"""

from __future__ import annotations

from typing import Any

from eagerflow.ops import creation, math, training_ops, unary
from eagerflow.ops.kernels import kernel_sets


def _adam_step(opt, variables, grads, lr, dtype, decay):
    beta_1, beta_2 = opt._hyper_tensor("beta_1", dtype), opt._hyper_tensor("beta_2", dtype)
    step = opt._step_count(dtype)
    # The same expressions as Adam.update_step, so the scalars round the same.
    alpha = lr * unary.sqrt(1 - math.pow(beta_2, step)) / (1 - math.pow(beta_1, step))
    ms = [opt.get_slot(v, "momentum") for v in variables]
    vs = [opt.get_slot(v, "velocity") for v in variables]
    new = training_ops.adam_update(variables, ms, vs, grads, alpha, 1 - beta_1, 1 - beta_2,
                                   _constant(opt.epsilon, dtype), *decay)
    return [*variables, *ms, *vs], new


def _sgd_step(opt, variables, grads, lr, dtype, decay):
    ms = [opt.get_slot(v, "momentum") for v in variables] if opt._has_momentum else []
    momentum = opt._hyper_tensor("momentum", dtype) if ms else _constant(0.0, dtype)
    new = training_ops.sgd_update(variables, ms, grads, lr, momentum, opt.nesterov, *decay)
    return [*variables, *ms], new


def _rmsprop_step(opt, variables, grads, lr, dtype, decay):
    rho = opt._hyper_tensor("rho", dtype)
    vs = [opt.get_slot(v, "velocity") for v in variables]
    has_momentum = opt._has_momentum
    ms = [opt.get_slot(v, "momentum") for v in variables] if has_momentum else []
    momentum = opt._hyper_tensor("momentum", dtype) if has_momentum else _constant(0.0, dtype)
    new = training_ops.rmsprop_update(variables, vs, ms, grads, lr, rho, 1 - rho,
                                      _constant(opt.epsilon, dtype), momentum, *decay)
    return [*variables, *vs, *ms], new


def _constant(value, dtype):
    return creation.constant(value, dtype=dtype)


def _rule(opt) -> Any:
    """The fused step of `opt`'s rule, or None when it has none (or its options need the
    per-variable path)."""
    # Imported here: the rules import optimizer, which imports this module.
    from eagerflow.optim import adam, adamw, rmsprop, sgd

    kind = type(opt)
    if kind in (adam.Adam, adamw.AdamW):
        return None if opt.amsgrad else _adam_step
    if kind is sgd.SGD:
        if not opt._has_momentum and opt._hyper("momentum") == 0 and not opt.weight_decay:
            # Plain SGD is one in-place `w -= lr * g` per variable on the per-variable path;
            # the fused op's new values plus an `assign` copy each were slower (81k against
            # 98k samples/s on the MLP of bench_workloads). Written in place by a traced
            # step the fused op was no faster either: 122 us against 164 us for the
            # per-variable multiplies and writes alone, but the gradients are read once
            # more, at the end of the step, out of cache (+17 us on a 2.6 ms MLP step).
            return None
        fits = opt._has_momentum or opt._hyper("momentum") == 0
        return _sgd_step if fits else None  # momentum set after creation: the rule says why
    if kind is rmsprop.RMSprop:
        fits = not opt.centered and (opt._has_momentum or opt._hyper("momentum") == 0)
        return _rmsprop_step if fits else None
    return None


def apply(opt, grads: list, variables: list, rate) -> bool:
    """Runs one fused update of `variables` (weight decay included); False when the
    optimizer's rule or the active kernel set has no fused path."""
    if kernel_sets.active() != "numba" or not variables:
        return False
    step = _rule(opt)
    if step is None:
        return False
    groups: dict = {}
    for grad, var in zip(grads, variables, strict=True):
        groups.setdefault(var.dtype, ([], []))[0].append(var)
        groups[var.dtype][1].append(grad)
    decay_rate = opt._hypers.get("weight_decay")
    for dtype, (group, group_grads) in groups.items():
        lr = rate if rate.dtype == dtype else math.cast(rate, dtype)
        decayed = [decay_rate is not None and opt._use_weight_decay(v) for v in group]
        weight_decay = (opt._hyper_tensor("weight_decay", dtype) if decay_rate is not None
                        else _constant(0.0, dtype))
        targets, values = step(opt, group, group_grads, lr, dtype,
                               (weight_decay, lr, decayed) if step is _adam_step
                               else (weight_decay, decayed))
        for target, value in zip(targets, values, strict=True):
            target.assign(value)
    return True
