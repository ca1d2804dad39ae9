"""Discretization: buckets and adapted quantile boundaries checked against Keras 3.15.1
(literals produced by it), every output mode, config, graphs and errors."""

import numpy as np
import pytest

import eagerflow as ef

D = ef.layers.Discretization
X = np.array([[-1.5, 1.0, 3.4, 0.5], [0.0, 3.0, -0.3, 1.99]])


def values(layer, inputs):
    return np.asarray(layer(inputs))


def test_buckets_and_modes_match_keras():
    out = values(D(bin_boundaries=[0.0, 1.0, 2.0]), X)
    np.testing.assert_array_equal(out, [[0, 2, 3, 1], [1, 3, 0, 2]])
    assert out.dtype == np.int32
    one_hot = D(bin_boundaries=[0.0, 1.0, 2.0], output_mode="one_hot")
    np.testing.assert_array_equal(values(one_hot, [-1.5, 1.0, 3.4]),
                                  [[1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    multi = D(bin_boundaries=[0.0, 1.0, 2.0], output_mode="multi_hot")
    np.testing.assert_array_equal(values(multi, [[-1.5, 1.0, 3.4], [0.5, 0.6, 0.7]]),
                                  [[1, 0, 1, 1], [0, 1, 0, 0]])
    count = D(bin_boundaries=[0.0, 1.0, 2.0], output_mode="count")
    out = values(count, [[-1.5, 1.0, 1.4], [0.5, 0.6, 0.7]])
    np.testing.assert_array_equal(out, [[1, 0, 2, 0], [0, 3, 0, 0]])
    assert out.dtype == np.float32 and count.compute_output_shape((None, 3)) == (None, 4)


def test_adapt_matches_keras_quantiles():
    data = np.random.default_rng(0).normal(size=(1000, 1)).astype("float32")
    layer = D(num_bins=4, epsilon=0.01)
    layer.adapt(data)
    np.testing.assert_allclose(layer.bin_boundaries, [-0.69094455, -0.07557335, 0.61318892],
                               rtol=1e-6)
    small = D(num_bins=4)
    small.adapt(X)
    np.testing.assert_allclose(small.bin_boundaries, [-0.3, 0.5, 1.99], rtol=1e-6)
    streamed = D(num_bins=3, epsilon=0.1)
    streamed.adapt(ef.data.Dataset.from_tensor_slices(data).batch(100))
    np.testing.assert_allclose(streamed.bin_boundaries, [-0.35278440, 0.52414727], rtol=1e-6)
    spaced = D(num_bins=5, epsilon=0.05)
    spaced.adapt(np.arange(37.0))
    np.testing.assert_allclose(spaced.bin_boundaries, [6.4, 13.8, 21.2, 28.6], rtol=1e-6)
    listed = D(num_bins=3, epsilon=0.1)
    listed.adapt([data[i:i + 100] for i in range(0, 1000, 100)])  # a list of batches
    np.testing.assert_allclose(listed.bin_boundaries, streamed.bin_boundaries)
    first = D(num_bins=2)
    first.adapt(iter([np.arange(4.0), np.arange(100.0, 104.0)]), steps=1)
    assert first.bin_boundaries == [1.0]


def test_config_round_trip_graphs_and_pipelines():
    layer = D(num_bins=4)
    layer.adapt(np.arange(10.0)[:, None])
    config = layer.get_config()
    np.testing.assert_allclose(config["bin_boundaries"], [1.5, 4.0, 6.5], rtol=1e-6)
    clone = D.from_config(config)
    np.testing.assert_array_equal(values(clone, [[0.0], [4.5], [9.0]]), [[0], [2], [3]])
    traced = ef.function(lambda x: layer(x))
    np.testing.assert_array_equal(traced(ef.constant([[0.0], [4.5]])).numpy(), [[0], [2]])
    ds = ef.data.Dataset.from_tensor_slices(np.array([[0.0], [9.0]])).batch(2).map(layer)
    np.testing.assert_array_equal(np.asarray(next(iter(ds))), [[0], [3]])


@pytest.mark.parametrize("kwargs, match", [
    ({}, r"set either `num_bins`.*or `bin_boundaries`"),
    ({"num_bins": 2, "bin_boundaries": [0.0]}, r"not both"),
    ({"num_bins": -1}, r"num_bins` must be greater than or equal to 0.*-1"),
    ({"num_bins": 2, "output_mode": "tf_idf"}, r"output_mode.*one of.*'tf_idf'"),
    ({"num_bins": 2, "sparse": True}, r"sparse=True is not supported"),
    ({"bin_boundaries": [1.0, 0.0]}, r"sorted in increasing order"),
])
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        D(**kwargs)


def test_bad_uses_are_refused():
    with pytest.raises(ValueError, match=r"cannot adapt a layer created with `bin_boundaries"):
        D(bin_boundaries=[0.0]).adapt(X)
    with pytest.raises(ValueError, match=r"pass `bin_boundaries` or call `adapt` before"):
        D(num_bins=3)(X)
    with pytest.raises(ValueError, match=r"Discretization expects numbers.*<U1"):
        D(bin_boundaries=[0.0])(np.array(["a"]))
    with pytest.raises(ValueError, match=r"Discretization expects numbers.*<U1"):
        D(num_bins=2).adapt(np.array(["a"]))
    with pytest.raises(TypeError, match=r"adapt\(\) takes.*Received: data of type int"):
        D(num_bins=2).adapt(3)
