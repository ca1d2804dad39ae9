"""Nadam: Adam with Nesterov momentum and a momentum schedule (Dozat, 2016; Keras 3's rule).

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable(1.0)
    >>> _ = ef.optim.Nadam(learning_rate=0.1).apply_gradients([(ef.constant(5.0), w)])
    >>> round(float(w), 4)
    0.8937
"""

from __future__ import annotations

import numpy as np

from eagerflow.core.variable import Variable
from eagerflow.ops import math, unary
from eagerflow.optim import hyperparameters, optimizer
from eagerflow.saving import registry


class Nadam(optimizer.Optimizer):
    """Nesterov-accelerated Adam.

    Per step ``t`` (from 1), with ``u_t = beta_1 * (1 - 0.5 * 0.96 ** t)``, the running
    product ``U_t = u_1 * ... * u_t`` (a variable of the optimizer, updated once per step)
    and slots ``momentum`` (m) and ``velocity`` (v)::

        m += (g - m) * (1 - beta_1)
        v += (g * g - v) * (1 - beta_2)
        m_hat = u_{t+1} * m / (1 - U_t * u_{t+1}) + (1 - u_t) * g / (1 - U_t)
        v_hat = v / (1 - beta_2 ** t)
        w -= learning_rate * m_hat / (sqrt(v_hat) + epsilon)

    Args:
        learning_rate: float, Variable, schedule or callable (see `Optimizer`).
        beta_1: decay of the first moment.
        beta_2: decay of the second moment.
        epsilon: small constant for numerical stability.
        **kwargs: `clipnorm`, `clipvalue`, `global_clipnorm`, `weight_decay`, `name`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.optim.get("nadam").get_slot_names()
        ['momentum', 'velocity']
    """

    beta_1 = hyperparameters.Hyperparameter()
    beta_2 = hyperparameters.Hyperparameter()
    _config_names = ("beta_1", "beta_2", "epsilon")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        owner = type(self).__name__
        self.beta_1 = hyperparameters.check_float(beta_1, "beta_1", owner, 0.0)
        self.beta_2 = hyperparameters.check_float(beta_2, "beta_2", owner, 0.0)
        self.epsilon = hyperparameters.check_float(epsilon, "epsilon", owner, 0.0)
        self._slot_names = ["momentum", "velocity"]
        self.u_product = Variable(np.float32(1.0), trainable=False,
                                  name=f"{self.name}/u_product")

    def _trackable_children(self) -> dict:
        return {**super()._trackable_children(), "u_product": self.u_product}

    @property
    def variables(self) -> list:
        found = super().variables
        return [*found[:1], self.u_product, *found[1:]]

    def reset_state(self) -> None:
        super().reset_state()
        self.u_product.assign(np.float32(1.0))

    def _schedule(self, step, dtype):
        beta_1 = self._hyper_tensor("beta_1", dtype)
        return beta_1 * (1.0 - 0.5 * math.pow(math.cast(0.96, dtype), step))

    def _before_updates(self) -> None:
        dtype = self.u_product.dtype
        self.u_product.assign(self.u_product * self._schedule(self._step_count(dtype), dtype))

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        step = self._step_count(dtype)
        u_t = self._schedule(step, dtype)
        u_t_1 = self._schedule(step + 1, dtype)
        u_product_t = math.cast(self.u_product.value, dtype)
        u_product_t_1 = u_product_t * u_t_1
        beta_1, beta_2 = self._hyper_tensor("beta_1", dtype), self._hyper_tensor("beta_2", dtype)
        m, v = self.get_slot(variable, "momentum"), self.get_slot(variable, "velocity")
        m.assign_add((gradient - m) * (1 - beta_1))
        v.assign_add((unary.square(gradient) - v) * (1 - beta_2))
        m_hat = (u_t_1 * m) / (1 - u_product_t_1) + ((1 - u_t) * gradient) / (1 - u_product_t)
        v_hat = v / (1 - math.pow(beta_2, step))
        variable.assign_sub((m_hat * learning_rate) / (unary.sqrt(v_hat) + self.epsilon))


registry.register("optimizer", Nadam)
