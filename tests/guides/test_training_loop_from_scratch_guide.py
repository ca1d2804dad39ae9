"""Keras guide "Writing a training loop from scratch in TensorFlow", ported section by
section with `tf.`/`keras.` turned into `ef.`. The built-in 8x8 digits (64 features)
stand in for MNIST (784), and the loops run for a few steps only."""

import os

import numpy as np

import eagerflow as ef

batch_size = 32


def get_model():
    inputs = ef.Input(shape=(64,), name="digits")
    x1 = ef.layers.Dense(64, activation="relu")(inputs)
    x2 = ef.layers.Dense(64, activation="relu")(x1)
    outputs = ef.layers.Dense(10, name="predictions")(x2)
    model = ef.Model(inputs=inputs, outputs=outputs)
    return model


def _datasets():
    (x_train, y_train), _ = ef.datasets.digits.load_data()
    x_train = np.reshape(x_train, (-1, 64)).astype("float32") / 16.0
    x_val = x_train[-300:]
    y_val = y_train[-300:]
    x_train = x_train[:-300]
    y_train = y_train[:-300]
    train_dataset = ef.data.Dataset.from_tensor_slices((x_train, y_train))
    train_dataset = train_dataset.shuffle(buffer_size=1024).batch(batch_size)
    val_dataset = ef.data.Dataset.from_tensor_slices((x_val, y_val))
    val_dataset = val_dataset.batch(batch_size)
    return train_dataset, val_dataset


def test_a_first_end_to_end_example(capsys):
    ef.random.set_seed(0)
    model = get_model()
    optimizer = ef.optimizers.Adam(learning_rate=1e-3)
    loss_fn = ef.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_dataset, _ = _datasets()
    epochs = 3
    losses = []
    for epoch in range(epochs):
        print(f"\nStart of epoch {epoch}")
        for step, (x_batch_train, y_batch_train) in enumerate(train_dataset):
            with ef.GradientTape() as tape:
                logits = model(x_batch_train, training=True)
                loss_value = loss_fn(y_batch_train, logits)
            grads = tape.gradient(loss_value, model.trainable_weights)
            optimizer.apply(grads, model.trainable_weights)
            losses.append(float(loss_value))
            if step % 100 == 0:
                print(f"Training loss (for 1 batch) at step {step}: {float(loss_value):.4f}")
                print(f"Seen so far: {(step + 1) * batch_size} samples")
    assert np.mean(losses[-10:]) < np.mean(losses[:10]) / 3
    assert "Training loss (for 1 batch) at step 0: " in capsys.readouterr().out


def _train_eagerly_then_traced():
    ef.random.set_seed(0)
    model = get_model()
    optimizer = ef.optimizers.Adam(learning_rate=1e-3)
    loss_fn = ef.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_acc_metric = ef.metrics.SparseCategoricalAccuracy()
    val_acc_metric = ef.metrics.SparseCategoricalAccuracy()
    return model, optimizer, loss_fn, train_acc_metric, val_acc_metric


def test_low_level_handling_of_metrics():
    model, optimizer, loss_fn, train_acc_metric, val_acc_metric = _train_eagerly_then_traced()
    train_dataset, val_dataset = _datasets()
    accuracies = []
    for _epoch in range(2):
        for x_batch_train, y_batch_train in train_dataset:
            with ef.GradientTape() as tape:
                logits = model(x_batch_train, training=True)
                loss_value = loss_fn(y_batch_train, logits)
            grads = tape.gradient(loss_value, model.trainable_weights)
            optimizer.apply(grads, model.trainable_weights)
            train_acc_metric.update_state(y_batch_train, logits)
        train_acc = train_acc_metric.result()
        train_acc_metric.reset_state()
        for x_batch_val, y_batch_val in val_dataset:
            val_logits = model(x_batch_val, training=False)
            val_acc_metric.update_state(y_batch_val, val_logits)
        val_acc = val_acc_metric.result()
        val_acc_metric.reset_state()
        accuracies.append((float(train_acc), float(val_acc)))
    assert accuracies[-1][1] > 0.8, accuracies
    # The validation accuracy is the plain fraction of correct predictions.
    x_val, y_val = (np.concatenate(a) for a in zip(*[(x.numpy(), y.numpy())
                                                      for x, y in val_dataset], strict=True))
    expected = np.mean(np.argmax(model.predict(x_val, verbose=0), axis=1) == y_val)
    np.testing.assert_allclose(accuracies[-1][1], expected, rtol=1e-6)


def test_speeding_up_your_training_step_with_function():
    model, optimizer, loss_fn, train_acc_metric, val_acc_metric = _train_eagerly_then_traced()
    train_dataset, val_dataset = _datasets()

    @ef.function
    def train_step(x, y):
        with ef.GradientTape() as tape:
            logits = model(x, training=True)
            loss_value = loss_fn(y, logits)
        grads = tape.gradient(loss_value, model.trainable_weights)
        optimizer.apply(grads, model.trainable_weights)
        train_acc_metric.update_state(y, logits)
        return loss_value

    @ef.function
    def test_step(x, y):
        val_logits = model(x, training=False)
        val_acc_metric.update_state(y, val_logits)

    results = []
    for _epoch in range(2):
        losses = [float(train_step(x, y)) for x, y in train_dataset]
        train_acc = train_acc_metric.result()
        train_acc_metric.reset_state()
        for x_batch_val, y_batch_val in val_dataset:
            test_step(x_batch_val, y_batch_val)
        val_acc = val_acc_metric.result()
        val_acc_metric.reset_state()
        results.append((np.mean(losses), float(train_acc), float(val_acc)))
    assert results[1][0] < results[0][0]
    assert results[-1][2] > 0.8, results
    assert float(optimizer.iterations) == 2 * len(losses)  # state updated in the graph


