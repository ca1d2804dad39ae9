"""Adamax: Adam with the infinity norm in place of the second moment (Kingma & Ba, 2015).

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable(1.0)
    >>> _ = ef.optim.Adamax(learning_rate=0.1).apply_gradients([(ef.constant(5.0), w)])
    >>> round(float(w), 4)
    0.9
"""

from __future__ import annotations

from typing import Any

from eagerflow.ops import math, unary
from eagerflow.optim import moments
from eagerflow.saving import registry


class Adamax(moments.MomentOptimizer):
    """Scales the first moment by an exponentially weighted maximum of ``|g|``.

    Per step ``t`` (counting from 1), with slots ``momentum`` (m) and ``norm`` (u)::

        m += (g - m) * (1 - beta_1)
        u = max(beta_2 * u, |g|)
        w -= learning_rate * m / ((1 - beta_1 ** t) * (u + epsilon))

    Args:
        learning_rate: float, Variable, schedule or callable (see `Optimizer`).
        beta_1: decay of the first-moment estimate, in [0, 1].
        beta_2: decay of the infinity norm, in [0, 1].
        epsilon: small constant for numerical stability (>= 0).
        **kwargs: the options of every optimizer (see `Optimizer`).

    Raises:
        ValueError: if a beta is outside [0, 1] or `epsilon` is negative.

    Examples:
        >>> import eagerflow as ef
        >>> w = ef.Variable([1.0, -1.0])
        >>> opt = ef.optim.Adamax(learning_rate=0.01)
        >>> _ = opt.apply_gradients([(ef.constant([0.5, -2.0]), w)])
        >>> [round(float(x), 4) for x in w.numpy()], opt.get_slot_names()
        ([0.99, -0.99], ['momentum', 'norm'])
    """

    def build(self, var_list: Any) -> None:
        super().build(var_list)
        self.add_optimizer_variables(var_list, ["momentum", "norm"])

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        dtype = variable.dtype
        m, u = self.get_slot(variable, "momentum"), self.get_slot(variable, "norm")
        beta_1, beta_2 = self._hyper_tensor("beta_1", dtype), self._hyper_tensor("beta_2", dtype)
        beta_1_power = math.pow(beta_1, self._step_count(dtype))
        m.assign_add((gradient - m) * (1 - beta_1))
        u.assign(math.maximum(beta_2 * u, unary.abs(gradient)))
        variable.assign_sub(learning_rate * m / ((1 - beta_1_power) * (u + self.epsilon)))


registry.register("optimizer", Adamax)
