"""Calls users bring from the TensorFlow 2 and Keras guides (issue 16), with ef names."""

import numpy as np
import pytest

import eagerflow as ef


def test_watched_variables_are_still_listed_after_gradient():
    v = ef.Variable(2.0)
    with ef.GradientTape() as tape:
        y = v * 3.0
    tape.gradient(y, v)
    assert tape.watched_variables() == (v,)


def test_a_variable_differentiated_with_respect_to_itself_is_ones():
    v = ef.Variable([1.0, 2.0])
    with ef.GradientTape() as tape:
        pass
    np.testing.assert_array_equal(tape.gradient(v, v), [1.0, 1.0])
    with ef.GradientTape() as tape:
        y = v * 2.0
    grads = tape.gradient([y, v], [v])
    np.testing.assert_array_equal(grads[0], [3.0, 3.0])


def test_format_shows_the_values():
    assert f"{ef.constant([1.0, 2.0])}" == "[1. 2.]"
    assert f"{ef.constant(3.5)}" == "3.5"
    assert f"{ef.Variable([1, 2])}" == "[1 2]"


def test_lr_is_refused_naming_learning_rate():
    with pytest.raises(TypeError, match="use learning_rate=0.1"):
        ef.optim.Adam(lr=0.1)
    with pytest.raises(TypeError, match=r"unexpected argument\(s\) \['momentun'\]"):
        ef.optim.SGD(momentun=0.9)


def test_minimize_advances_a_global_step():
    v = ef.Variable(3.0)
    step = ef.Variable(0, dtype="int64")
    ef.optim.SGD(0.25).minimize(lambda: v * v, [v], global_step=step)
    assert (float(v), int(step)) == (1.5, 1)


def test_to_categorical():
    np.testing.assert_array_equal(ef.utils.to_categorical(np.array([[2], [0]]), 3),
                                  [[0, 0, 1], [1, 0, 0]])
    with pytest.raises(ef.errors.InvalidArgumentError, match="label 3 is out of range"):
        ef.utils.to_categorical([3], num_classes=3)


def test_a_single_callback_needs_no_list():
    seen = []
    callback = ef.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append(epoch))
    model = ef.Sequential([ef.layers.Dense(1, input_shape=(1,))])
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=2, verbose=0, callbacks=callback)
    assert seen == [0, 1]


def test_fit_trains_a_model_whose_only_loss_comes_from_add_loss():
    class Regularized(ef.Model):
        def __init__(self):
            super().__init__()
            self.dense = ef.layers.Dense(1, kernel_initializer="ones")

        def call(self, x):
            y = self.dense(x)
            self.add_loss(ef.reduce_mean(ef.square(y - 3.0)))
            return y

    model = Regularized()
    model.compile(optimizer=ef.optim.SGD(0.1))
    history = model.fit(np.ones((16, 2), "float32"), epochs=10, batch_size=4, verbose=0)
    assert history.history["loss"][-1] < 0.01 < history.history["loss"][0]
    bare = ef.Sequential([ef.layers.Dense(1)])
    bare.compile(optimizer="sgd")
    with pytest.raises(ValueError, match="has no loss.*add_loss"):
        bare.fit(np.ones((4, 2)), np.ones((4, 1)), verbose=0)


def test_a_model_subclass_built_functionally_customizes_fit():
    # "Customizing what happens in fit": a subclass overriding train_step only, built as
    # CustomModel(inputs, outputs).
    class CustomModel(ef.Model):
        def train_step(self, data):
            self.steps_seen = getattr(self, "steps_seen", 0) + 1
            return super().train_step(data)

    inputs = ef.layers.Input((3,))
    outputs = ef.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    assert isinstance(model, CustomModel) and type(model).__name__ == "CustomModel"
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    history = model.fit(np.ones((32, 3)), np.ones((32, 1)), batch_size=8, epochs=2,
                        verbose=0)
    assert sorted(history.history) == ["loss", "mae"]
    assert model.steps_seen == 1  # traced once: train_step's Python ran while tracing
    assert model.output_shape == (None, 1)
    assert ef.saving.registry.get_registered_object("CustomModel", kind="layer") is CustomModel

    class WithCall(ef.Model):
        def call(self, x):
            return x

    with pytest.raises(TypeError, match="defines its own call"):
        WithCall(inputs, outputs)


def test_the_keras_zip_format_is_refused_with_the_name_to_use(tmp_path):
    model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,))])
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"\.keras format .*model\.h5"):
        model.save(str(tmp_path / "model.keras"))
    assert not (tmp_path / "model.keras").exists()
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"\.keras format"):
        ef.models.load_model(str(tmp_path / "model.keras"))


def test_feature_extraction_from_a_sequential_model():
    # The Sequential guide: ef.Model(inputs=m.inputs, outputs=[l.output for l in m.layers])
    model = ef.Sequential([ef.layers.Input((3,)), ef.layers.Dense(4, name="first"),
                           ef.layers.Dense(2, name="second")])
    extractor = ef.Model(inputs=model.inputs,
                         outputs=[layer.output for layer in model.layers])
    first, second = extractor(ef.ones([5, 3]))
    assert (first.shape, second.shape) == ((5, 4), (5, 2))
    single = ef.Model(inputs=model.input, outputs=model.get_layer("first").output)
    np.testing.assert_allclose(single(ef.ones([5, 3])), first, rtol=1e-6)
    with pytest.raises(AttributeError, match="no inputs yet: give it an input shape"):
        _ = ef.Sequential([ef.layers.Dense(1)]).inputs
    with pytest.raises(AttributeError, match="never been called on symbolic inputs"):
        _ = ef.layers.Dense(1).output


def test_functional_model_input_and_output():
    x = ef.layers.Input((3,))
    hidden = ef.layers.Dense(4, name="hidden")
    model = ef.Model(x, ef.layers.Dense(1)(hidden(x)))
    assert model.input is x and hidden.input is x
    assert model.get_layer("hidden").output.shape == (None, 4)
