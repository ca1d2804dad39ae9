"""Lion: the sign of an interpolated momentum, found by program search (Chen et al., 2023).

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable(1.0)
    >>> _ = ef.optim.Lion(learning_rate=0.1).apply_gradients([(ef.constant(5.0), w)])
    >>> round(float(w), 4)
    0.9
"""

from __future__ import annotations

from typing import Any

from eagerflow.ops import unary
from eagerflow.optim import hyperparameters, optimizer
from eagerflow.saving import registry


class Lion(optimizer.Optimizer):
    """Evolved sign momentum: every element moves by exactly the learning rate.

    With one slot ``momentum`` (m)::

        w -= learning_rate * sign(beta_1 * m + (1 - beta_1) * g)
        m = beta_2 * m + (1 - beta_2) * g

    Because every step has the same size, Lion's learning rate is usually 3-10 times
    smaller than Adam's (and its weight decay larger).

    Args:
        learning_rate: float, Variable, schedule or callable (see `Optimizer`).
        beta_1: interpolation between momentum and gradient for the step, in (0, 1]
            (0 would make Lion plain sign descent).
        beta_2: decay of the momentum, in [0, 1].
        **kwargs: the options of every optimizer (see `Optimizer`).

    Raises:
        ValueError: if `beta_1` is outside (0, 1] or `beta_2` outside [0, 1].

    Examples:
        >>> import eagerflow as ef
        >>> w = ef.Variable([1.0, -1.0, 0.5])
        >>> opt = ef.optim.Lion(learning_rate=0.25)
        >>> _ = opt.apply_gradients([(ef.constant([0.5, -2.0, 0.0]), w)])
        >>> w.numpy()
        array([ 0.75, -0.75,  0.5 ], dtype=float32)
    """

    beta_1 = hyperparameters.Hyperparameter()
    beta_2 = hyperparameters.Hyperparameter()
    _config_names = ("beta_1", "beta_2")

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.99,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        if hyperparameters.check_float(beta_1, "beta_1", "Lion", 0.0, 1.0) == 0:
            raise ValueError(
                "Lion: `beta_1` must be in (0, 1]; 0 makes Lion plain sign descent "
                f"(SignSGD). Received: beta_1={beta_1!r}")
        self.beta_1 = beta_1
        self.beta_2 = hyperparameters.check_float(beta_2, "beta_2", "Lion", 0.0, 1.0)

    def build(self, var_list: Any) -> None:
        super().build(var_list)
        self.add_optimizer_variables(var_list, "momentum")

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        dtype = variable.dtype
        m = self.get_slot(variable, "momentum")
        beta_1, beta_2 = self._hyper_tensor("beta_1", dtype), self._hyper_tensor("beta_2", dtype)
        variable.assign_sub(learning_rate * unary.sign(m * beta_1 + gradient * (1 - beta_1)))
        m.assign(m * beta_2 + gradient * (1 - beta_2))


registry.register("optimizer", Lion)
