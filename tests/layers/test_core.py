"""Dense, Activation, Lambda."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test

RNG = np.random.default_rng(0)


def test_dense_contract_and_numpy_reference():
    x = RNG.standard_normal((4, 3)).astype("float32")
    kernel = RNG.standard_normal((3, 5)).astype("float32")
    bias = RNG.standard_normal(5).astype("float32")
    run_layer_test(ef.layers.Dense, {"units": 5, "activation": "tanh"}, input_data=x,
                   expected_output_shape=(4, 5), expected_num_trainable_weights=2,
                   weights=[kernel, bias], expected_output=np.tanh(x @ kernel + bias))


def test_dense_on_rank_3_inputs_applies_to_the_last_axis():
    x = RNG.standard_normal((2, 3, 4)).astype("float32")
    kernel = RNG.standard_normal((4, 2)).astype("float32")
    run_layer_test(ef.layers.Dense, {"units": 2, "use_bias": False}, input_data=x,
                   expected_output_shape=(2, 3, 2), expected_num_trainable_weights=1,
                   weights=[kernel], expected_output=x @ kernel)


def test_dense_weights_are_named_and_shaped_like_keras():
    layer = ef.layers.Dense(3, name="head")
    layer(ef.ones([2, 7]))
    assert [(v.name, v.shape) for v in layer.weights] == [("head/kernel", (7, 3)),
                                                           ("head/bias", (3,))]


def test_dense_rejects_bad_units():
    with pytest.raises(ValueError, match=r"expected a positive integer. Received: units=0"):
        ef.layers.Dense(0)
    with pytest.raises(ValueError, match=r"units=2.5"):
        ef.layers.Dense(2.5)


def test_dense_built_for_784_called_with_100_names_both():
    layer = ef.layers.Dense(10, name="fc")
    layer(ef.ones([2, 784]))
    with pytest.raises(ValueError, match=r"layer 'fc'.*value 784.*shape \(2, 100\)"):
        layer(ef.ones([2, 100]))


def test_dense_called_with_wrong_rank():
    with pytest.raises(ValueError, match=r"layer 'fc1'.*expected min_ndim=2, found ndim=1"):
        ef.layers.Dense(2, name="fc1")(ef.ones([3]))


def test_dense_needs_a_known_last_axis():
    inputs = ef.layers.Input(shape=(None,))
    with pytest.raises(ValueError, match=r"last dimension of the inputs to a Dense layer"):
        ef.layers.Dense(2)(inputs)


def test_unknown_activation_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"Unknown activation 'rectified'.*relu, relu6"):
        ef.layers.Dense(2, activation="rectified")


def test_activation_layer():
    x = RNG.standard_normal((3, 4)).astype("float32")
    run_layer_test(ef.layers.Activation, {"activation": "sigmoid"}, input_data=x,
                   expected_output_shape=(3, 4), expected_num_trainable_weights=0,
                   weights=[], expected_output=1 / (1 + np.exp(-x)))


def test_activation_accepts_a_callable():
    layer = ef.layers.Activation(lambda t: t * 3.0)
    np.testing.assert_allclose(layer(ef.ones([2])).numpy(), [3.0, 3.0])


def _double(x, factor=2.0):
    return x * factor


def test_lambda_layer_with_arguments():
    x = RNG.standard_normal((2, 3)).astype("float32")
    run_layer_test(ef.layers.Lambda, {"function": _double, "arguments": {"factor": 3.0}},
                   input_data=x, expected_output_shape=(2, 3), weights=[],
                   expected_output=3.0 * x)


def test_lambda_passes_mask_and_training_when_declared():
    seen = {}

    def record(x, mask=None, training=None):
        seen.update(mask=mask, training=training)
        return x

    layer = ef.layers.Lambda(record, mask=lambda inputs, mask: mask)
    mask = ef.constant([[True, False]])
    out = layer(ef.ones([1, 2, 3]), mask=mask, training=True)
    assert seen["training"] is True and seen["mask"] is mask
    assert ef.layers.masking.get_mask(out) is mask


def test_lambda_rejects_non_callables():
    with pytest.raises(TypeError, match="Lambda needs a callable"):
        ef.layers.Lambda(3)


def test_lambda_config_keeps_the_function_and_is_not_json():
    model = ef.Sequential([ef.layers.Lambda(_double, input_shape=(2,))])
    assert ef.layers.Lambda.from_config(model.layers[0].get_config()).function is _double
    with pytest.raises(TypeError, match="cannot be written as JSON"):
        model.to_json()
