"""Adagrad: per-element learning rates from the sum of squared gradients (Keras 3's rule).

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable(1.0)
    >>> _ = ef.optim.Adagrad(learning_rate=0.1).apply_gradients([(ef.constant(1.0), w)])
    >>> round(float(w), 4)
    0.9047
"""

from __future__ import annotations

from typing import Any

from eagerflow.ops import unary
from eagerflow.optim import hyperparameters, optimizer
from eagerflow.saving import registry


class Adagrad(optimizer.Optimizer):
    """Adapts each element's step to how much that element has been updated.

    With one slot ``accumulator`` (a), which starts at `initial_accumulator_value`::

        a += g * g
        w -= learning_rate * g / sqrt(a + epsilon)

    Args:
        learning_rate: float, Variable, schedule or callable (see `Optimizer`).
        initial_accumulator_value: the accumulator's starting value (>= 0).
        epsilon: small constant for numerical stability (inside the square root).
        **kwargs: `clipnorm`, `clipvalue`, `global_clipnorm`, `weight_decay`, `name`.

    Raises:
        ValueError: if `initial_accumulator_value` or `epsilon` is negative.

    Examples:
        >>> import eagerflow as ef
        >>> w = ef.Variable([1.0])
        >>> opt = ef.optim.Adagrad(initial_accumulator_value=1.0)
        >>> opt.build([w])
        >>> opt.get_slot(w, "accumulator").numpy()
        array([1.], dtype=float32)
    """

    _config_names = ("initial_accumulator_value", "epsilon")

    def __init__(self, learning_rate: Any = 0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-7, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.initial_accumulator_value = hyperparameters.check_float(
            initial_accumulator_value, "initial_accumulator_value", "Adagrad", 0.0)
        self.epsilon = hyperparameters.check_float(epsilon, "epsilon", "Adagrad", 0.0)

    def build(self, var_list: Any) -> None:
        super().build(var_list)
        self.add_optimizer_variables(var_list, "accumulator", self.initial_accumulator_value)

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        accumulator = self.get_slot(variable, "accumulator")
        accumulator.assign_add(unary.square(gradient))
        variable.assign_sub(learning_rate * gradient / unary.sqrt(accumulator + self.epsilon))


registry.register("optimizer", Adagrad)
