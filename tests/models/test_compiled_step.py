"""run_eagerly=False: the traced train step gives the eager step's results, or falls back."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core.errors import EagerflowWarning
from eagerflow.models import compiled_step

from .helpers import classification_data, compiled_mlp, weights_of


class Counting:
    """A stand-in for ef.function: traces (here: just calls) and counts traces per shape."""

    def __init__(self, fn, bake=False, fail=False):
        self.fn, self.bake, self.fail = fn, bake, fail
        self.shapes, self.first = set(), {}

    def experimental_get_tracing_count(self):
        return len(self.shapes)

    def __call__(self, x, y, sample_weight):
        if self.fail:
            raise TypeError("cannot trace this")
        key = tuple(x.shape)
        if key not in self.shapes:
            self.shapes.add(key)
            self.first[key] = self.fn(x, y, sample_weight)
            return self.first[key]
        if self.bake:  # a broken graph: replays the traced batch's values
            return self.first[key]
        return self.fn(x, y, sample_weight)


def _train(run_eagerly, factory=None, epochs=2):
    ef.random.set_seed(4)
    x, y = classification_data(44)
    model = compiled_mlp(optimizer=ef.optim.Adam(0.01), run_eagerly=run_eagerly)
    if factory is not None:
        model._train_function = compiled_step.train_function(model, factory)
    history = model.fit(x, y, batch_size=8, epochs=epochs, verbose=0)
    return model, history


def test_traced_step_gives_identical_results():
    holder = []

    def factory(fn):
        holder.append(Counting(fn))
        return holder[-1]

    eager_model, eager_history = _train(True)
    traced_model, traced_history = _train(False, factory)
    assert isinstance(traced_model._train_function, compiled_step.TracedTrainStep)
    assert holder and holder[0].experimental_get_tracing_count() == 2  # full + last batch
    assert traced_history.history == eager_history.history
    for a, b in zip(weights_of(traced_model), weights_of(eager_model), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_graph_with_baked_values_is_caught_and_replaced_by_eager():
    eager_model, eager_history = _train(True)
    with pytest.warns(EagerflowWarning, match=r"could not compile the train step.*gave "
                                              r"other values than the eager step"):
        traced_model, history = _train(False, lambda fn: Counting(fn, bake=True))
    assert traced_model._train_function.fallback_reason is not None
    assert history.history == eager_history.history


def test_a_step_that_cannot_be_traced_falls_back_to_eager_quietly():
    eager_model, eager_history = _train(True)
    traced_model, history = _train(False, lambda fn: Counting(fn, fail=True))
    assert traced_model._train_function.fallback_reason == "TypeError: cannot trace this"
    assert history.history == eager_history.history
    for a, b in zip(weights_of(traced_model), weights_of(eager_model), strict=True):
        np.testing.assert_array_equal(a, b)


def test_eager_when_asked_or_when_train_step_is_custom():
    model = compiled_mlp(run_eagerly=True)
    assert compiled_step.train_function(model, Counting) == model.train_step

    class Custom(ef.Sequential):
        def train_step(self, data):
            return super().train_step(data)

    custom = Custom([ef.layers.Dense(1)])
    custom.compile(loss="mse")
    assert compiled_step.train_function(custom, Counting) == custom.train_step


def test_freezing_a_layer_retraces():
    ef.random.set_seed(4)
    x, y = classification_data(16)
    model = compiled_mlp(optimizer=ef.optim.SGD(0.1))
    model._train_function = compiled_step.train_function(model, Counting)
    model.fit(x, y, batch_size=8, verbose=0)
    model.layers[0].trainable = False
    frozen = model.layers[0].kernel.numpy().copy()
    model.fit(x, y, batch_size=8, verbose=0)
    np.testing.assert_array_equal(model.layers[0].kernel.numpy(), frozen)


@pytest.mark.parametrize("loss, bad_targets", [
    ("sparse_categorical_crossentropy", lambda y: np.where(np.arange(len(y)) == 40, 7, y)),
    ("binary_crossentropy", lambda y: np.where(np.arange(len(y))[:, None] == 40, 3.0, y)),
])
def test_traced_steps_still_reject_bad_targets_in_later_batches(loss, bad_targets):
    rng = np.random.default_rng(0)
    x = rng.random((48, 4), dtype=np.float32)
    if loss.startswith("sparse"):
        model = ef.Sequential([ef.layers.Dense(3, activation="softmax", input_shape=(4,))])
        y = rng.integers(0, 3, 48)
    else:
        model = ef.Sequential([ef.layers.Dense(1, activation="sigmoid", input_shape=(4,))])
        y = rng.integers(0, 2, (48, 1)).astype(np.float32)
    model.compile(optimizer="sgd", loss=loss)
    model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)  # traces
    assert model._train_function.fallback_reason is None
    with pytest.raises(ef.errors.InvalidArgumentError, match="range|in \\[0, 1\\]"):
        model.fit(x, bad_targets(y), batch_size=8, epochs=1, shuffle=False, verbose=0)
