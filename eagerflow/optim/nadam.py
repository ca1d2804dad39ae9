"""Nadam: Adam with Nesterov momentum and Keras 3's momentum schedule (Dozat, 2016).

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable(1.0)
    >>> _ = ef.optim.Nadam(learning_rate=0.1).apply_gradients([(ef.constant(5.0), w)])
    >>> round(float(w), 4)
    0.8937
"""

from __future__ import annotations

from typing import Any

from eagerflow.core import nest
from eagerflow.ops import creation, math, unary
from eagerflow.optim import moments
from eagerflow.saving import registry


def _momentum_coefficient(beta_1, step):
    """Dozat's warming-up momentum ``mu_t = beta_1 * (1 - 0.5 * 0.96 ** t)``."""
    # constant(0.96, dtype), not cast(0.96, dtype): a cast would go through float32.
    return beta_1 * (1 - 0.5 * math.pow(creation.constant(0.96, dtype=step.dtype), step))


class Nadam(moments.MomentOptimizer):
    """Adam whose momentum term looks one step ahead (Nesterov), as Keras 3 computes it.

    Per step ``t`` (counting from 1), with slots ``momentum`` (m) and ``velocity`` (v) and
    one optimizer-wide state variable ``u_product`` (the product of ``mu_1 ... mu_t``)::

        mu_t = beta_1 * (1 - 0.5 * 0.96 ** t)           # and mu_{t+1} likewise
        u_product *= mu_t                               # once per step, for all variables
        m += (g - m) * (1 - beta_1)
        v += (g * g - v) * (1 - beta_2)
        m_hat = mu_{t+1} * m / (1 - u_product * mu_{t+1}) + (1 - mu_t) * g / (1 - u_product)
        v_hat = v / (1 - beta_2 ** t)
        w -= learning_rate * m_hat / (sqrt(v_hat) + epsilon)

    ``u_product`` takes the dtype of the first variable the optimizer sees (as in Keras).

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
        >>> w = ef.Variable([1.0, -1.0])
        >>> opt = ef.optim.Nadam(learning_rate=0.01)
        >>> for _ in range(3):
        ...     _ = opt.apply_gradients([(ef.constant([0.5, -2.0]), w)])
        >>> [round(float(x), 3) for x in w.numpy()], round(float(opt.u_product), 4)
        ([0.975, -0.975], 0.114)
    """

    def build(self, var_list: Any) -> None:
        super().build(var_list)
        variables = nest.flatten(var_list)
        self.add_optimizer_variables(variables, ["momentum", "velocity"])
        if variables:  # (in the dtype of the first variable, as in Keras)
            self.add_state_variable("u_product", 1.0, variables[0].dtype)

    @property
    def u_product(self) -> Any:
        """The running product of the momentum coefficients (None before the first build)."""
        return self._state.get("u_product")

    def _prepare_step(self):
        product = self._state["u_product"]
        step = self._step_count(product.dtype)
        product.assign(product * _momentum_coefficient(
            self._hyper_tensor("beta_1", product.dtype), step))

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        dtype = variable.dtype
        m, v = self.get_slot(variable, "momentum"), self.get_slot(variable, "velocity")
        beta_1, beta_2 = self._hyper_tensor("beta_1", dtype), self._hyper_tensor("beta_2", dtype)
        step = self._step_count(dtype)
        mu_t = _momentum_coefficient(beta_1, step)
        mu_next = _momentum_coefficient(beta_1, step + 1)
        product = self._state["u_product"].value
        product = product if product.dtype == dtype else math.cast(product, dtype)
        m.assign_add((gradient - m) * (1 - beta_1))
        v.assign_add((unary.square(gradient) - v) * (1 - beta_2))
        m_hat = (mu_next * m / (1 - product * mu_next)
                 + (1 - mu_t) * gradient / (1 - product))
        v_hat = v / (1 - math.pow(beta_2, step))
        variable.assign_sub(m_hat * learning_rate / (unary.sqrt(v_hat) + self.epsilon))


registry.register("optimizer", Nadam)
