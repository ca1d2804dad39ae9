"""Lamb: Adam's step rescaled per variable by a trust ratio (You et al., 2019), for large
batches.

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable([3.0, 4.0])
    >>> _ = ef.optim.Lamb(learning_rate=0.1).apply_gradients([(ef.constant([1.0, 1.0]), w)])
    >>> w.numpy().round(4)
    array([2.6464, 3.6464], dtype=float32)
"""

from __future__ import annotations

from typing import Any

from eagerflow.ops import logic, math, reduce, unary
from eagerflow.optim import moments
from eagerflow.saving import registry


class Lamb(moments.MomentOptimizer):
    """Adam's update direction, scaled so that each variable moves by the learning rate
    times its own norm (layer-wise adaptation).

    Per step ``t`` (counting from 1), with slots ``momentum`` (m) and ``velocity`` (v)::

        m += (g - m) * (1 - beta_1)
        v += (g**2 - v) * (1 - beta_2)
        r = (m / (1 - beta_1**t)) / (sqrt(v / (1 - beta_2**t)) + epsilon)
        w -= learning_rate * trust * r,  trust = ||w|| / ||r||

    with ``trust = 1`` when either norm is 0 (Keras 3's rule; norms over the whole
    variable).

    Args:
        learning_rate: float, Variable, schedule or callable (see `Optimizer`).
        beta_1: decay of the first-moment estimate, in [0, 1].
        beta_2: decay of the second-moment estimate, in [0, 1].
        epsilon: small constant for numerical stability (>= 0).
        **kwargs: the options of every optimizer (see `Optimizer`).

    Raises:
        ValueError: if a beta is outside [0, 1] or `epsilon` is negative.

    Examples:
        >>> import eagerflow as ef
        >>> opt = ef.optim.Lamb(learning_rate=0.01, beta_1=0.8)
        >>> opt.get_config()["beta_1"], opt.name
        (0.8, 'lamb')
    """

    def build(self, var_list: Any) -> None:
        super().build(var_list)
        self.add_optimizer_variables(var_list, ["momentum", "velocity"])

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        dtype = variable.dtype
        m, v = self.get_slot(variable, "momentum"), self.get_slot(variable, "velocity")
        beta_1, beta_2 = self._hyper_tensor("beta_1", dtype), self._hyper_tensor("beta_2", dtype)
        step = self._step_count(dtype)
        m.assign_add((gradient - m) * (1 - beta_1))
        v.assign_add((unary.square(gradient) - v) * (1 - beta_2))
        update = (m / (1 - math.pow(beta_1, step))) / (
            unary.sqrt(v / (1 - math.pow(beta_2, step))) + self.epsilon)
        w_norm = unary.sqrt(reduce.reduce_sum(unary.square(variable.value)))
        r_norm = unary.sqrt(reduce.reduce_sum(unary.square(update)))
        both = logic.logical_and(logic.greater(w_norm, 0), logic.greater(r_norm, 0))
        trust = math.where(both, w_norm / math.where(both, r_norm, 1.0), 1.0)
        variable.assign_sub(trust * learning_rate * update)


registry.register("optimizer", Lamb)
