"""Adafactor: Adam-like steps with factored second moments (Shazeer & Stern, 2018).

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable([[1.0, 2.0], [3.0, 4.0]])
    >>> opt = ef.optim.Adafactor(learning_rate=0.1)
    >>> _ = opt.apply_gradients([(ef.constant([[1.0, 0.0], [0.0, 1.0]]), w)])
    >>> opt.get_slot(w, "velocity_row").shape, opt.get_slot(w, "velocity_col").shape
    ((2,), (2,))
"""

from __future__ import annotations

from typing import Any

from eagerflow.core import nest
from eagerflow.ops import array_ops as array, math, reduce, unary
from eagerflow.optim import hyperparameters, optimizer
from eagerflow.saving import registry


def _rms(x):
    return unary.sqrt(reduce.reduce_mean(unary.square(x)))


class Adafactor(optimizer.Optimizer):
    """Keeps, for a matrix, one second-moment value per row and per column instead of per
    element (the last two axes are factored), so its memory is sublinear in the weights.

    Per step ``t`` (counting from 1), with ``g2 = g * g + epsilon_1`` and
    ``beta_2_t = 1 - t ** beta_2_decay``::

        rho_t = min(learning_rate, 1 / sqrt(t))
        alpha_t = max(epsilon_2, rms(w)) * rho_t
        # variables with 2 or more axes: slots velocity_row (r), velocity_col (c), velocity
        r = beta_2_t * r + (1 - beta_2_t) * mean(g2, axis=-1)
        c = beta_2_t * c + (1 - beta_2_t) * mean(g2, axis=-2)
        v = (r / mean(r, axis=-1))[..., :, None] * c[..., None, :]
        # vectors and scalars: one slot, velocity
        v = beta_2_t * v + (1 - beta_2_t) * g2
        u = g / sqrt(v)
        w -= alpha_t * u / max(1, rms(u) / clip_threshold)

    ``rms(x)`` is the root mean square over all elements. As in Keras 3, the step is capped
    at ``1 / sqrt(t)`` whatever `relative_step` says (Keras applies the cap once when it is
    True and again unconditionally; both give the minimum above).

    Args:
        learning_rate: float, Variable, schedule or callable (see `Optimizer`).
        beta_2_decay: exponent of the second-moment decay schedule (<= 0).
        epsilon_1: added to the squared gradient (>= 0).
        epsilon_2: lower bound of the weights' RMS in the step size (>= 0).
        clip_threshold: the update's RMS is clipped to this (> 0); independent of
            `clipnorm`, `clipvalue` and `global_clipnorm`.
        relative_step: kept for Keras compatibility (see above).
        **kwargs: the options of every optimizer (see `Optimizer`).

    Raises:
        ValueError: for a positive `beta_2_decay`, a negative epsilon or a non-positive
            `clip_threshold`.

    Examples:
        >>> import eagerflow as ef
        >>> w = ef.Variable([3.0, -4.0])
        >>> opt = ef.optim.Adafactor(learning_rate=0.5)
        >>> _ = opt.apply_gradients([(ef.constant([1.0, 1.0]), w)])
        >>> [round(float(x), 4) for x in w.numpy()], opt.get_slot_names()
        ([1.2322, -5.7678], ['velocity_row', 'velocity_col', 'velocity'])
    """

    _config_names = ("beta_2_decay", "epsilon_1", "epsilon_2", "clip_threshold",
                     "relative_step")

    def __init__(self, learning_rate: Any = 0.001, beta_2_decay: Any = -0.8,
                 epsilon_1: float = 1e-30, epsilon_2: float = 1e-3, clip_threshold: float = 1.0,
                 relative_step: bool = True, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta_2_decay = hyperparameters.check_float(
            beta_2_decay, "beta_2_decay", "Adafactor", maximum=0.0)
        self.epsilon_1 = hyperparameters.check_float(epsilon_1, "epsilon_1", "Adafactor", 0.0)
        self.epsilon_2 = hyperparameters.check_float(epsilon_2, "epsilon_2", "Adafactor", 0.0)
        self.clip_threshold = hyperparameters.check_float(
            clip_threshold, "clip_threshold", "Adafactor")
        if not self.clip_threshold > 0:
            raise ValueError("Adafactor: `clip_threshold` must be > 0. Received: "
                             f"clip_threshold={clip_threshold!r}")
        self.relative_step = bool(relative_step)

    def build(self, var_list: Any) -> None:
        super().build(var_list)
        variables = nest.flatten(var_list)
        # The row and column statistics of matrices (and larger), each of its own shape.
        self.add_optimizer_variables([], ["velocity_row", "velocity_col"])  # (declared)
        for var in variables:
            if len(var.shape) >= 2:
                self.add_variable_from_reference(var, "velocity_row", shape=var.shape[:-1])
                self.add_variable_from_reference(var, "velocity_col",
                                                 shape=var.shape[:-2] + var.shape[-1:])
        self.add_optimizer_variables(variables, "velocity")

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        step = self._step_count(variable.dtype)
        rho_t = math.minimum(learning_rate, unary.rsqrt(step))
        alpha_t = math.maximum(self.epsilon_2, _rms(variable)) * rho_t
        squared = unary.square(gradient) + self.epsilon_1
        beta_2_t = 1 - math.pow(step, self.beta_2_decay)
        velocity = self.get_slot(variable, "velocity")
        if len(variable.shape) >= 2:
            row = self.get_slot(variable, "velocity_row")
            col = self.get_slot(variable, "velocity_col")
            row.assign(beta_2_t * row + (1 - beta_2_t) * reduce.reduce_mean(squared, axis=-1))
            col.assign(beta_2_t * col + (1 - beta_2_t) * reduce.reduce_mean(squared, axis=-2))
            row_share = row / reduce.reduce_mean(row, axis=-1, keepdims=True)
            velocity.assign(array.expand_dims(row_share, -1) * array.expand_dims(col, -2))
        else:
            velocity.assign(beta_2_t * velocity + (1 - beta_2_t) * squared)
        update = gradient / unary.sqrt(velocity)
        variable.assign_sub(alpha_t * update / math.maximum(1, _rms(update) / self.clip_threshold))


registry.register("optimizer", Adafactor)
