"""FTRL-Proximal: follow the regularized leader, for wide sparse models (McMahan et al., 2013).

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable(1.0)
    >>> _ = ef.optim.Ftrl(learning_rate=0.1).apply_gradients([(ef.constant(5.0), w)])
    >>> round(float(w), 4)
    0.8371
"""

from __future__ import annotations

from typing import Any

from eagerflow.ops import math, unary
from eagerflow.optim import hyperparameters, optimizer
from eagerflow.saving import registry


class Ftrl(optimizer.Optimizer):
    """Keeps a per-element linear term ``z`` and sets the weights in closed form from it,
    so L1 regularization gives exact zeros.

    With slots ``accumulator`` (n, starting at `initial_accumulator_value`) and ``linear``
    (z), ``p = -learning_rate_power`` and ``l2 = l2_regularization_strength +
    beta / (2 * learning_rate)``::

        n_new = n + g * g
        z += g + 2 * l2_shrinkage_regularization_strength * w
             - (n_new ** p - n ** p) / learning_rate * w
        w = (clip(z, -l1, l1) - z) / (n_new ** p / learning_rate + 2 * l2)
        n = n_new

    (``clip(z, -l1, l1) - z`` is ``sign(z) * l1 - z``, or 0 where ``|z| <= l1``.) This is
    the formula Keras 3 computes; its docstring's version writes ``l2`` without the
    factor 2.

    Args:
        learning_rate: float, Variable, schedule or callable (see `Optimizer`).
        learning_rate_power: how the per-element rate shrinks with n (<= 0; -0.5 is
            AdaGrad-like).
        initial_accumulator_value: n's starting value (>= 0).
        l1_regularization_strength: l1 (>= 0).
        l2_regularization_strength: the stabilizing L2 term (>= 0).
        l2_shrinkage_regularization_strength: an L2 penalty added to the gradient
            (magnitude shrinkage, >= 0).
        beta: the paper's beta (>= 0), folded into l2 as above.
        **kwargs: the options of every optimizer (see `Optimizer`).

    Raises:
        ValueError: for a positive `learning_rate_power` or any other argument negative.

    Examples:
        >>> import eagerflow as ef
        >>> w = ef.Variable([0.5, -0.5])
        >>> opt = ef.optim.Ftrl(learning_rate=0.1, l1_regularization_strength=1.0)
        >>> _ = opt.apply_gradients([(ef.constant([0.2, -3.0]), w)])
        >>> [round(float(x), 4) for x in w.numpy()]
        [0.0, -0.315]
    """


    _config_names = ("learning_rate_power", "initial_accumulator_value",
                     "l1_regularization_strength", "l2_regularization_strength",
                     "l2_shrinkage_regularization_strength", "beta")

    # Set (validated) by `__init__` from the arguments of the same names.
    l1_regularization_strength: float
    l2_regularization_strength: float
    l2_shrinkage_regularization_strength: float
    beta: float
    initial_accumulator_value: float

    def __init__(self, learning_rate: Any = 0.001, learning_rate_power: Any = -0.5,
                 initial_accumulator_value: float = 0.1, l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0,
                 l2_shrinkage_regularization_strength: float = 0.0, beta: float = 0.0,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.learning_rate_power = hyperparameters.check_float(
            learning_rate_power, "learning_rate_power", "Ftrl", maximum=0.0)
        for what, value in (("initial_accumulator_value", initial_accumulator_value),
                            ("l1_regularization_strength", l1_regularization_strength),
                            ("l2_regularization_strength", l2_regularization_strength),
                            ("l2_shrinkage_regularization_strength",
                             l2_shrinkage_regularization_strength),
                            ("beta", beta)):
            setattr(self, what, hyperparameters.check_float(value, what, "Ftrl", 0.0))

    def build(self, var_list: Any) -> None:
        super().build(var_list)
        self.add_optimizer_variables(var_list, "accumulator", self.initial_accumulator_value)
        self.add_optimizer_variables(var_list, "linear")

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        accumulator = self.get_slot(variable, "accumulator")
        linear = self.get_slot(variable, "linear")
        power = -self.learning_rate_power
        l1 = self.l1_regularization_strength
        l2 = self.l2_regularization_strength + self.beta / (2.0 * learning_rate)
        new_accumulator = accumulator + unary.square(gradient)
        new_power = math.pow(new_accumulator, power)
        sigma = (new_power - math.pow(accumulator, power)) / learning_rate
        linear.assign_add(gradient + 2 * self.l2_shrinkage_regularization_strength * variable
                          - sigma * variable)
        quadratic = new_power / learning_rate + 2 * l2
        variable.assign((math.clip_by_value(linear, -l1, l1) - linear) / quadratic)
        accumulator.assign(new_accumulator)


registry.register("optimizer", Ftrl)
