"""Weights: add_weight, collections, freezing, get/set_weights, losses, seeding."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.test_tracking import Holder


def test_trainable_false_freezes_children_and_is_reversible():
    holder = Holder()
    holder(ef.ones([1, 2]))
    total = len(holder.weights)
    holder.trainable = False
    assert holder.trainable_weights == [] and len(holder.non_trainable_weights) == total
    assert not holder.listed[0].trainable
    holder.trainable = True
    assert len(holder.trainable_weights) == total
    bn = ef.layers.BatchNormalization()
    bn(ef.ones([2, 3]))
    bn.trainable = False
    bn.trainable = True
    assert len(bn.trainable_weights) == 2 and len(bn.non_trainable_weights) == 2


def test_frozen_layer_gets_no_gradient():
    dense = ef.layers.Dense(2, trainable=False)
    with ef.GradientTape() as tape:
        loss = ef.reduce_sum(dense(ef.ones([1, 2])))
    assert tape.gradient(loss, dense.weights) == [None, None]


def test_add_weight_options():
    layer = ef.layers.Layer(name="holder")
    w = layer.add_weight("w", (2,), initializer="ones", regularizer="l2",
                         constraint="non_neg", trainable=True)
    counter = layer.add_weight("count", (), dtype="int32", trainable=False)
    keras_order = layer.add_weight((3,), initializer="zeros")
    again = layer.add_variable("w", (1,))
    assert w.constraint is not None and counter.dtype == np.int32 and not counter.trainable
    assert keras_order.name == "holder/variable" and again.name == "holder/w_1"
    assert float(layer.losses[0]) == pytest.approx(0.02)
    with pytest.raises(ValueError, match=r"needs a fully known, non-negative shape, got "
                                         r"\(None, 2\)"):
        layer.add_weight("bad", (None, 2))
    with pytest.raises(TypeError, match="unexpected keyword arguments"):
        layer.add_weight("bad", (2,), partitioner=None)


def test_seeded_models_are_reproducible():
    def build():
        model = ef.Sequential([ef.layers.Dense(4, input_shape=(3,)), ef.layers.Dense(2)])
        return [w.numpy() for w in model.weights]

    ef.random.set_seed(42)
    first = build()
    ef.random.set_seed(42)
    second = build()
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)


def test_losses_are_recomputed_per_call_not_accumulated():
    class Penalized(ef.layers.Layer):
        def call(self, x):
            self.add_loss(ef.reduce_sum(x))
            return x

    inner = Penalized()
    model = ef.Sequential([inner, ef.layers.Dense(1, kernel_regularizer=ef.regularizers.L2(1.0),
                                                  kernel_initializer="ones")])
    model(ef.ones([1, 2]))
    model(ef.fill([1, 2], 3.0))
    assert [float(x) for x in model.losses] == [6.0, 2.0]
    inner(ef.ones([5]))
    assert [float(x) for x in inner.losses] == [5.0]
    assert [float(x) for x in model.losses] == [5.0, 2.0]
    model(ef.ones([1, 2]))
    assert [float(x) for x in inner.losses] == [2.0]


def test_activity_regularizer_is_divided_by_batch_size_like_keras():
    layer = ef.layers.Dense(2, kernel_initializer="ones",
                            activity_regularizer=ef.regularizers.L2(1.0))
    layer(ef.ones([4, 3]))
    assert float(layer.losses[0]) == pytest.approx(18.0)


def test_unbuilt_errors_name_the_layer_and_the_fix():
    with pytest.raises(ValueError, match=r"`count_params` on layer 'dense'.*layer.build"):
        ef.layers.Dense(2).count_params()
    with pytest.raises(ValueError, match="`get_weights`"):
        ef.layers.Dense(2).get_weights()


def test_get_and_set_weights():
    layer = ef.layers.Dense(2, input_shape=(3,))
    kernel, bias = layer.get_weights()
    layer.set_weights([kernel * 0 + 1, bias + 2])
    np.testing.assert_allclose(layer(ef.ones([1, 3])).numpy(), [[5.0, 5.0]])
    with pytest.raises(ValueError, match="weight list of length 1, but the layer was "
                                         "expecting 2 weights"):
        layer.set_weights([kernel])
    with pytest.raises(ValueError, match=r"has shape \(3, 2\), which is not compatible with the "
                                         r"provided weight shape \(2, 3\)"):
        layer.set_weights([kernel.T, bias])


def test_a_model_created_frozen_trains_nothing():
    model = ef.Sequential([ef.layers.Dense(2, input_shape=(3,))], trainable=False)
    assert model.trainable_variables == [] and len(model.non_trainable_variables) == 2
