"""Hyperparameters as Variables, and the learning rate (a Variable, schedule or callable).

Optimizer hyperparameters such as ``learning_rate``, ``beta_1`` or ``momentum`` are
non-trainable float32 Variables from construction: assigning a number changes them for
the next step (no lazily created state to miss), reading them gives the Variable, and
checkpoints save them. The learning rate may instead be a schedule, called with the
optimizer's `iterations` every step, or a callable without arguments.

Examples:
    >>> import eagerflow as ef
    >>> opt = ef.optim.Adam(beta_1=0.8)
    >>> opt.beta_1.assign(0.85)
    <ef.Variable 'adam/beta_1' shape=() dtype=float32, numpy=0.85>
    >>> round(opt._hyper("beta_1"), 4)
    0.85
"""

from __future__ import annotations

import numbers


class Hyperparameter:
    """A float hyperparameter kept in a non-trainable float32 Variable.

    Reading ``opt.<name>`` returns the Variable; assigning a number to it (or to the
    Variable) changes it from the next step on, and it is saved in checkpoints.

    Examples:
        >>> import eagerflow as ef
        >>> class Heavy(ef.optim.SGD):
        ...     damping = ef.optim.Hyperparameter()
        >>> opt = Heavy()
        >>> opt.damping = 0.5
        >>> opt.damping
        <ef.Variable 'heavy/damping' shape=() dtype=float32, numpy=0.5>
    """

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        return self if obj is None else obj._hypers.get(self.name)

    def __set__(self, obj, value):
        obj._set_hyper(self.name, value)


def check_float(value, what: str, owner: str, minimum=None, maximum=None) -> float:
    """Returns `value` as a float, or raises ValueError naming `what` and `owner`.

    With both bounds the message reads "must be in [minimum, maximum]".
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{owner}: `{what}` must be a float. Received: {what}={value!r}")
    if maximum is not None and not (value <= maximum and (minimum is None or value >= minimum)):
        expected = f"<= {maximum}" if minimum is None else f"in [{minimum}, {maximum}]"
        raise ValueError(f"{owner}: `{what}` must be {expected}. Received: {what}={value!r}")
    if minimum is not None and not value >= minimum:
        raise ValueError(f"{owner}: `{what}` must be >= {minimum}. Received: {what}={value!r}")
    return float(value)