def test_low_level_handling_of_losses_tracked_by_the_model():
    class ActivityRegularizationLayer(ef.layers.Layer):
        def call(self, inputs):
            self.add_loss(1e-2 * ef.reduce_sum(inputs))
            return inputs

    inputs = ef.Input(shape=(64,), name="digits")
    x = ef.layers.Dense(64, activation="relu")(inputs)
    x = ActivityRegularizationLayer()(x)
    x = ef.layers.Dense(64, activation="relu")(x)
    outputs = ef.layers.Dense(10, name="predictions")(x)
    model = ef.Model(inputs=inputs, outputs=outputs)
    optimizer = ef.optimizers.Adam(learning_rate=1e-3)
    loss_fn = ef.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_acc_metric = ef.metrics.SparseCategoricalAccuracy()

    @ef.function
    def train_step(x, y):
        with ef.GradientTape() as tape:
            logits = model(x, training=True)
            loss_value = loss_fn(y, logits)
            loss_value += sum(model.losses)
        grads = tape.gradient(loss_value, model.trainable_weights)
        optimizer.apply(grads, model.trainable_weights)
        train_acc_metric.update_state(y, logits)
        return loss_value

    train_dataset, _ = _datasets()
    x, y = next(iter(train_dataset))
    first = float(train_step(x, y))
    plain = float(loss_fn(y, model(x)))
    assert first > plain  # the activity penalty is part of the loss
    for _ in range(20):
        last = float(train_step(x, y))
    assert last < first


def test_end_to_end_a_gan_training_loop_from_scratch(tmp_path):
    discriminator = ef.Sequential(
        [
            ef.Input(shape=(28, 28, 1)),
            ef.layers.Conv2D(8, (3, 3), strides=(2, 2), padding="same"),
            ef.layers.LeakyReLU(negative_slope=0.2),
            ef.layers.Conv2D(16, (3, 3), strides=(2, 2), padding="same"),
            ef.layers.LeakyReLU(negative_slope=0.2),
            ef.layers.GlobalMaxPooling2D(),
            ef.layers.Dense(1),
        ],
        name="discriminator",
    )
    discriminator.summary(print_fn=lambda *_: None)
    latent_dim = 8
    generator = ef.Sequential(
        [
            ef.Input(shape=(latent_dim,)),
            ef.layers.Dense(7 * 7 * 16),
            ef.layers.LeakyReLU(negative_slope=0.2),
            ef.layers.Reshape((7, 7, 16)),
            ef.layers.Conv2DTranspose(16, (4, 4), strides=(2, 2), padding="same"),
            ef.layers.LeakyReLU(negative_slope=0.2),
            ef.layers.Conv2DTranspose(16, (4, 4), strides=(2, 2), padding="same"),
            ef.layers.LeakyReLU(negative_slope=0.2),
            ef.layers.Conv2D(1, (7, 7), padding="same", activation="sigmoid"),
        ],
        name="generator",
    )
    d_optimizer = ef.optimizers.Adam(learning_rate=0.0003)
    g_optimizer = ef.optimizers.Adam(learning_rate=0.0004)
    loss_fn = ef.losses.BinaryCrossentropy(from_logits=True)
    batch_size = 16

    @ef.function
    def train_step(real_images):
        random_latent_vectors = ef.random.normal(shape=(batch_size, latent_dim))
        generated_images = generator(random_latent_vectors)
        combined_images = ef.concat([generated_images, real_images], axis=0)
        labels = ef.concat(
            [ef.ones((batch_size, 1)), ef.zeros((real_images.shape[0], 1))], axis=0
        )
        labels += 0.05 * ef.random.uniform(labels.shape)
        with ef.GradientTape() as tape:
            predictions = discriminator(combined_images)
            d_loss = loss_fn(labels, predictions)
        grads = tape.gradient(d_loss, discriminator.trainable_weights)
        d_optimizer.apply(grads, discriminator.trainable_weights)
        random_latent_vectors = ef.random.normal(shape=(batch_size, latent_dim))
        misleading_labels = ef.zeros((batch_size, 1))
        with ef.GradientTape() as tape:
            predictions = discriminator(generator(random_latent_vectors))
            g_loss = loss_fn(misleading_labels, predictions)
        grads = tape.gradient(g_loss, generator.trainable_weights)
        g_optimizer.apply(grads, generator.trainable_weights)
        return d_loss, g_loss, generated_images

    (x_train, _), _ = ef.datasets.digits.load_data()
    all_digits = np.kron(x_train[:64].astype("float32") / 16.0, np.ones((4, 4)))[:, 2:30, 2:30]
    all_digits = np.reshape(all_digits, (-1, 28, 28, 1))
    dataset = ef.data.Dataset.from_tensor_slices(all_digits)
    dataset = dataset.shuffle(buffer_size=1024).batch(batch_size, drop_remainder=True)
    save_dir = str(tmp_path)
    images = []
    for step, real_images in enumerate(dataset):
        d_loss, g_loss, generated_images = train_step(real_images)
        assert np.isfinite(float(d_loss)) and np.isfinite(float(g_loss))
        if step % 2 == 0:
            print(f"discriminator loss at step {step}: {d_loss:.2f}")
            img = ef.utils.array_to_img(generated_images[0] * 255.0, scale=False)
            img.save(os.path.join(save_dir, f"generated_img_{step}.png"))
            images.append(generated_images[0].numpy())
        if step > 2:
            break
    assert sorted(os.listdir(save_dir)) == ["generated_img_0.png", "generated_img_2.png"]
    assert not np.array_equal(images[0], images[1])  # fresh noise and new weights per call
