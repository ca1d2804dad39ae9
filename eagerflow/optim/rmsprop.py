"""RMSprop, plain, centered, and with momentum: Keras 3's update rule.

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable(1.0)
    >>> _ = ef.optim.RMSprop(learning_rate=0.01).apply_gradients([(ef.constant(2.0), w)])
    >>> round(float(w), 4)
    0.9684
"""

from __future__ import annotations

from typing import Any

from eagerflow.core import errors
from eagerflow.ops import unary
from eagerflow.optim import hyperparameters, optimizer
from eagerflow.saving import registry


class RMSprop(optimizer.Optimizer):
    """Divides the gradient by a running root mean square of recent gradients.

    With slots ``velocity`` (v), and ``average_gradient`` (a) when centered, ``momentum``
    (p) when momentum > 0::

        v = rho * v + (1 - rho) * g * g
        a = rho * a + (1 - rho) * g                  # centered only
        increment = lr * g / sqrt(v - a * a + epsilon)  # or sqrt(v + epsilon)
        p = momentum * p + increment; w -= p         # or w -= increment

    Args:
        learning_rate: float, Variable, schedule or callable (see `Optimizer`).
        rho: decay of the squared-gradient average.
        momentum: momentum (> 0 creates the momentum slot; decided at construction).
        epsilon: small constant for numerical stability (inside the square root).
        centered: normalize by an estimate of the gradient's variance instead.
        **kwargs: `clipnorm`, `clipvalue`, `global_clipnorm`, `weight_decay`, `name`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.optim.RMSprop(momentum=0.9, centered=True).get_slot_names()
        ['velocity', 'momentum', 'average_gradient']
    """

    rho = hyperparameters.Hyperparameter()
    momentum = hyperparameters.Hyperparameter()
    _config_names = ("rho", "momentum", "epsilon", "centered")
    _slot_aliases = {"rms": "velocity", "mg": "average_gradient"}

    def __init__(self, learning_rate: Any = 0.001, rho: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-7, centered: bool = False, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.rho = hyperparameters.check_float(rho, "rho", "RMSprop", 0.0)
        self.momentum = hyperparameters.check_float(momentum, "momentum", "RMSprop", 0.0)
        self.epsilon = hyperparameters.check_float(epsilon, "epsilon", "RMSprop", 0.0)
        self.centered = bool(centered)
        self._has_momentum = momentum > 0

    def build(self, var_list: Any) -> None:
        super().build(var_list)
        self.add_optimizer_variables(
            var_list, ["velocity"] + (["momentum"] if self._has_momentum else [])
            + (["average_gradient"] if self.centered else []))

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        dtype = variable.dtype
        has_momentum = self._has_momentum
        if not has_momentum and self._hyper("momentum") > 0:
            raise errors.InvalidArgumentError(
                f"RMSprop {self.name!r} was created with momentum=0, so it has no momentum "
                "slots; create it with the momentum you want instead of assigning it later."
            )
        rho = self._hyper_tensor("rho", dtype)
        velocity = self.get_slot(variable, "velocity")
        velocity.assign(rho * velocity + (1 - rho) * unary.square(gradient))
        if self.centered:
            average = self.get_slot(variable, "average_gradient")
            average.assign(rho * average + (1 - rho) * gradient)
            denominator = velocity - unary.square(average) + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = learning_rate * gradient / unary.sqrt(denominator)
        if has_momentum:
            momentum = self.get_slot(variable, "momentum")
            momentum.assign(self._hyper_tensor("momentum", dtype) * momentum + increment)
            variable.assign_sub(momentum)
        else:
            variable.assign_sub(increment)


registry.register("optimizer", RMSprop)
