"""Schedules against hand-computed values of Keras 3's formulas."""

import math

import numpy as np
import pytest

import eagerflow as ef

schedules = ef.optim.schedules
STEPS = range(0, 40, 3)


def _values(schedule):
    return np.array([float(schedule(step)) for step in STEPS])


def test_exponential_decay():
    expected = [0.1 * 0.6 ** (s / 7) for s in STEPS]
    np.testing.assert_allclose(_values(schedules.ExponentialDecay(0.1, 7, 0.6)), expected,
                               rtol=1e-6)
    stairs = [0.1 * 0.6 ** math.floor(s / 7) for s in STEPS]
    np.testing.assert_allclose(
        _values(schedules.ExponentialDecay(0.1, 7, 0.6, staircase=True)), stairs, rtol=1e-6)


def test_inverse_time_decay():
    expected = [0.3 / (1 + 0.7 * s / 5) for s in STEPS]
    np.testing.assert_allclose(_values(schedules.InverseTimeDecay(0.3, 5, 0.7)), expected,
                               rtol=1e-6)
    stairs = [0.3 / (1 + 0.7 * math.floor(s / 5)) for s in STEPS]
    np.testing.assert_allclose(
        _values(schedules.InverseTimeDecay(0.3, 5, 0.7, staircase=True)), stairs, rtol=1e-6)


def test_piecewise_constant_decay_boundaries_are_inclusive_on_the_left_interval():
    schedule = schedules.PiecewiseConstantDecay([3, 8], [1.0, 0.5, 0.1])
    got = [float(schedule(step)) for step in (0, 3, 4, 8, 9, 100)]
    np.testing.assert_allclose(got, [1.0, 1.0, 0.5, 0.5, 0.1, 0.1], rtol=1e-7)


def test_cosine_decay_without_warmup():
    expected = [0.2 * (0.9 * 0.5 * (1 + math.cos(math.pi * min(s, 20) / 20)) + 0.1)
                for s in STEPS]
    np.testing.assert_allclose(_values(schedules.CosineDecay(0.2, 20, alpha=0.1)), expected,
                               rtol=1e-6, atol=1e-8)


def test_cosine_decay_with_warmup():
    def keras(step):
        step = min(step, 26)
        if step < 6:
            return (0.5 - 0.01) * step / 6 + 0.01
        decayed = 0.5 * (1 + math.cos(math.pi * (step - 6) / 20))
        return 0.5 * (0.9 * decayed + 0.1)

    schedule = schedules.CosineDecay(0.01, 20, alpha=0.1, warmup_target=0.5, warmup_steps=6)
    np.testing.assert_allclose(_values(schedule), [keras(s) for s in STEPS], rtol=1e-6)


def test_schedules_accept_tensor_and_variable_steps_and_return_float32_scalars():
    schedule = schedules.ExponentialDecay(1.0, 1, 0.5)
    for step in (2, ef.constant(2), ef.Variable(np.int64(2)), np.int64(2)):
        value = schedule(step)
        assert isinstance(value, ef.Tensor) and value.dtype == np.float32 and value.shape == ()
        assert float(value) == 0.25


@pytest.mark.parametrize("make", [
    lambda: schedules.ExponentialDecay(0.1, 0, 0.5),
    lambda: schedules.InverseTimeDecay(0.1, -1, 0.5),
    lambda: schedules.CosineDecay(0.1, 0),
])
def test_decay_steps_must_be_positive(make):
    with pytest.raises(ValueError, match="`decay_steps` must be > 0"):
        make()


def test_cosine_warmup_steps_must_not_be_negative():
    with pytest.raises(ValueError, match="`warmup_steps` must be >= 0"):
        schedules.CosineDecay(0.1, 10, warmup_steps=-1)


def test_piecewise_errors():
    with pytest.raises(ValueError, match="1 less than the length of `values`"):
        schedules.PiecewiseConstantDecay([1, 2], [1.0, 0.5])
    with pytest.raises(ValueError, match="strictly increasing"):
        schedules.PiecewiseConstantDecay([5, 2], [1.0, 0.5, 0.1])


def test_custom_schedule_subclass_must_implement_call_and_config():
    class Incomplete(schedules.LearningRateSchedule):
        pass

    with pytest.raises(TypeError, match="abstract"):
        Incomplete()


def test_serialize_round_trip_and_unknown_name():
    schedule = schedules.CosineDecay(0.1, 10, alpha=0.2, warmup_target=0.3, warmup_steps=2)
    clone = schedules.deserialize(schedules.serialize(schedule))
    np.testing.assert_array_equal(_values(clone), _values(schedule))
    with pytest.raises(ValueError, match="Unknown learning-rate schedule 'Cyclic'"):
        schedules.deserialize({"class_name": "Cyclic", "config": {}})


def test_custom_objects_in_deserialize():
    class Constant(schedules.LearningRateSchedule):
        def __init__(self, value):
            self.value = value

        def __call__(self, step):
            return ef.constant(self.value)

        def get_config(self):
            return {"value": self.value}

    config = schedules.serialize(Constant(0.5))
    assert float(schedules.deserialize(config, {"Constant": Constant})(3)) == 0.5
