"""Hyperparameters as Variables, and the learning rate (a Variable, schedule or callable).

Optimizer hyperparameters such as ``learning_rate``, ``beta_1`` or ``momentum`` are
non-trainable float32 Variables from construction: assigning a number changes them for
the next step (no lazily created state to miss), reading them gives the Variable, and
checkpoints save them. The learning rate may instead be a schedule, called with the
optimizer's `iterations` every step, or a callable without arguments.

Example:
    >>> import eagerflow as ef
    >>> opt = ef.optim.Adam(beta_1=0.8)
    >>> opt.beta_1.assign(0.85)
    <ef.Variable 'adam/beta_1' shape=() dtype=float32, numpy=array(0.85, dtype=float32)>
    >>> round(opt._hyper("beta_1"), 4)
    0.85
"""

from __future__ import annotations

import numbers

import numpy as np

from eagerflow.core import tensor
from eagerflow.core.variable import Variable
from eagerflow.optim import schedules

__all__ = ["Hyperparameter", "HyperparametersMixin", "check_float"]


class Hyperparameter:
    """A float hyperparameter kept in a non-trainable float32 Variable.

    Reading ``opt.<name>`` returns the Variable; assigning a number to it (or to the
    Variable) changes it from the next step on, and it is saved in checkpoints.

    Example:
        >>> import eagerflow as ef
        >>> class Heavy(ef.optim.SGD):
        ...     damping = ef.optim.Hyperparameter()
        >>> opt = Heavy()
        >>> opt.damping = 0.5
        >>> opt.damping
        <ef.Variable 'heavy/damping' shape=() dtype=float32, numpy=array(0.5, dtype=float32)>
    """

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        return self if obj is None else obj._hypers.get(self.name)

    def __set__(self, obj, value):
        obj._set_hyper(self.name, value)


def check_float(value, what: str, owner: str, minimum=None) -> float:
    """Returns `value` as a float, or raises ValueError naming `what` and `owner`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{owner}: `{what}` must be a float. Received: {what}={value!r}")
    if minimum is not None and not value >= minimum:
        raise ValueError(f"{owner}: `{what}` must be >= {minimum}. Received: {what}={value!r}")
    return float(value)


class HyperparametersMixin:
    """Hyperparameter storage and the `learning_rate` property of `Optimizer`.

    The optimizer's ``__init__`` sets ``self._hypers = {}`` and ``self._learning_rate``
    before assigning any hyperparameter.
    """

    def _set_hyper(self, name: str, value) -> None:
        current = self._hypers.get(name)
        if isinstance(value, Variable):
            self._hypers[name] = value
            self._track_new_variable(name, value)
            return
        number = check_float(float(value) if isinstance(value, tensor.Tensor) else value,
                              name, type(self).__name__)
        if current is None:
            current = Variable(np.float32(number), trainable=False, name=f"{self.name}/{name}")
            self._hypers[name] = current
            self._track_new_variable(name, current)
        else:
            current.assign(np.asarray(number, current.dtype))

    def _hyper(self, name: str) -> float:
        """The current value of hyperparameter `name` as a Python float (no tape, no op)."""
        return float(self._hypers[name]._buf)

    @property
    def learning_rate(self):
        """The learning rate: its Variable, or the schedule's value at `iterations`.

        Assign a float (or a Variable, schedule or callable) to change it for the next step.

        Example:
            >>> import eagerflow as ef
            >>> opt = ef.optim.SGD(0.1)
            >>> opt.learning_rate = 0.05
            >>> opt.learning_rate
            <ef.Variable 'sgd/learning_rate' shape=() dtype=float32, numpy=array(0.05, dtype=float32)>
        """  # noqa: E501
        rate = self._learning_rate
        if isinstance(rate, Variable):
            return rate
        if isinstance(rate, schedules.LearningRateSchedule):
            return rate(self.iterations)
        return tensor.Tensor(rate(), "float32")

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        if isinstance(value, (schedules.LearningRateSchedule, Variable)):
            self._learning_rate = value
            self._hypers.pop("learning_rate", None)
            if isinstance(value, Variable):
                self._hypers["learning_rate"] = value
                self._track_new_variable("learning_rate", value)
            return
        if callable(value) and not isinstance(value, tensor.Tensor):
            self._learning_rate = value
            self._hypers.pop("learning_rate", None)
            return
        if not isinstance(value, (numbers.Real, tensor.Tensor)) or isinstance(value, bool):
            raise ValueError(
                f"{type(self).__name__}: `learning_rate` must be a float, a Variable, a "
                "LearningRateSchedule, or a callable without arguments returning the rate. "
                f"Received: learning_rate={value!r}"
            )
        if not isinstance(self._learning_rate, Variable):
            self._hypers.pop("learning_rate", None)
        self._set_hyper("learning_rate", value)
        self._learning_rate = self._hypers["learning_rate"]

    def _current_lr(self) -> float:
        rate = self._learning_rate
        if isinstance(rate, Variable):
            return float(rate._buf)
        if isinstance(rate, schedules.LearningRateSchedule):
            return float(np.asarray(rate(self.iterations)))
        return float(np.asarray(rate()))

    @property
    def current_learning_rate(self) -> float:
        """The learning rate the next step will use, as a Python float.

        Example:
            >>> import eagerflow as ef
            >>> schedule = ef.optim.schedules.PiecewiseConstantDecay([0], [1.0, 0.5])
            >>> opt = ef.optim.SGD(schedule)
            >>> opt.current_learning_rate
            1.0
            >>> _ = opt.apply_gradients([(ef.constant(1.0), ef.Variable(0.0))])
            >>> opt.current_learning_rate
            0.5
        """
        return self._current_lr()
