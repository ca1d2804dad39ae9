import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from tests.metrics.strategies import batches, seeded, split


def test_seed_example():
    m = ef.metrics.Mean()
    m(0)
    m(5)
    assert float(m.result()) == 2.5
    assert float(m([8, 9])) == 5.5


def test_mean_with_sample_weights_is_weighted_mean():
    m = ef.metrics.Mean()
    m.update_state([1.0, 2.0, 4.0], sample_weight=[1.0, 3.0, 0.0])
    assert float(m.result()) == pytest.approx(7.0 / 4.0)
    assert float(m.count) == 4.0


def test_mean_of_rows_and_weights_of_higher_rank():
    m = ef.metrics.Mean()
    m.update_state([[1.0, 3.0], [5.0, 7.0]])  # two samples: row means 2 and 6
    assert float(m.result()) == 4.0 and float(m.count) == 2.0
    m.reset_state()
    m.update_state([[1.0, 3.0], [5.0, 7.0]], sample_weight=[[1.0, 0.0], [1.0, 1.0]])
    # Keras: values weighted elementwise, then both reduced by the mean over the row.
    assert float(m.result()) == pytest.approx((0.5 + 6.0) / (0.5 + 1.0))


@given(st.lists(st.tuples(st.floats(-1e3, 1e3), st.one_of(st.none(), st.integers(0, 512),
                                                         st.floats(0, 10))),
                min_size=1, max_size=6))
@settings(max_examples=50, deadline=None)
def test_scalar_values_with_scalar_weights_match_the_general_path(updates):
    # fit tracks the batch loss as (scalar loss, batch size): a shortcut must agree with
    # the broadcasting path that array weights take.
    fast, general = ef.metrics.Mean(), ef.metrics.Mean()
    for value, weight in updates:
        value = np.float32(value)  # what ef.constant holds
        fast.update_state(ef.constant(value), sample_weight=weight)
        general.update_state(value, sample_weight=None if weight is None
                             else np.asarray(weight, np.float64))
    for name in ("total", "count"):
        np.testing.assert_allclose(getattr(fast, name).numpy(), getattr(general, name).numpy(),
                                   rtol=1e-6)
    np.testing.assert_allclose(fast.result().numpy(), general.result().numpy(), rtol=1e-6)


def test_sum():
    m = ef.metrics.Sum()
    m.update_state([1.0, 2.0])
    m.update_state([[1.0, 1.0]], sample_weight=[2.0])
    assert float(m.result()) == 7.0


def test_mean_metric_wrapper_with_kwargs():
    m = ef.metrics.MeanMetricWrapper(ef.losses.huber, name="huber", delta=0.5)
    m.update_state([[0.0], [0.0]], [[1.0], [0.2]])
    expected = float(ef.reduce_mean(ef.losses.huber([[0.0], [0.0]], [[1.0], [0.2]], 0.5)))
    assert float(m.result()) == pytest.approx(expected)
    assert m.get_config()["delta"] == 0.5 and m.name == "huber"


def test_weights_that_do_not_broadcast():
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"Mean: sample_weight of shape \(3,\) cannot be broadcast to the "
                             r"values of shape \(2,\)"):
        ef.metrics.Mean().update_state([1.0, 2.0], sample_weight=[1.0, 2.0, 3.0])
    with pytest.raises(ef.errors.InvalidArgumentError, match="Sum: sample_weight"):
        ef.metrics.Sum().update_state([1.0, 2.0], sample_weight=[1.0, 2.0, 3.0])


def test_empty_mean_is_zero():
    assert float(ef.metrics.Mean().result()) == 0.0


@settings(max_examples=60, deadline=None)
@given(batches(), st.integers(0, 2**31), st.booleans())
def test_streaming_mean_equals_mean_of_all_data(split_points, seed, weighted):
    n, cuts = split_points
    rng = seeded(seed)
    values = rng.standard_normal(n)
    weights = rng.uniform(0, 2, n) if weighted else None
    streaming, at_once = ef.metrics.Mean(), ef.metrics.Mean()
    for batch_values, batch_weights in split((values, weights), cuts):
        streaming.update_state(batch_values, sample_weight=batch_weights)
    at_once.update_state(values, sample_weight=weights)
    expected = np.average(values, weights=weights) if weights is None or weights.sum() else 0
    np.testing.assert_allclose(float(streaming.result()), float(at_once.result()), rtol=1e-6,
                               atol=1e-6)
    np.testing.assert_allclose(float(streaming.result()), expected, rtol=1e-5, atol=1e-6)
