"""Losses align `(batch,)` targets with `(batch, 1)` predictions as Keras 3 does.

Keras's `LossFunctionWrapper.call` (which `compile(loss=fn)` wraps every function in)
squeezes or expands a trailing axis of size 1 so both have the same rank before calling the
function (`keras/src/losses/loss.py`, `squeeze_or_expand_to_same_rank`); a `Loss` subclass
and a metric function (`MeanMetricWrapper`) get the shapes as given. Expected values were
recorded by running Keras 3.15 (TensorFlow backend) on the same inputs; the first test is
``keras/src/losses/loss_test.py::test_squeeze_or_expand``.
"""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.losses import loss as loss_module

X = np.array([[1.0, 2.0], [0.0, 1.0], [2.0, -1.0], [1.0, 1.0]], "float32")
Y = np.array([1.0, 2.0, 3.0, 4.0], "float32")
KERNEL, BIAS = np.array([[0.5], [1.0]], "float32"), np.array([0.25], "float32")
ALIGNED, UNALIGNED = 4.0625, 3.0625  # Keras: mean((y - p)^2) over (4, 1), over (4, 4)


def custom(y_true, y_pred):
    return ef.reduce_mean(ef.square(y_true - y_pred))


def custom_per_sample(y_true, y_pred):
    return ef.square(y_true - y_pred)


def model():
    net = ef.Sequential([ef.layers.Input((2,)), ef.layers.Dense(1)])
    net.set_weights([KERNEL, BIAS])
    return net


@pytest.mark.parametrize("shapes, expected", [
    (((3,), (3, 1)), ((3, 1), (3, 1))),
    (((3, 2), (3, 2, 1)), ((3, 2), (3, 2))),
])
def test_squeeze_or_expand(shapes, expected):
    a, b = loss_module.squeeze_or_expand_to_same_rank(ef.ones(shapes[0]), ef.ones(shapes[1]))
    assert (a.shape, b.shape) == expected
    b, a = loss_module.squeeze_or_expand_to_same_rank(ef.ones(shapes[1]), ef.ones(shapes[0]))
    assert (a.shape, b.shape) == expected


def test_loss_function_wrapper_aligns():
    predictions = model()(X)
    np.testing.assert_allclose(predictions.numpy(), [[2.75], [1.25], [0.25], [1.75]])
    for fn in (custom, custom_per_sample):
        assert float(ef.losses.LossFunctionWrapper(fn)(Y, predictions)) == ALIGNED
    # targets of rank 2 against predictions of rank 1
    wrapper = ef.losses.LossFunctionWrapper(custom)
    assert float(wrapper(Y[:, None], ef.reshape(predictions, (4,)))) == ALIGNED
    # (2, 3) against (2, 3, 1): the predictions are squeezed
    per_step = ef.losses.LossFunctionWrapper(custom_per_sample, reduction=None)(
        np.ones((2, 3), "float32"), np.zeros((2, 3, 1), "float32") + np.arange(3.0)[:, None])
    np.testing.assert_allclose(per_step.numpy(), [[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]])


def test_loss_subclass_and_metric_functions_get_the_shapes_as_given():
    class Squared(ef.losses.Loss):
        def call(self, y_true, y_pred):
            return ef.square(y_true - y_pred)

    predictions = model()(X)
    assert float(Squared()(Y, predictions)) == UNALIGNED
    assert float(ef.metrics.MeanMetricWrapper(custom_per_sample)(Y, predictions)) == UNALIGNED


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["traced", "eager"])
def test_compile_with_a_custom_loss_function(run_eagerly):
    net = model()
    net.compile("sgd", loss=custom, metrics=[custom_per_sample, custom], run_eagerly=run_eagerly)
    logs = net.evaluate(X, Y, verbose=0, return_dict=True)
    assert {k: float(v) for k, v in logs.items()} == {
        "loss": ALIGNED, "custom_per_sample": UNALIGNED, "custom": UNALIGNED}
    net = model()
    net.compile(ef.optim.SGD(0.01), loss=custom_per_sample, run_eagerly=run_eagerly)
    history = net.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], [4.0625, 3.9087743759155273], rtol=1e-6)
