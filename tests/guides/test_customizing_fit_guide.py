"""Keras guide "Customizing what happens in `fit()` with TensorFlow", ported section by
section with `tf.`/`keras.` turned into `ef.` (small data, short runs; outcomes asserted)."""

import numpy as np

import eagerflow as ef
from eagerflow import layers


def _data(n=256, weights=False, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.random((n, 32))
    y = x @ rng.random((32, 1)) / 8  # learnable, unlike the guide's random targets
    if weights:
        return x, y, rng.random((n, 1))
    return x, y


def test_a_first_simple_example():
    class CustomModel(ef.Model):
        def train_step(self, data):
            x, y = data
            with ef.GradientTape() as tape:
                y_pred = self(x, training=True)  # Forward pass
                loss = self.compute_loss(y=y, y_pred=y_pred)
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)
            self.optimizer.apply(gradients, trainable_vars)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    inputs = ef.Input(shape=(32,))
    outputs = ef.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    x, y = _data()
    history = model.fit(x, y, epochs=3, verbose=0)
    assert set(history.history) == {"loss", "mae"}
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert history.history["mae"][-1] < history.history["mae"][0]


def test_going_lower_level():
    class CustomModel(ef.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.loss_tracker = ef.metrics.Mean(name="loss")
            self.mae_metric = ef.metrics.MeanAbsoluteError(name="mae")
            self.loss_fn = ef.losses.MeanSquaredError()

        def train_step(self, data):
            x, y = data
            with ef.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.loss_fn(y, y_pred)
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)
            self.optimizer.apply(gradients, trainable_vars)
            self.loss_tracker.update_state(loss)
            self.mae_metric.update_state(y, y_pred)
            return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

        @property
        def metrics(self):
            return [self.loss_tracker, self.mae_metric]

    inputs = ef.Input(shape=(32,))
    outputs = ef.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(optimizer="adam")
    x, y = _data()
    history = model.fit(x, y, epochs=5, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < losses[0]
    # fit resets the metrics listed in `metrics` at every epoch: the trackers hold the
    # last epoch's 8 batches only.
    assert float(model.loss_tracker.count) == 256 / 32


def test_supporting_sample_weight_and_class_weight():
    class CustomModel(ef.Model):
        def train_step(self, data):
            if len(data) == 3:
                x, y, sample_weight = data
            else:
                sample_weight = None
                x, y = data
            with ef.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred, sample_weight=sample_weight)
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)
            self.optimizer.apply(gradients, trainable_vars)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred, sample_weight=sample_weight)
            return {m.name: m.result() for m in self.metrics}

    inputs = ef.Input(shape=(32,))
    outputs = ef.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    x, y, sw = _data(weights=True)
    history = model.fit(x, y, sample_weight=sw, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert "mae" in history.history


def test_providing_your_own_evaluation_step():
    class CustomModel(ef.Model):
        def test_step(self, data):
            x, y = data
            y_pred = self(x, training=False)
            loss = self.compute_loss(y=y, y_pred=y_pred)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    inputs = ef.Input(shape=(32,))
    outputs = ef.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(loss="mse", metrics=["mae"])
    x, y = _data()
    loss, mae = model.evaluate(x, y, verbose=0)
    pred = model.predict(x, verbose=0)
    np.testing.assert_allclose(loss, np.mean((pred - y) ** 2), rtol=1e-4)
    np.testing.assert_allclose(mae, np.mean(np.abs(pred - y)), rtol=1e-4)


def _gan_parts(latent_dim):
    discriminator = ef.Sequential(
        [
            ef.Input(shape=(28, 28, 1)),
            layers.Conv2D(8, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2D(16, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.GlobalMaxPooling2D(),
            layers.Dense(1),
        ],
        name="discriminator",
    )
    generator = ef.Sequential(
        [
            ef.Input(shape=(latent_dim,)),
            layers.Dense(7 * 7 * 16),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Reshape((7, 7, 16)),
            layers.Conv2DTranspose(16, (4, 4), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2DTranspose(16, (4, 4), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2D(1, (7, 7), padding="same", activation="sigmoid"),
        ],
        name="generator",
    )
    return discriminator, generator


class GAN(ef.Model):
    def __init__(self, discriminator, generator, latent_dim):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim
        self.d_loss_tracker = ef.metrics.Mean(name="d_loss")
        self.g_loss_tracker = ef.metrics.Mean(name="g_loss")
        self.seed_generator = ef.random.SeedGenerator(1337)

    @property
    def metrics(self):
        return [self.d_loss_tracker, self.g_loss_tracker]

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn

    def train_step(self, real_images):
        if isinstance(real_images, tuple):
            real_images = real_images[0]
        batch_size = ef.shape(real_images)[0]
        random_latent_vectors = ef.random.normal(
            shape=(batch_size, self.latent_dim), seed=self.seed_generator
        )
        generated_images = self.generator(random_latent_vectors)
        combined_images = ef.concat([generated_images, real_images], axis=0)
        labels = ef.concat([ef.ones((batch_size, 1)), ef.zeros((batch_size, 1))], axis=0)
        labels += 0.05 * ef.random.uniform(ef.shape(labels), seed=self.seed_generator)
        with ef.GradientTape() as tape:
            predictions = self.discriminator(combined_images)
            d_loss = self.loss_fn(labels, predictions)
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply(grads, self.discriminator.trainable_weights)
        random_latent_vectors = ef.random.normal(
            shape=(batch_size, self.latent_dim), seed=self.seed_generator
        )
        misleading_labels = ef.zeros((batch_size, 1))
        with ef.GradientTape() as tape:
            predictions = self.discriminator(self.generator(random_latent_vectors))
            g_loss = self.loss_fn(misleading_labels, predictions)
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply(grads, self.generator.trainable_weights)
        self.d_loss_tracker.update_state(d_loss)
        self.g_loss_tracker.update_state(g_loss)
        return {"d_loss": self.d_loss_tracker.result(),
                "g_loss": self.g_loss_tracker.result()}


def test_wrapping_up_an_end_to_end_gan():
    batch_size = 16
    latent_dim = 8
    all_digits = ef.datasets.digits.load_data()[0][0][:64]  # the built-in 8x8 digits
    all_digits = np.kron(all_digits.astype("float32") / 16.0, np.ones((4, 4)))[:, 2:30, 2:30]
    all_digits = np.reshape(all_digits, (-1, 28, 28, 1))
    dataset = ef.data.Dataset.from_tensor_slices(all_digits)
    dataset = dataset.shuffle(buffer_size=1024).batch(batch_size)
    discriminator, generator = _gan_parts(latent_dim)
    gan = GAN(discriminator=discriminator, generator=generator, latent_dim=latent_dim)
    gan.compile(
        d_optimizer=ef.optimizers.Adam(learning_rate=0.0003),
        g_optimizer=ef.optimizers.Adam(learning_rate=0.0003),
        loss_fn=ef.losses.BinaryCrossentropy(from_logits=True),
    )
    before = [w.numpy() for w in generator.trainable_weights]
    history = gan.fit(dataset.take(4), epochs=1, verbose=0)
    assert set(history.history) == {"d_loss", "g_loss"}
    assert all(np.isfinite(v[0]) for v in history.history.values())
    changed = [not np.array_equal(b, w.numpy())
               for b, w in zip(before, generator.trainable_weights, strict=True)]
    assert all(changed)
