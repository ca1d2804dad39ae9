"""The digits shipped inside the package."""

import numpy as np

import eagerflow as ef


def test_shapes_dtypes_and_values():
    (x_train, y_train), (x_test, y_test) = ef.datasets.digits.load_data()
    assert x_train.shape == (1437, 8, 8) and x_test.shape == (360, 8, 8)
    assert y_train.shape == (1437,) and y_test.shape == (360,)
    assert x_train.dtype == x_test.dtype == y_train.dtype == np.uint8
    assert x_train.max() == 16 and x_train.min() == 0
    assert set(np.unique(y_test)) == set(range(10))
    assert np.bincount(y_test).min() >= 35  # stratified


def test_each_call_returns_fresh_arrays():
    (a, _), _ = ef.datasets.digits.load_data()
    a[0] = 99
    (b, _), _ = ef.datasets.digits.load_data()
    assert b[0].max() <= 16


def test_a_training_pipeline_over_the_digits():
    (x, y), _ = ef.datasets.digits.load_data()
    ds = ef.data.Dataset.from_tensor_slices((x.reshape(-1, 64) / 16.0, y)).shuffle(
        1437, seed=0).batch(64, drop_remainder=True)
    batches = list(ds)
    assert len(batches) == 22 and batches[0][0].shape == (64, 64)
