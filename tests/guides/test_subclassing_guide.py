"""Keras guide "Making new layers and models via subclassing", ported section by section
with `tf.`/`keras.` turned into `ef.` (the built-in 8x8 digits stand in for MNIST)."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow import layers


class Linear(ef.layers.Layer):
    def __init__(self, units=32, input_dim=32):
        super().__init__()
        self.w = self.add_weight(
            shape=(input_dim, units), initializer="random_normal", trainable=True
        )
        self.b = self.add_weight(shape=(units,), initializer="zeros", trainable=True)

    def call(self, inputs):
        return ef.matmul(inputs, self.w) + self.b


class LazyLinear(ef.layers.Layer):  # the guide's third `Linear`
    def __init__(self, units=32):
        super().__init__()
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(
            shape=(input_shape[-1], self.units),
            initializer="random_normal",
            trainable=True,
        )
        self.b = self.add_weight(
            shape=(self.units,), initializer="random_normal", trainable=True
        )

    def call(self, inputs):
        return ef.matmul(inputs, self.w) + self.b


def test_the_layer_class_state_and_computation():
    x = ef.ones((2, 2))
    linear_layer = Linear(4, 2)
    y = linear_layer(x)
    np.testing.assert_allclose(y.numpy(), np.ones((2, 2)) @ linear_layer.w.numpy(), rtol=1e-6)
    assert linear_layer.weights == [linear_layer.w, linear_layer.b]


def test_layers_can_have_non_trainable_weights(capsys):
    class ComputeSum(ef.layers.Layer):
        def __init__(self, input_dim):
            super().__init__()
            self.total = self.add_weight(
                initializer="zeros", shape=(input_dim,), trainable=False
            )

        def call(self, inputs):
            self.total.assign_add(ef.reduce_sum(inputs, axis=0))
            return self.total

    x = ef.ones((2, 2))
    my_sum = ComputeSum(2)
    y = my_sum(x)
    print(y.numpy())
    y = my_sum(x)
    print(y.numpy())
    print("weights:", len(my_sum.weights))
    print("non-trainable weights:", len(my_sum.non_trainable_weights))
    print("trainable_weights:", my_sum.trainable_weights)
    assert capsys.readouterr().out.split("\n") == [
        "[2. 2.]", "[4. 4.]", "weights: 1", "non-trainable weights: 1",
        "trainable_weights: []", ""]


def test_deferring_weight_creation_until_the_shape_is_known():
    linear_layer = LazyLinear(32)
    assert linear_layer.weights == []
    y = linear_layer(ef.ones((2, 2)))
    assert y.shape == (2, 32)
    assert [w.shape for w in linear_layer.weights] == [(2, 32), (32,)]


def test_layers_are_recursively_composable():
    class MLPBlock(ef.layers.Layer):
        def __init__(self):
            super().__init__()
            self.linear_1 = LazyLinear(32)
            self.linear_2 = LazyLinear(32)
            self.linear_3 = LazyLinear(1)

        def call(self, inputs):
            x = self.linear_1(inputs)
            x = ef.nn.relu(x)
            x = self.linear_2(x)
            x = ef.nn.relu(x)
            return self.linear_3(x)

    mlp = MLPBlock()
    y = mlp(ef.ones(shape=(3, 64)))
    assert y.shape == (3, 1)
    assert len(mlp.weights) == 6
    assert len(mlp.trainable_weights) == 6


class ActivityRegularizationLayer(ef.layers.Layer):
    def __init__(self, rate=1e-2):
        super().__init__()
        self.rate = rate

    def call(self, inputs):
        self.add_loss(self.rate * ef.reduce_mean(inputs))
        return inputs


def test_the_add_loss_method():
    class OuterLayer(ef.layers.Layer):
        def __init__(self):
            super().__init__()
            self.activity_reg = ActivityRegularizationLayer(1e-2)

        def call(self, inputs):
            return self.activity_reg(inputs)

    layer = OuterLayer()
    assert len(layer.losses) == 0
    _ = layer(ef.zeros((1, 1)))
    assert len(layer.losses) == 1
    _ = layer(ef.zeros((1, 1)))
    assert len(layer.losses) == 1

    class OuterLayerWithKernelRegularizer(ef.layers.Layer):
        def __init__(self):
            super().__init__()
            self.dense = ef.layers.Dense(32, kernel_regularizer=ef.regularizers.l2(1e-3))

        def call(self, inputs):
            return self.dense(inputs)

    layer = OuterLayerWithKernelRegularizer()
    _ = layer(ef.zeros((1, 1)))
    (penalty,) = layer.losses
    np.testing.assert_allclose(float(penalty),
                               1e-3 * np.sum(layer.dense.kernel.numpy() ** 2), rtol=1e-5)


def test_add_loss_losses_work_with_fit():
    inputs = ef.Input(shape=(3,))
    outputs = ActivityRegularizationLayer()(inputs)
    model = ef.Model(inputs, outputs)
    x, y = np.random.random((2, 3)), np.random.random((2, 3))
    model.compile(optimizer="adam", loss="mse")
    # The model has no weights: as Keras, fit says so.
    with pytest.warns(ef.errors.EagerflowWarning, match="does not have any trainable weights"):
        history = model.fit(x, y, verbose=0)
    expected = np.mean((x - y) ** 2) + 1e-2 * np.mean(x)
    np.testing.assert_allclose(history.history["loss"][0], expected, rtol=1e-5)
    model.compile(optimizer="adam")
    with pytest.warns(ef.errors.EagerflowWarning, match="does not have any trainable weights"):
        history = model.fit(x, y, verbose=0)
    np.testing.assert_allclose(history.history["loss"][0], 1e-2 * np.mean(x), rtol=1e-5)


def test_you_can_optionally_enable_serialization():
    class Linear(ef.layers.Layer):
        def __init__(self, units=32, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1], self.units),
                                     initializer="random_normal", trainable=True)
            self.b = self.add_weight(shape=(self.units,), initializer="random_normal",
                                     trainable=True)

        def call(self, inputs):
            return ef.matmul(inputs, self.w) + self.b

        def get_config(self):
            config = super().get_config()
            config.update({"units": self.units})
            return config

    layer = Linear(64, name="lin")
    config = layer.get_config()
    assert config["units"] == 64 and config["name"] == "lin"
    new_layer = Linear.from_config(config)
    assert new_layer.units == 64 and new_layer.name == "lin"

    class Plain(LazyLinear):  # the guide's first form: config without the base's keys
        def get_config(self):
            return {"units": self.units}

    assert Plain.from_config(Plain(64).get_config()).units == 64


def test_privileged_training_argument():
    class CustomDropout(ef.layers.Layer):
        def __init__(self, rate, **kwargs):
            super().__init__(**kwargs)
            self.rate = rate

        def call(self, inputs, training=False):
            if training:
                return ef.nn.dropout(inputs, rate=self.rate)
            return inputs

    layer = CustomDropout(0.5)
    x = ef.ones((100, 10))
    np.testing.assert_array_equal(layer(x).numpy(), x.numpy())
    dropped = layer(x, training=True).numpy()
    assert set(np.unique(dropped)) == {0.0, 2.0}
    model = ef.Sequential([ef.Input(shape=(10,)), layer])
    model.compile(loss="mse")
    assert model.evaluate(x, x, verbose=0) == pytest.approx(0.0)  # inference: no dropout


class Sampling(layers.Layer):
    """Uses (z_mean, z_log_var) to sample z, the vector encoding a digit."""

    def call(self, inputs):
        z_mean, z_log_var = inputs
        batch = ef.shape(z_mean)[0]
        dim = ef.shape(z_mean)[1]
        epsilon = ef.random.normal(shape=(batch, dim))
        return z_mean + ef.exp(0.5 * z_log_var) * epsilon


class Encoder(layers.Layer):
    def __init__(self, latent_dim=32, intermediate_dim=64, name="encoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.dense_proj = layers.Dense(intermediate_dim, activation="relu")
        self.dense_mean = layers.Dense(latent_dim)
        self.dense_log_var = layers.Dense(latent_dim)
        self.sampling = Sampling()

    def call(self, inputs):
        x = self.dense_proj(inputs)
        z_mean = self.dense_mean(x)
        z_log_var = self.dense_log_var(x)
        z = self.sampling((z_mean, z_log_var))
        return z_mean, z_log_var, z


class Decoder(layers.Layer):
    def __init__(self, original_dim, intermediate_dim=64, name="decoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.dense_proj = layers.Dense(intermediate_dim, activation="relu")
        self.dense_output = layers.Dense(original_dim, activation="sigmoid")

    def call(self, inputs):
        x = self.dense_proj(inputs)
        return self.dense_output(x)


class VariationalAutoEncoder(ef.Model):
    def __init__(self, original_dim, intermediate_dim=64, latent_dim=32, name="autoencoder",
                 **kwargs):
        super().__init__(name=name, **kwargs)
        self.original_dim = original_dim
        self.encoder = Encoder(latent_dim=latent_dim, intermediate_dim=intermediate_dim)
        self.decoder = Decoder(original_dim, intermediate_dim=intermediate_dim)

    def call(self, inputs):
        z_mean, z_log_var, z = self.encoder(inputs)
        reconstructed = self.decoder(z)
        kl_loss = -0.5 * ef.reduce_mean(z_log_var - ef.square(z_mean) - ef.exp(z_log_var) + 1)
        self.add_loss(kl_loss)
        return reconstructed


def _digits():
    (x_train, _), _ = ef.datasets.digits.load_data()
    return x_train.reshape(-1, 64).astype("float32") / 16


def test_putting_it_all_together_a_vae_trained_by_hand(capsys):
    ef.random.set_seed(0)
    original_dim = 64
    vae = VariationalAutoEncoder(original_dim, 32, 8)
    optimizer = ef.optimizers.Adam(learning_rate=1e-3)
    mse_loss_fn = ef.losses.MeanSquaredError()
    loss_metric = ef.metrics.Mean()
    x_train = _digits()
    train_dataset = ef.data.Dataset.from_tensor_slices(x_train)
    train_dataset = train_dataset.shuffle(buffer_size=1024).batch(64)
    means = []
    for epoch in range(2):
        print(f"Start of epoch {epoch}")
        for step, x_batch_train in enumerate(train_dataset):
            with ef.GradientTape() as tape:
                reconstructed = vae(x_batch_train)
                loss = mse_loss_fn(x_batch_train, reconstructed)
                loss += sum(vae.losses)
            grads = tape.gradient(loss, vae.trainable_weights)
            optimizer.apply_gradients(zip(grads, vae.trainable_weights, strict=True))
            loss_metric(loss)
            if step % 10 == 0:
                print(f"step {step}: mean loss = {float(loss_metric.result()):.4f}")
        means.append(float(loss_metric.result()))
        loss_metric.reset_state()
    assert means[1] < means[0]
    assert "step 0: mean loss = " in capsys.readouterr().out


def test_putting_it_all_together_the_same_vae_with_fit():
    ef.random.set_seed(0)
    vae = VariationalAutoEncoder(64, 32, 8)
    optimizer = ef.optimizers.Adam(learning_rate=1e-3)
    vae.compile(optimizer, loss=ef.losses.MeanSquaredError())
    x_train = _digits()
    history = vae.fit(x_train, x_train, epochs=2, batch_size=64, verbose=0)
    assert history.history["loss"][1] < history.history["loss"][0]
