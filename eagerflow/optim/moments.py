"""The configuration Adamax, Lamb and Nadam share with Keras 3: ``beta_1`` and ``beta_2``
in [0, 1] and ``epsilon >= 0``, with Adam's defaults.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.optim import moments
    >>> isinstance(ef.optim.Lamb(), moments.MomentOptimizer)
    True
"""

from __future__ import annotations

from typing import Any

from eagerflow.optim import hyperparameters, optimizer


class MomentOptimizer(optimizer.Optimizer):
    """An optimizer with two moment decays and an epsilon; subclasses declare their slots in
    `build` and define `update_step`.

    Raises:
        ValueError: if a beta is outside [0, 1] or `epsilon` is negative (naming the
            optimizer class).
    """

    beta_1 = hyperparameters.Hyperparameter()
    beta_2 = hyperparameters.Hyperparameter()
    _config_names: tuple = ("beta_1", "beta_2", "epsilon")

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        owner = type(self).__name__
        self.beta_1 = hyperparameters.check_float(beta_1, "beta_1", owner, 0.0, 1.0)
        self.beta_2 = hyperparameters.check_float(beta_2, "beta_2", owner, 0.0, 1.0)
        self.epsilon = hyperparameters.check_float(epsilon, "epsilon", owner, 0.0)
