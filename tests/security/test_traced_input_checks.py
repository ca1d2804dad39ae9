"""Issue 28, item 8: run-time input checks of losses and metrics hold in `fit`'s traced
steps exactly as with ``run_eagerly=True`` (a traced `fit` once trained silently on
binary cross-entropy targets of 2.0), and fractional sparse labels are refused."""

import numpy as np
import pytest

import eagerflow as ef

MODES = pytest.mark.parametrize("eager", [True, False], ids=["eager", "traced"])


def _model(units, activation, loss, eager, metrics=None):
    ef.random.set_seed(0)
    model = ef.Sequential([ef.layers.Dense(units, activation=activation, input_shape=(3,))])
    model.compile(optimizer=ef.optim.SGD(0.1), loss=loss, metrics=metrics, run_eagerly=eager)
    return model


def _fit_raises(model, y, match):
    x = np.ones((len(y), 3), np.float32)
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        model.fit(x, y, batch_size=len(y), verbose=0)


@MODES
def test_binary_crossentropy_targets_above_one(eager):
    model = _model(1, "sigmoid", "binary_crossentropy", eager)
    _fit_raises(model, np.full((8, 1), 2.0, np.float32),
                r"binary_crossentropy: targets must be in \[0, 1\].*Received values in "
                r"\[2\.0, 2\.0\]")


@MODES
def test_categorical_crossentropy_negative_targets(eager):
    model = _model(2, "softmax", ef.losses.CategoricalCrossentropy(), eager)
    _fit_raises(model, np.array([[1.0, 0.0], [-1.0, 2.0]], np.float32),
                r"categorical_crossentropy: targets must be in \[0, 1\].*\[-1\.0, 2\.0\]")


@MODES
def test_a_bad_batch_after_good_ones_changes_no_weight(eager):
    model = _model(1, "sigmoid", "binary_crossentropy", eager)
    x = np.ones((4, 3), np.float32)
    model.fit(x, np.ones((4, 1), np.float32), batch_size=2, verbose=0)  # traced: both batches
    before = [w.copy() for w in model.get_weights()]
    with pytest.raises(ef.errors.InvalidArgumentError, match="targets must be in"):
        model.fit(x, np.full((4, 1), 3.0, np.float32), batch_size=2, verbose=0)
    for got, want in zip(model.get_weights(), before, strict=True):
        np.testing.assert_array_equal(got, want)


@MODES
@pytest.mark.parametrize("labels, match", [
    ([1.5, 0.0], r"sparse_categorical_crossentropy: y_true must hold integer class "
                 r"indices; it has non-integer values such as 1\.5"),
    ([-0.5, 0.0], "non-integer values such as -0.5"),
    ([0.0, 3.0], r"sparse_categorical_crossentropy: received a label value of 3 which is "
                 r"outside the valid range of \[0, 2\)"),
])
def test_sparse_labels_fractional_or_out_of_range(eager, labels, match):
    model = _model(2, "softmax", "sparse_categorical_crossentropy", eager)
    _fit_raises(model, np.array(labels, np.float32), match)


@MODES
def test_sparse_crossentropy_metric_refuses_fractional_labels(eager):
    model = _model(2, "softmax", lambda y, p: ef.reduce_mean(p, axis=-1), eager,
                   metrics=[ef.metrics.SparseCategoricalCrossentropy()])
    _fit_raises(model, np.array([1.5, 0.0], np.float32),
                r"sparse_categorical_crossentropy: y_true must hold integer class indices; "
                r"it has non-integer values such as 1\.5")


def test_sparse_loss_refuses_fractional_labels_in_a_traced_function():
    loss = ef.function(lambda y, p: ef.losses.sparse_categorical_crossentropy(y, p))
    p = ef.constant([[0.2, 0.8], [0.6, 0.4]])
    np.testing.assert_allclose(loss(ef.constant([1.0, 0.0]), p), [0.22314355, 0.5108256],
                               rtol=1e-6)
    with pytest.raises(ef.errors.InvalidArgumentError, match="non-integer values such as 1.5"):
        loss(ef.constant([1.5, 0.0]), p)  # the same graph, run: no retrace


@MODES
def test_integral_float_sparse_labels_keep_working_as_in_keras(eager):
    # Keras 3.15: sparse_categorical_crossentropy([1.0, 0.0], p) == the integer labels',
    # and the SparseCategoricalCrossentropy metric gives their mean.
    p = np.array([[0.2, 0.8], [0.6, 0.4]], np.float32)
    metric = ef.metrics.SparseCategoricalCrossentropy()
    step = (lambda f: f) if eager else ef.function
    loss = step(lambda y, q: ef.losses.sparse_categorical_crossentropy(y, q))
    np.testing.assert_allclose(loss(ef.constant([1.0, 0.0]), ef.constant(p)),
                               [0.22314355, 0.5108256], rtol=1e-6)
    update = step(lambda y, q: metric.update_state(y, q))
    update(ef.constant([1.0, 0.0]), ef.constant(p))
    np.testing.assert_allclose(float(metric.result()), 0.3669845461845398, rtol=1e-6)


@MODES
def test_auc_refuses_probabilities_outside_zero_one(eager):
    model = _model(1, None, "mse", eager, metrics=[ef.metrics.AUC()])
    model.set_weights([np.full((3, 1), 5.0, np.float32), np.zeros(1, np.float32)])
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"AUC expects probabilities"):
        model.fit(np.ones((4, 3), np.float32), np.ones((4, 1), np.float32), verbose=0)


def test_an_exported_function_keeps_the_label_check(tmp_path):
    # The checks are registered ops (not Python calls): exports hold them, and run them.
    module = ef.Module()
    module.loss = ef.function(
        lambda y, p: ef.losses.sparse_categorical_crossentropy(y, p),
        input_signature=[ef.TensorSpec([None], ef.float32), ef.TensorSpec([None, 3])])
    ef.saved_model.save(module, str(tmp_path / "export"))
    loaded = ef.saved_model.load(str(tmp_path / "export"))
    p = np.full((2, 3), 1 / 3, np.float32)
    np.testing.assert_allclose(loaded.loss(np.array([1.0, 0.0], np.float32), p),
                               [1.0986123, 1.0986123], rtol=1e-6)
    with pytest.raises(ef.errors.InvalidArgumentError, match="non-integer values such as 1.5"):
        loaded.loss(np.array([1.5, 0.0], np.float32), p)
