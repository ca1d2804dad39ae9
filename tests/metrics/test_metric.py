"""The Metric base class."""

import numpy as np
import pytest

import eagerflow as ef


class Count(ef.metrics.Metric):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.seen = self.add_variable(name="seen")
        self.by_class = self.add_weight("by_class", shape=(2,), initializer="ones")

    def update_state(self, values):
        ef.metrics.metric.add_to(self.seen, np.size(values))

    def result(self):
        return ef.constant(float(self.seen))


def test_subclass_state_is_found_reset_and_checkpointable():
    m = Count()
    assert m.name == "count"
    assert float(m([1, 2, 3])) == 3.0
    children = m._trackable_children()
    assert list(children) == ["seen", "by_class"]
    assert all(not v.trainable for v in m.variables)
    assert [v.name for v in m.variables] == ["count/seen", "count/by_class"]
    m.reset_states()
    assert float(m.result()) == 0.0 and m.by_class.numpy().tolist() == [0.0, 0.0]


def test_state_variables_are_float64_and_results_float32():
    m = ef.metrics.Mean()
    assert m.total.dtype == np.float64
    assert m(1.0).dtype == np.float32
    assert ef.metrics.Mean(dtype="float64")(1.0).dtype == np.float64


def test_counts_stay_exact_beyond_float32_precision():
    m = ef.metrics.Sum()
    m.update_state(2.0**24)
    m.update_state(1.0)
    assert float(m.total) == 2.0**24 + 1


def test_result_read_before_an_update_keeps_its_value():
    m = ef.metrics.Sum()
    m(1.0)
    state = m.total.read_value()
    m(5.0)
    assert float(state) == 1.0 and float(m.total) == 6.0


def test_base_class_is_abstract():
    with pytest.raises(TypeError, match="abstract"):
        ef.metrics.Metric()


def test_bad_initializer_and_dtype():
    with pytest.raises(ValueError, match="`initializer` must be 'zeros', 'ones'"):
        ef.metrics.Sum().add_variable(initializer="glorot")
    with pytest.raises(ValueError, match="`dtype` must be a floating-point dtype"):
        ef.metrics.Mean(dtype="int32")


def test_callable_initializer():
    variable = ef.metrics.Sum().add_variable((2,), lambda shape, dtype: np.full(shape, 3.0))
    assert variable.numpy().tolist() == [3.0, 3.0]


def test_new_variables_are_announced_for_deferred_restore():
    class Recorder:
        names = []

        def variable_created(self, obj, name, variable):
            self.names.append(name)

    m = ef.metrics.Sum()
    m._deferred_restore = Recorder()
    m.add_variable(name="late")
    assert Recorder.names == ["late"]


def test_metrics_update_inside_a_traced_function():
    mean, accuracy = ef.metrics.Mean(), ef.metrics.SparseCategoricalAccuracy()

    @ef.function
    def update(values, labels, scores):
        mean.update_state(values)
        accuracy.update_state(labels, scores)
        return mean.result(), accuracy.result()

    scores = ef.constant([[0.9, 0.1], [0.2, 0.8]])
    update(ef.constant([1.0, 2.0]), ef.constant([0, 0]), scores)
    m, a = update(ef.constant([3.0, 6.0]), ef.constant([0, 1]), scores)
    assert (float(m), float(a)) == (3.0, 0.75)
    assert update.experimental_get_tracing_count() == 1
    mean.reset_state()
    assert float(mean.result()) == 0.0


def test_repr_and_config():
    m = ef.metrics.Mean(name="loss")
    assert repr(m) == "<ef.metrics.Mean name='loss'>"
    assert ef.metrics.Mean.from_config(m.get_config()).name == "loss"
