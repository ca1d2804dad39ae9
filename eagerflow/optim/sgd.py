"""Stochastic gradient descent, with optional (Nesterov) momentum, Keras 3's update rule.

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable(1.0)
    >>> opt = ef.optim.SGD(learning_rate=0.1, momentum=0.9)
    >>> for _ in range(2):
    ...     _ = opt.apply_gradients([(ef.constant(1.0), w)])
    >>> round(float(w), 4)
    0.71
"""

from __future__ import annotations

from typing import Any

from eagerflow.core import errors
from eagerflow.optim import hyperparameters, optimizer
from eagerflow.saving import registry


class SGD(optimizer.Optimizer):
    """Gradient descent with optional momentum.

    Without momentum: ``w -= learning_rate * g``. With momentum (one slot, ``momentum``):
    ``m = momentum * m - learning_rate * g`` then ``w += m``, or with ``nesterov=True``
    ``w += momentum * m - learning_rate * g``.

    Args:
        learning_rate: float, Variable, schedule or callable (see `Optimizer`).
        momentum: float in [0, 1]. Whether the momentum slot exists is decided here: an
            optimizer created with 0 cannot be given momentum later.
        nesterov: use Nesterov momentum.
        **kwargs: `clipnorm`, `clipvalue`, `global_clipnorm`, `weight_decay`, `name`.

    Raises:
        ValueError: if `momentum` is not a float in [0, 1].

    Examples:
        >>> import eagerflow as ef
        >>> w = ef.Variable([1.0, 2.0])
        >>> _ = ef.optim.SGD(learning_rate=0.5).apply_gradients([(ef.constant([1.0, 2.0]), w)])
        >>> w.numpy()
        array([0.5, 1. ], dtype=float32)
    """

    momentum = hyperparameters.Hyperparameter()
    _config_names = ("momentum", "nesterov")

    def __init__(self, learning_rate: Any = 0.01, momentum: float = 0.0, nesterov: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        hyperparameters.check_float(momentum, "momentum", "SGD", 0.0)
        if momentum > 1:
            raise ValueError(f"SGD: `momentum` must be in [0, 1]. Received: momentum={momentum}")
        self.momentum = momentum
        self.nesterov = bool(nesterov)
        self._has_momentum = momentum != 0

    def build(self, var_list: Any) -> None:
        super().build(var_list)
        if self._has_momentum:
            self.add_optimizer_variables(var_list, "momentum")

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        if not self._has_momentum:
            if self._hyper("momentum") != 0:
                raise errors.InvalidArgumentError(
                    f"SGD {self.name!r} was created with momentum=0, so it has no momentum "
                    "slots; create it with the momentum you want instead of assigning it "
                    "later."
                )
            variable.assign_sub(gradient * learning_rate)
            return
        momentum = self._hyper_tensor("momentum", variable.dtype)
        m = self.get_slot(variable, "momentum")
        m.assign(m * momentum - gradient * learning_rate)
        if self.nesterov:
            variable.assign_add(m * momentum - gradient * learning_rate)
        else:
            variable.assign_add(m)


GradientDescent = SGD
"""TensorFlow 1's name for `SGD`; the same class."""


registry.register("optimizer", SGD, "GradientDescent")
