"""The Layer base class: building, calling, training flag, state checks, configs, and
weights: add_weight, collections, freezing, get/set_weights, losses, seeding."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.layers import base
from tests.layers.test_ownership import Holder


class Scale(ef.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight("w", (input_shape[-1],), initializer="ones")

    def call(self, x):
        return x * self.w


def test_build_on_first_call_and_build_shape():
    layer = Scale()
    assert not layer.built and layer.weights == []
    layer(ef.ones([2, 3]))
    assert layer.built and layer.get_build_config() == {"input_shape": (2, 3)}
    assert layer.weights[0].name == "scale/w"


def test_input_shape_builds_at_once():
    layer = ef.layers.Dense(2, input_shape=(3,))
    assert layer.built and layer.count_params() == 8
    assert ef.layers.Dense(2, input_dim=4).kernel.shape == (4, 2)
    assert ef.layers.Dense(2, batch_input_shape=(8, 5)).kernel.shape == (5, 2)
    fresh = ef.layers.Dense(2)
    fresh.build_from_config({"input_shape": [None, 6]})
    assert fresh.kernel.shape == (6, 2)


def test_names_are_unique_per_class():
    names = [ef.layers.Dense(1).name for _ in range(3)]
    assert names == ["dense", "dense_1", "dense_2"]
    assert ef.layers.BatchNormalization().name == "batch_normalization"
    assert ef.layers.MaxPooling2D().name == "max_pooling2d"
    assert ef.layers.SimpleRNN(1).name == "simple_rnn"
    assert ef.layers.Conv2DTranspose(1, 1).name == "conv2d_transpose"
    with pytest.raises(ValueError, match="name='a/b'"):
        ef.layers.Dense(1, name="a/b")


def test_unknown_keyword_arguments_and_dtype_policies_are_rejected():
    with pytest.raises(TypeError, match=r"Unrecognized keyword arguments passed to Dense: "
                                        r"\{'unit': 3\}"):
        ef.layers.Dense(2, unit=3)
    with pytest.raises(ValueError, match="dtype policies such as 'mixed_float16'"):
        ef.layers.Dense(2, dtype="mixed_float16")
    assert ef.layers.Dense(2, dtype=np.float64).dtype == np.float64


def test_training_flag_propagates_to_nested_layers():
    seen = []

    class Probe(ef.layers.Layer):
        def call(self, x, training=None):
            seen.append(training)
            return x

    class Inner(ef.layers.Layer):
        def __init__(self):
            super().__init__()
            self.probe = Probe()

        def call(self, x):
            return self.probe(x)

    class Outer(ef.Model):
        def __init__(self):
            super().__init__()
            self.inner = Inner()
            self.direct = Probe()

        def call(self, x):
            return self.direct(self.inner(x), training=False)

    model = Outer()
    model(ef.ones([1]), training=True)
    model(ef.ones([1]))
    assert seen == [True, False, None, False]


def test_training_defaults_to_the_call_signature_default():
    class Defaulted(ef.layers.Layer):
        def call(self, x, training=True):
            return x * (2.0 if training else 1.0)

    assert float(Defaulted()(ef.ones([1]))[0]) == 2.0
    assert float(Defaulted()(ef.ones([1]), training=False)[0]) == 1.0


def test_missing_super_init_is_detected():
    class Forgot(ef.layers.Layer):
        def __init__(self):
            self.dense = ef.layers.Dense(1)

    class ForgotQuietly(ef.layers.Layer):
        def __init__(self):
            self.units = 3

    with pytest.raises(RuntimeError, match=r"forgot to call `super\(\).__init__\(\)`"):
        Forgot()
    with pytest.raises(RuntimeError, match="ForgotQuietly.*forgot to call"):
        ForgotQuietly()


def test_layer_created_inside_call_is_an_error_naming_both():
    class Leaky(ef.Model):
        def call(self, x):
            return ef.layers.Dense(2, name="leak")(x)

    with pytest.raises(ValueError, match=r"'leak' \(Dense\) was created inside the call\(\) of "
                                         r"layer 'leaky'.*'leak/kernel' would never be trained"):
        Leaky()(ef.ones([1, 2]))


def test_lazy_sublayer_in_first_call_is_fine_but_not_later():
    class Lazy(ef.Model):
        def call(self, x):
            if not hasattr(self, "head"):
                self.head = ef.layers.Dense(2)
            return self.head(x)

    lazy = Lazy()
    lazy(ef.ones([1, 2]))
    assert len(lazy.weights) == 2

    class Recreates(ef.Model):
        def call(self, x):
            self.head = ef.layers.Dense(2)
            return self.head(x)

    model = Recreates()
    model(ef.ones([1, 2]))
    with pytest.raises(ValueError, match=r"'recreates' created a new Dense and assigned it "
                                         r"to attribute 'head' inside call\(\), after its "
                                         r"first call"):
        model(ef.ones([1, 2]))

    class NewVariable(ef.layers.Layer):
        def call(self, x):
            self.v = ef.Variable(1.0)
            return x * self.v

    layer = NewVariable()
    layer(ef.ones([1]))
    with pytest.raises(ValueError, match="new variable and assigned it to attribute 'v'"):
        layer(ef.ones([1]))


def test_sublayer_built_later_in_a_branch_is_fine():
    class Branchy(ef.Model):
        def __init__(self):
            super().__init__()
            self.a = ef.layers.Dense(1)
            self.b = ef.layers.Dense(1)

        def call(self, x, use_b=False):
            return self.b(x) if use_b else self.a(x)

    model = Branchy()
    model(ef.ones([1, 2]))
    model(ef.ones([1, 2]), use_b=True)
    assert len(model.weights) == 4


def test_dtype_and_autocast():
    layer = ef.layers.Dense(2, dtype="float64")
    out = layer(np.ones((1, 3), "float32"))
    assert out.dtype == np.float64 and layer.kernel.dtype == np.float64
    assert ef.layers.Dense(2)(np.ones((1, 3))).dtype == np.float32
    assert ef.layers.Dense(2)([[1.0, 2.0]]).shape == (1, 2)
    assert ef.layers.Dense(2, autocast=False, dtype="float64")(ef.ones([1, 2])).dtype == (
        np.float64)


def test_call_errors():
    with pytest.raises(TypeError, match="called without an input tensor"):
        ef.layers.Dense(2)()
    with pytest.raises(TypeError, match=r"does not implement call\(\)"):
        ef.layers.Layer()(ef.ones([1]))
    assert ef.layers.Dense(2)(inputs=ef.ones([1, 2])).shape == (1, 2)


def test_config_of_user_layers_is_recorded_automatically():
    class Custom(ef.layers.Layer):
        def __init__(self, units, scale=2.0, **kwargs):
            super().__init__(**kwargs)
            self.units, self.scale = units, scale

        def call(self, x):
            return x * self.scale

    class Strict(ef.layers.Layer):
        def __init__(self, units):
            super().__init__()
            self.units = units

        def call(self, x):
            return x

    config = Custom(3, scale=4.0, name="mine").get_config()
    assert config["units"] == 3 and config["scale"] == 4.0 and config["name"] == "mine"
    assert Custom.from_config(config).scale == 4.0
    strict = Strict.from_config({**Strict(5).get_config(), "name": "kept"})
    assert strict.units == 5 and strict.name == "kept"

    class Broken(ef.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)

        def get_config(self):
            return {"unexpected": 1}

    with pytest.raises(TypeError, match="could not be created from its config"):
        Broken.from_config({"unexpected": 1, "name": 3})


def test_compute_output_shape_by_probing():
    assert ef.layers.Conv2D(4, 3).compute_output_shape((None, 8, 8, 2)) == (None, 6, 6, 4)
    assert ef.layers.LSTM(3, return_state=True).compute_output_shape((None, None, 2)) == [
        (None, 3), (None, 3), (None, 3)]
    assert ef.layers.Concatenate().compute_output_shape([(None, 2), (None, 3)]) == (None, 5)


def test_repr_and_reset_names():
    assert repr(ef.layers.Dense(2, name="d")) == "<Dense name=d, built=False>"
    base.reset_name_uids()
    assert ef.layers.Dense(1).name == "dense"


# -- weights ---------------------------------------------------------------------------
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


def test_the_input_binds_by_the_name_call_gives_it():
    # Keras 3 binds a layer's input by name as well: mha(query=q, value=v), dense(inputs=x).
    class Scale(ef.layers.Layer):
        def call(self, x, factor=2.0):
            return x * factor

    assert float(Scale()(x=ef.constant(3.0), factor=3.0)) == 9.0
    mha = ef.layers.MultiHeadAttention(num_heads=2, key_dim=3)
    q = ef.ones((1, 4, 5))
    assert mha(query=q, value=q).shape == (1, 4, 5)
    with pytest.raises(TypeError, match="called without an input tensor"):
        Scale()(y=1.0)
