"""Lion: the sign of an interpolated momentum as the update (Chen et al., 2023; Keras 3's
rule).

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable([1.0, -1.0])
    >>> _ = ef.optim.Lion(learning_rate=0.1).apply_gradients([(ef.constant([3.0, -0.5]), w)])
    >>> [round(float(x), 4) for x in w.numpy()]
    [0.9, -0.9]
"""

from __future__ import annotations

from eagerflow.ops import unary
from eagerflow.optim import hyperparameters, optimizer
from eagerflow.saving import registry


class Lion(optimizer.Optimizer):
    """EvoLved sIgn mOmeNtum.

    With slot ``momentum`` (m)::

        w -= learning_rate * sign(beta_1 * m + (1 - beta_1) * g)
        m = beta_2 * m + (1 - beta_2) * g

    Every coordinate moves by exactly the learning rate, so Lion usually wants a 3-10x
    smaller learning rate than Adam.

    Args:
        learning_rate: float, Variable, schedule or callable (see `Optimizer`).
        beta_1: the interpolation in the update.
        beta_2: the decay of the momentum.
        **kwargs: `clipnorm`, `clipvalue`, `global_clipnorm`, `weight_decay`, `name`.

    Raises:
        ValueError: if `beta_1` is not in (0, 1].

    Examples:
        >>> import eagerflow as ef
        >>> ef.optim.get("lion").get_slot_names()
        ['momentum']
    """

    beta_1 = hyperparameters.Hyperparameter()
    beta_2 = hyperparameters.Hyperparameter()
    _config_names = ("beta_1", "beta_2")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        owner = type(self).__name__
        beta_1 = hyperparameters.check_float(beta_1, "beta_1", owner)
        if not 0 < beta_1 <= 1:
            raise ValueError(f"{owner}: `beta_1` must be in (0, 1]. Received: "
                             f"beta_1={beta_1!r}")
        self.beta_1 = beta_1
        self.beta_2 = hyperparameters.check_float(beta_2, "beta_2", owner, 0.0)
        self._slot_names = ["momentum"]

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        m = self.get_slot(variable, "momentum")
        beta_1, beta_2 = self._hyper_tensor("beta_1", dtype), self._hyper_tensor("beta_2", dtype)
        variable.assign_sub(learning_rate * unary.sign(m * beta_1 + gradient * (1 - beta_1)))
        m.assign(m * beta_2 + gradient * (1 - beta_2))


registry.register("optimizer", Lion)
