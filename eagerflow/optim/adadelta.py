"""Adadelta: step sizes from running averages of squared gradients and updates (Zeiler, 2012).

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable(1.0)
    >>> _ = ef.optim.Adadelta(learning_rate=1.0).apply_gradients([(ef.constant(5.0), w)])
    >>> round(float(w), 5)
    0.99859
"""

from __future__ import annotations

from typing import Any

from eagerflow.ops import unary
from eagerflow.optim import hyperparameters, optimizer
from eagerflow.saving import registry


class Adadelta(optimizer.Optimizer):
    """Divides by the RMS of recent gradients, multiplies by the RMS of recent updates.

    With slots ``accumulated_grad`` (a) and ``accumulated_delta_var`` (d)::

        a = rho * a + (1 - rho) * g * g
        delta = -sqrt(d + epsilon) * g / sqrt(a + epsilon)
        d = rho * d + (1 - rho) * delta * delta
        w += learning_rate * delta

    The paper has no learning rate (it is 1.0 there); Keras's default is 0.001.

    Args:
        learning_rate: float, Variable, schedule or callable (see `Optimizer`).
        rho: decay of both running averages, in [0, 1].
        epsilon: small constant inside both square roots (>= 0); it also sets the size of
            the first steps, since d starts at 0.
        **kwargs: the options of every optimizer (see `Optimizer`).

    Raises:
        ValueError: if `rho` is outside [0, 1] or `epsilon` is negative.

    Examples:
        >>> import eagerflow as ef
        >>> ef.optim.Adadelta().get_slot_names()
        ['accumulated_grad', 'accumulated_delta_var']
    """

    rho = hyperparameters.Hyperparameter()
    _config_names = ("rho", "epsilon")

    def __init__(self, learning_rate: Any = 0.001, rho: float = 0.95, epsilon: float = 1e-7,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.rho = hyperparameters.check_float(rho, "rho", "Adadelta", 0.0, 1.0)
        self.epsilon = hyperparameters.check_float(epsilon, "epsilon", "Adadelta", 0.0)

    def build(self, var_list: Any) -> None:
        super().build(var_list)
        self.add_optimizer_variables(var_list, ["accumulated_grad", "accumulated_delta_var"])

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        rho = self._hyper_tensor("rho", variable.dtype)
        grads = self.get_slot(variable, "accumulated_grad")
        deltas = self.get_slot(variable, "accumulated_delta_var")
        grads.assign(rho * grads + (1 - rho) * unary.square(gradient))
        delta = -(unary.sqrt(deltas + self.epsilon) * gradient
                  / unary.sqrt(grads + self.epsilon))
        deltas.assign(rho * deltas + (1 - rho) * unary.square(delta))
        variable.assign_add(learning_rate * delta)


registry.register("optimizer", Adadelta)
