"""Learning-rate schedules (`ef.optim.schedules`): the learning rate as a function of the step.

An optimizer created with a schedule calls it with its `iterations` counter (the number of
updates applied so far) at every step. Schedules compute in float32, like Keras, and return
a scalar float32 Tensor; they can also be called directly with a step number.

Examples:
    >>> import eagerflow as ef
    >>> schedule = ef.optim.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    >>> print(f"{float(schedule(0)):.3f} {float(schedule(10)):.3f} {float(schedule(20)):.3f}")
    0.100 0.050 0.025
    >>> opt = ef.optim.SGD(learning_rate=schedule)
"""

from __future__ import annotations

import abc
import math

from eagerflow import absent as _absent
from eagerflow.core.variable import Variable
from eagerflow.ops import array, creation, indexing, logic, reduce, unary
from eagerflow.ops import math as math_ops

__all__ = [
    "CosineDecay",
    "ExponentialDecay",
    "InverseTimeDecay",
    "LearningRateSchedule",
    "PiecewiseConstantDecay",
    "deserialize",
    "serialize",
]

def _step_value(step):
    """The step as a float32 scalar tensor, from an int, a Tensor, a Variable or an array.

    Schedules compute with eagerflow ops, so inside `ef.function` the step is read when
    the graph runs (a Variable such as `iterations` is captured by reference).
    """
    value = step.value if isinstance(step, Variable) else creation.convert_to_tensor(step)
    return math_ops.cast(array.reshape(value, ()), "float32")


def _f32(value):
    return creation.constant(value, "float32")


def _positive(value, what: str, schedule: str) -> None:
    if not value > 0:
        raise ValueError(f"{schedule}: `{what}` must be > 0. Received: {what}={value!r}")


class LearningRateSchedule(abc.ABC):
    """Base class of learning-rate schedules: subclasses implement ``__call__(step)``.

    A subclass also implements `get_config` (its constructor arguments) so optimizers that
    use it can be serialized.

    Examples:
        >>> import eagerflow as ef
        >>> class Halving(ef.optim.schedules.LearningRateSchedule):
        ...     def __call__(self, step):
        ...         return ef.constant(1.0) / (2.0 ** ef.cast(step, ef.float32))
        ...     def get_config(self):
        ...         return {}
        >>> float(Halving()(3))
        0.125
    """

    @abc.abstractmethod
    def __call__(self, step):
        """Returns the learning rate (a scalar float32 Tensor) at `step`."""

    @abc.abstractmethod
    def get_config(self) -> dict:
        """Returns the constructor arguments as a dict."""

    @classmethod
    def from_config(cls, config: dict):
        """Creates the schedule from `get_config()` output.

        Examples:
            >>> import eagerflow as ef
            >>> s = ef.optim.schedules.ExponentialDecay(1.0, 10, 0.5)
            >>> float(type(s).from_config(s.get_config())(10))
            0.5
        """
        return cls(**config)


