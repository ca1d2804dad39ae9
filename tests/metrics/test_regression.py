import numpy as np
import pytest

import eagerflow as ef

RNG = np.random.default_rng(0)
Y_TRUE = RNG.standard_normal((8, 3))
Y_PRED = RNG.standard_normal((8, 3))


def test_mean_squared_error_over_batches_with_weights():
    weights = RNG.uniform(0, 1, 8)
    m = ef.metrics.MeanSquaredError()
    m.update_state(Y_TRUE[:5], Y_PRED[:5], sample_weight=weights[:5])
    m.update_state(Y_TRUE[5:], Y_PRED[5:], sample_weight=weights[5:])
    per_sample = ((Y_TRUE - Y_PRED) ** 2).mean(-1)
    assert float(m.result()) == pytest.approx(np.average(per_sample, weights=weights), rel=1e-6)


def test_mean_absolute_error():
    m = ef.metrics.MeanAbsoluteError()
    assert float(m(Y_TRUE, Y_PRED)) == pytest.approx(np.abs(Y_TRUE - Y_PRED).mean(), rel=1e-6)
    assert float(ef.metrics.MeanAbsoluteError()(1.0, 3.0)) == 2.0


def test_shape_mismatch():
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"MeanSquaredError: y_true and y_pred must have the same shape"):
        ef.metrics.MeanSquaredError()(np.zeros((4, 1)), np.zeros((4, 2)))
    with pytest.raises(ef.errors.InvalidArgumentError, match="MeanAbsoluteError"):
        ef.metrics.MeanAbsoluteError()(np.zeros((4,)), np.zeros((5,)))


def test_mean_absolute_percentage_error_over_batches_with_weights():
    weights = RNG.uniform(0, 1, 8)
    m = ef.metrics.get("mape")
    assert isinstance(m, ef.metrics.MeanAbsolutePercentageError)
    m.update_state(Y_TRUE[:5], Y_PRED[:5], sample_weight=weights[:5])
    m.update_state(Y_TRUE[5:], Y_PRED[5:], sample_weight=weights[5:])
    per_sample = 100 * np.mean(np.abs((Y_TRUE - Y_PRED) / np.maximum(np.abs(Y_TRUE), 1e-7)),
                               -1)
    assert float(m.result()) == pytest.approx(np.average(per_sample, weights=weights), rel=1e-6)
    m.reset_state()
    assert float(m.result()) == 0.0


def test_mean_squared_logarithmic_error():
    y_true, y_pred = np.abs(Y_TRUE), Y_PRED  # negative predictions are floored at 1e-7
    m = ef.metrics.get("msle")
    per_sample = np.mean((np.log1p(np.maximum(y_pred, 1e-7))
                          - np.log1p(np.maximum(y_true, 1e-7))) ** 2, -1)
    assert float(m(y_true, y_pred)) == pytest.approx(per_sample.mean(), rel=1e-6)
    with pytest.raises(ef.errors.InvalidArgumentError, match="MeanSquaredLogarithmicError"):
        m(np.zeros((4, 1)), np.zeros((4, 2)))


def test_percentage_and_log_errors_trace():
    m = ef.metrics.MeanAbsolutePercentageError()

    @ef.function
    def update(y_true, y_pred):
        m.update_state(y_true, y_pred)

    update(ef.constant(Y_TRUE[:4]), ef.constant(Y_PRED[:4]))
    update(ef.constant(Y_TRUE[4:]), ef.constant(Y_PRED[4:]))
    eager = ef.metrics.MeanAbsolutePercentageError()
    eager.update_state(Y_TRUE, Y_PRED)
    assert float(m.result()) == pytest.approx(float(eager.result()), rel=1e-6)
