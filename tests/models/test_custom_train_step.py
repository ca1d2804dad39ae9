"""Custom train_step / test_step / predict_step work with fit, callbacks and progress."""

import io

import numpy as np
import pytest

import eagerflow as ef


class TwoPlayer(ef.Model):
    """A GAN-shaped model: two sub-networks, two optimizers, its own trackers."""

    def __init__(self):
        super().__init__()
        self.generator = ef.layers.Dense(2, name="generator")
        self.critic = ef.layers.Dense(1, name="critic")
        self.g_tracker = ef.metrics.Mean(name="g_loss")
        self.trackers = [ef.metrics.Mean(name="c_loss")]

    def call(self, noise, training=None):
        return self.generator(noise)

    def compile(self, g_optimizer, c_optimizer):
        super().compile()
        self.g_optimizer, self.c_optimizer = g_optimizer, c_optimizer

    def train_step(self, data):
        real = data
        noise = ef.random.normal([real.shape[0], 3])
        with ef.GradientTape() as tape:
            fake = self(noise, training=True)
            c_loss = ef.reduce_mean(self.critic(fake)) - ef.reduce_mean(self.critic(real))
        grads = tape.gradient(c_loss, self.critic.trainable_variables)
        self.c_optimizer.apply_gradients(zip(grads, self.critic.trainable_variables, strict=True))
        with ef.GradientTape() as tape:
            g_loss = -ef.reduce_mean(self.critic(self(noise, training=True)))
        grads = tape.gradient(g_loss, self.generator.trainable_variables)
        self.g_optimizer.apply_gradients(
            zip(grads, self.generator.trainable_variables, strict=True))
        self.g_tracker.update_state(g_loss)
        self.trackers[0].update_state(c_loss)
        return {"g_loss": self.g_tracker.result(), "c_loss": self.trackers[0].result()}


def test_gan_style_train_step_with_fit_callbacks_and_progress_bar():
    ef.random.set_seed(0)
    model = TwoPlayer()
    model.compile(ef.optim.Adam(1e-3), ef.optim.Adam(1e-3))
    real = ef.data.Dataset.from_tensor_slices(
        np.random.default_rng(0).normal(size=(32, 2)).astype(np.float32)).batch(8)
    out = io.StringIO()
    seen = []
    history = model.fit(real, epochs=2, callbacks=[
        ef.callbacks.ProgbarLogger(file=out),
        ef.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: seen.append(dict(logs)))])
    assert set(history.history) == {"g_loss", "c_loss"}
    assert "Epoch 2/2 - 4/4 - " in out.getvalue() and "g_loss: " in out.getvalue()
    assert [m.name for m in model.metrics] == ["loss", "g_loss", "c_loss"]
    # Trackers held in attributes are reset every epoch: the epoch value is a mean of 4.
    assert model.g_tracker.count.numpy() == 4


class Regressor(ef.Model):
    """The Keras 3 guide's pattern: compute_loss + compute_metrics."""

    def __init__(self):
        super().__init__()
        self.dense = ef.layers.Dense(1)

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with ef.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables, strict=True))
        return self.compute_metrics(x, y, y_pred)

    def test_step(self, data):
        x, y = data
        y_pred = self(x)
        self.compute_loss(x, y, y_pred)
        return self.compute_metrics(x, y, y_pred)

    def predict_step(self, data):
        return self(data) * 0.0 + 7.0


def test_compute_loss_feeds_the_epoch_mean_loss_tracker():
    ef.random.set_seed(0)
    x = np.linspace(-1, 1, 32).reshape(-1, 1).astype(np.float32)
    model = Regressor()
    model.compile(optimizer=ef.optim.SGD(0.0), loss="mse", metrics=["mae"])
    history = model.fit(x, 2 * x, batch_size=8, verbose=0, shuffle=False)
    # The logged loss is the epoch mean, not the last batch's.
    assert history.history["loss"][0] == pytest.approx(
        model.evaluate(x, 2 * x, verbose=0)[0], rel=1e-5)
    last_batch = float(ef.losses.mean_squared_error(2 * x[-8:], model(x[-8:])).numpy().mean())
    assert history.history["loss"][0] != pytest.approx(last_batch, rel=1e-3)
    assert np.all(model.predict(x, verbose=0) == 7.0)


def test_train_step_returning_raw_values_reports_the_last_batch():
    class Raw(Regressor):
        def train_step(self, data):
            return {"answer": ef.constant(42.0)}

    model = Raw()
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(np.zeros((4, 1), np.float32), np.zeros((4, 1)), verbose=0)
    assert history.history == {"answer": [42.0]}


def test_subclass_without_call_takes_positional_constructor_arguments():
    # keras.io's VAE: `VAE(encoder, decoder)` defines train_step but no call(); Keras
    # decides "functional or subclassed" by what reaches Model.__init__, not by the
    # subclass's own arguments.
    inputs = ef.Input((4,))
    encoder = ef.Model(inputs, ef.layers.Dense(2)(inputs))
    latent = ef.Input((2,))
    decoder = ef.Model(latent, ef.layers.Dense(4)(latent))

    class VAE(ef.Model):
        def __init__(self, encoder, decoder, **kwargs):
            super().__init__(**kwargs)
            self.encoder, self.decoder = encoder, decoder

        def train_step(self, data):
            with ef.GradientTape() as tape:
                loss = ef.reduce_mean(ef.square(self.decoder(self.encoder(data)) - data))
            grads = tape.gradient(loss, self.trainable_weights)
            self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
            return {"loss": loss}

    vae = VAE(encoder, decoder)
    assert type(vae) is VAE and len(vae.trainable_weights) == 4
    vae.compile(optimizer="sgd")
    history = vae.fit(np.ones((8, 4), "float32"), epochs=1, batch_size=4, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    with pytest.raises(TypeError):  # one positional argument is neither form
        ef.Model(inputs)


def test_custom_test_step_updating_the_loss_tracker_evaluates_as_keras():
    # The "Customizing what happens in fit" guide's test_step: compute_loss does not feed
    # the loss tracker (Keras 3), the step does. Keras 3.15: [313.8885192871094, 15.0].
    class CustomModel(ef.Model):
        def test_step(self, data):
            x, y = data
            y_pred = self(x, training=False)
            loss = self.compute_loss(y=y, y_pred=y_pred)
            for metric in self.metrics:
                if metric.name != "loss":
                    metric.update_state(y, y_pred)
                else:
                    metric.update_state(loss)
            return {m.name: m.result() for m in self.metrics}

    inputs = ef.Input(shape=(32,))
    model = CustomModel(inputs, ef.layers.Dense(1, kernel_initializer="ones")(inputs))
    model.compile(loss="mse", metrics=["mae"])
    x = np.linspace(0, 1, 1000 * 32).reshape(1000, 32).astype("float32")
    y = np.linspace(0, 2, 1000).reshape(1000, 1).astype("float32")
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0), [313.8885192871094, 15.0],
                               rtol=1e-5)