class _StepDecay(LearningRateSchedule):
    """The arguments and the decay progress shared by ExponentialDecay and InverseTimeDecay.

    Both compute their rate from ``p = step / decay_steps`` (floored when `staircase`).
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase, name):
        _positive(decay_steps, "decay_steps", type(self).__name__)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def _progress(self, step):
        p = _step_value(step) / _f32(self.decay_steps)
        return unary.floor(p) if self.staircase else p

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class ExponentialDecay(_StepDecay):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)``.

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: the number of steps over which the rate is multiplied by `decay_rate`
            (must be > 0).
        decay_rate: the multiplier per `decay_steps` steps.
        staircase: if True, ``step / decay_steps`` is floored, so the rate drops in steps.
        name: a name for the schedule.

    Raises:
        ValueError: if `decay_steps` is not positive.

    Examples:
        >>> import eagerflow as ef
        >>> s = ef.optim.schedules.ExponentialDecay(1.0, 2, 0.5, staircase=True)
        >>> [float(s(i)) for i in range(5)]
        [1.0, 1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="ExponentialDecay"):
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step):
        p = self._progress(step)
        return _f32(self.initial_learning_rate) * math_ops.pow(_f32(self.decay_rate), p)


class InverseTimeDecay(_StepDecay):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)``.

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: the step scale of the decay (must be > 0).
        decay_rate: how fast the rate falls.
        staircase: if True, ``step / decay_steps`` is floored.
        name: a name for the schedule.

    Raises:
        ValueError: if `decay_steps` is not positive.

    Examples:
        >>> import eagerflow as ef
        >>> s = ef.optim.schedules.InverseTimeDecay(1.0, decay_steps=1, decay_rate=1.0)
        >>> [float(s(i)) for i in range(4)]
        [1.0, 0.5, 0.3333, 0.25]
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="InverseTimeDecay"):
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step):
        denominator = _f32(1.0) + _f32(self.decay_rate) * self._progress(step)
        return _f32(self.initial_learning_rate) / denominator


class PiecewiseConstantDecay(LearningRateSchedule):
    """A constant rate per interval of steps.

    The rate is ``values[0]`` while ``step <= boundaries[0]``, ``values[i]`` while
    ``boundaries[i-1] < step <= boundaries[i]``, and ``values[-1]`` after the last boundary.

    Args:
        boundaries: increasing step numbers, one fewer than `values`.
        values: the rates.
        name: a name for the schedule.

    Raises:
        ValueError: if the lengths do not match or the boundaries are not increasing.

    Examples:
        >>> import eagerflow as ef
        >>> s = ef.optim.schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
        >>> [float(s(step)) for step in (0, 10, 11, 20, 21)]
        [1.0, 1.0, 0.5, 0.5, 0.1000]
    """

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        boundaries, values = list(boundaries), list(values)
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "PiecewiseConstantDecay: the length of `boundaries` must be 1 less than the "
                f"length of `values`. Received: boundaries={boundaries} of length "
                f"{len(boundaries)}, and values={values} of length {len(values)}."
            )
        if any(b >= a for b, a in zip(boundaries, boundaries[1:], strict=False)):
            raise ValueError(
                "PiecewiseConstantDecay: `boundaries` must be strictly increasing. "
                f"Received: boundaries={boundaries}"
            )
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step):
        # values[i] where i counts the boundaries strictly below the step.
        step = _step_value(step)
        below = math_ops.cast(logic.greater(step, creation.constant(self.boundaries,
                                                                     "float32")), "int32")
        index = reduce.reduce_sum(below)
        return indexing.gather(creation.constant(self.values, "float32"), index)

    def get_config(self) -> dict:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class CosineDecay(LearningRateSchedule):
    """Cosine decay from the initial (or warm-up target) rate to ``alpha`` times it.

    Without warm-up: ``lr(step) = initial * ((1 - alpha) * 0.5 * (1 + cos(pi * s / D)) +
    alpha)`` with ``s = min(step, D)`` and ``D = decay_steps``. With ``warmup_target``, the
    rate first grows linearly from `initial_learning_rate` to `warmup_target` over
    `warmup_steps` steps, then decays from `warmup_target` the same way over `decay_steps`.

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: the length of the decay (must be > 0).
        alpha: the final rate as a fraction of the decayed-from rate.
        name: a name for the schedule.
        warmup_target: the rate reached at the end of warm-up, or None for no warm-up.
        warmup_steps: the length of the warm-up.

    Raises:
        ValueError: if `decay_steps` is not positive or `warmup_steps` is negative.

    Examples:
        >>> import eagerflow as ef
        >>> s = ef.optim.schedules.CosineDecay(0.0, decay_steps=10, warmup_target=1.0,
        ...                                    warmup_steps=5)
        >>> [round(float(s(step)), 3) for step in (0, 5, 10, 15, 20)]
        [0.0, 1.0, 0.5, 0.0, 0.0]
    """

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay",
                 warmup_target=None, warmup_steps=0):
        _positive(decay_steps, "decay_steps", "CosineDecay")
        if warmup_steps < 0:
            raise ValueError(
                f"CosineDecay: `warmup_steps` must be >= 0. Received: warmup_steps={warmup_steps}"
            )
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def _decay(self, step, decay_from):
        cosine = 0.5 * (1.0 + unary.cos(_f32(math.pi) * (step / _f32(self.decay_steps))))
        alpha = _f32(self.alpha)
        return decay_from * ((_f32(1.0) - alpha) * cosine + alpha)

    def __call__(self, step):
        step = _step_value(step)
        initial = _f32(self.initial_learning_rate)
        decay_steps = _f32(self.decay_steps)
        if self.warmup_target is None:
            return self._decay(math_ops.minimum(step, decay_steps), initial)
        target, warmup = _f32(self.warmup_target), _f32(self.warmup_steps)
        step = math_ops.minimum(step, decay_steps + warmup)
        warming = (target - initial) * (step / math_ops.maximum(warmup, 1.0)) + initial
        decaying = self._decay(math_ops.maximum(step - warmup, 0.0), target)
        return math_ops.where(logic.less(step, warmup), warming, decaying)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


_BUILT_IN = {cls.__name__: cls for cls in (
    ExponentialDecay, InverseTimeDecay, PiecewiseConstantDecay, CosineDecay)}


def serialize(schedule: LearningRateSchedule) -> dict:
    """Returns ``{"class_name": ..., "config": ...}`` for a schedule.

    Examples:
        >>> import eagerflow as ef
        >>> ef.optim.schedules.serialize(ef.optim.schedules.PiecewiseConstantDecay([5], [1., .1]))
        {'class_name': 'PiecewiseConstantDecay', 'config': {'boundaries': [5], 'values': [1.0, 0.1], 'name': 'PiecewiseConstant'}}
    """  # noqa: E501
    return {"class_name": type(schedule).__name__, "config": schedule.get_config()}


def deserialize(config: dict, custom_objects: dict | None = None) -> LearningRateSchedule:
    """Creates a schedule from `serialize` output.

    Args:
        config: ``{"class_name": name, "config": {...}}``.
        custom_objects: extra schedule classes by name.

    Raises:
        ValueError: if the class name is unknown.

    Examples:
        >>> import eagerflow as ef
        >>> s = ef.optim.schedules.deserialize(
        ...     {"class_name": "InverseTimeDecay",
        ...      "config": {"initial_learning_rate": 1.0, "decay_steps": 1, "decay_rate": 1.0}})
        >>> float(s(1))
        0.5
    """
    classes = dict(_BUILT_IN, **(custom_objects or {}))
    name = config.get("class_name") if isinstance(config, dict) else None
    if name not in classes:
        raise ValueError(
            f"Unknown learning-rate schedule {name!r}; known: {sorted(classes)}. Pass custom "
            f"schedule classes through `custom_objects`. Received: config={config!r}"
        )
    return classes[name].from_config(config.get("config", {}))


__getattr__ = _absent.namespace_getattr(__name__, "keras.optimizers.schedules")
