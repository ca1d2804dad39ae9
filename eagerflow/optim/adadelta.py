"""Adadelta: step sizes from running averages of squared gradients and of squared updates
(Keras 3's rule).

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable([1.0, -1.0])
    >>> opt = ef.optim.Adadelta(learning_rate=1.0)
    >>> _ = opt.apply_gradients([(ef.constant([1.0, -1.0]), w)])
    >>> [round(float(x), 4) for x in w.numpy()]
    [0.9986, -0.9986]
"""

from __future__ import annotations

from eagerflow.ops import unary
from eagerflow.optim import hyperparameters, optimizer
from eagerflow.saving import registry


class Adadelta(optimizer.Optimizer):
    """Adadelta (Zeiler, 2012), with Keras's learning rate factor.

    With slots ``accumulated_grad`` (a) and ``accumulated_delta_var`` (d) and
    ``rms(x) = sqrt(x + epsilon)``::

        a = rho * a + (1 - rho) * g ** 2
        delta = -rms(d) * g / rms(a)
        d = rho * d + (1 - rho) * delta ** 2
        w += learning_rate * delta

    Args:
        learning_rate: float, Variable, schedule or callable (Keras's default 0.001; the
            paper's rule is learning_rate=1.0).
        rho: the decay of the running averages.
        epsilon: small constant inside the square roots.
        **kwargs: `clipnorm`, `clipvalue`, `global_clipnorm`, `weight_decay`, `name`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.optim.get("adadelta").get_slot_names()
        ['accumulated_grad', 'accumulated_delta_var']
    """

    rho = hyperparameters.Hyperparameter()
    _config_names = ("rho", "epsilon")

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        owner = type(self).__name__
        self.rho = hyperparameters.check_float(rho, "rho", owner, 0.0)
        self.epsilon = hyperparameters.check_float(epsilon, "epsilon", owner, 0.0)
        self._slot_names = ["accumulated_grad", "accumulated_delta_var"]

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        accumulated_grad = self.get_slot(variable, "accumulated_grad")
        accumulated_delta = self.get_slot(variable, "accumulated_delta_var")
        rho = self._hyper_tensor("rho", dtype)
        epsilon = self.epsilon
        accumulated_grad.assign(rho * accumulated_grad + (1 - rho) * unary.square(gradient))
        delta = -(unary.sqrt(accumulated_delta + epsilon) * gradient) / unary.sqrt(
            accumulated_grad + epsilon)
        accumulated_delta.assign(rho * accumulated_delta + (1 - rho) * unary.square(delta))
        variable.assign_add(learning_rate * delta)


registry.register("optimizer", Adadelta)
