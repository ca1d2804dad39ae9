"""Adam, with optional AMSGrad: Keras 3's update rule (bias correction folded into the step).

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable(1.0)
    >>> _ = ef.optim.Adam(learning_rate=0.1).apply_gradients([(ef.constant(5.0), w)])
    >>> round(float(w), 4)
    0.9
"""

from __future__ import annotations

from typing import Any

from eagerflow.ops import math, unary
from eagerflow.optim import moments
from eagerflow.saving import registry


class Adam(moments.MomentOptimizer):
    """Adaptive moment estimation.

    Per step ``t`` (counting from 1), with slots ``momentum`` (m) and ``velocity`` (v)::

        m += (g - m) * (1 - beta_1)
        v += (g * g - v) * (1 - beta_2)
        alpha = learning_rate * sqrt(1 - beta_2 ** t) / (1 - beta_1 ** t)
        w -= alpha * m / (sqrt(v) + epsilon)

    With ``amsgrad=True`` a third slot ``velocity_hat`` keeps the running maximum of v, which
    replaces v in the last line. Note that epsilon is added after the bias correction is
    folded into alpha (Keras's and TensorFlow's "epsilon hat"), not to a corrected v.

    Args:
        learning_rate: float, Variable, schedule or callable (see `Optimizer`).
        beta_1: decay of the first-moment estimate.
        beta_2: decay of the second-moment estimate.
        epsilon: small constant for numerical stability.
        amsgrad: use the AMSGrad variant.
        **kwargs: `clipnorm`, `clipvalue`, `global_clipnorm`, `weight_decay`, `name`.

    Examples:
        >>> import eagerflow as ef
        >>> w = ef.Variable([1.0, -1.0])
        >>> opt = ef.optim.Adam(learning_rate=0.01)
        >>> _ = opt.apply_gradients([(ef.constant([0.5, -2.0]), w)])
        >>> [round(float(x), 4) for x in w.numpy()], opt.get_slot_names()
        ([0.99, -0.99], ['momentum', 'velocity'])
    """

    _config_names = (*moments.MomentOptimizer._config_names, "amsgrad")
    _slot_aliases = {"m": "momentum", "v": "velocity", "vhat": "velocity_hat"}

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, amsgrad: bool = False, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2,
                         epsilon=epsilon, **kwargs)
        self.amsgrad = bool(amsgrad)

    def build(self, var_list: Any) -> None:
        super().build(var_list)
        self.add_optimizer_variables(
            var_list, ["momentum", "velocity"] + (["velocity_hat"] if self.amsgrad else []))

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        dtype = variable.dtype
        m, v = self.get_slot(variable, "momentum"), self.get_slot(variable, "velocity")
        beta_1, beta_2 = self._hyper_tensor("beta_1", dtype), self._hyper_tensor("beta_2", dtype)
        step = self._step_count(dtype)
        alpha = learning_rate * unary.sqrt(1 - math.pow(beta_2, step)) / (
            1 - math.pow(beta_1, step))
        m.assign_add((gradient - m) * (1 - beta_1))
        v.assign_add((unary.square(gradient) - v) * (1 - beta_2))
        if self.amsgrad:
            v_hat = self.get_slot(variable, "velocity_hat")
            v_hat.assign(math.maximum(v_hat, v))
            v = v_hat
        variable.assign_sub((m * alpha) / (unary.sqrt(v) + self.epsilon))


registry.register("optimizer", Adam)
