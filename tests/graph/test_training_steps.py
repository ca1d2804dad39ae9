"""Whole training steps inside ef.function, written as the public guides write them."""

import numpy as np

import eagerflow as ef


def _classification_data(n=256, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 8)).astype("float32")
    y = np.argmax(x[:, :3], axis=1).astype("int64")
    return x, y


def test_custom_training_loop_from_the_guide():
    # "Writing a training loop from scratch", with ef names.
    ef.random.set_seed(1)
    x, y = _classification_data()
    model = ef.Sequential([ef.layers.Dense(32, activation="relu"), ef.layers.Dense(3)])
    optimizer = ef.optim.Adam(learning_rate=1e-2)
    loss_fn = ef.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_acc_metric = ef.metrics.SparseCategoricalAccuracy()
    val_acc_metric = ef.metrics.SparseCategoricalAccuracy()
    dataset = ef.data.Dataset.from_tensor_slices((x, y)).shuffle(256, seed=0).batch(32)

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
        val_acc_metric.update_state(y, model(x, training=False))

    accuracies = []
    for _ in range(6):
        for x_batch, y_batch in dataset:
            train_step(x_batch, y_batch)
        accuracies.append(float(train_acc_metric.result()))
        train_acc_metric.reset_state()
    test_step(ef.constant(x), ef.constant(y))
    assert accuracies[-1] > 0.9 > accuracies[0]
    assert float(val_acc_metric.result()) > 0.9
    assert train_step.experimental_get_tracing_count() == 1
    assert int(optimizer.iterations) == 6 * 8


def test_gan_step_with_two_optimizers_and_add_loss():
    ef.random.set_seed(2)
    latent = 4
    generator = ef.Sequential([ef.layers.Dense(8, activation="relu"), ef.layers.Dense(2)])
    discriminator = ef.Sequential([ef.layers.Dense(8, activation="relu"), ef.layers.Dense(1)])
    generator.build((None, latent))
    discriminator.build((None, 2))
    d_opt, g_opt = ef.optim.Adam(1e-3), ef.optim.Adam(1e-3)
    bce = ef.losses.BinaryCrossentropy(from_logits=True)
    d_tracker, g_tracker = ef.metrics.Mean(), ef.metrics.Mean()

    @ef.function
    def train_step(real):
        batch = ef.shape(real)[0]
        noise = ef.random.normal([batch, latent])
        with ef.GradientTape() as tape:
            fake = generator(noise)
            logits = discriminator(ef.concat([fake, real], axis=0))
            labels = ef.concat([ef.ones([batch, 1]), ef.zeros([batch, 1])], axis=0)
            discriminator.add_loss(1e-3 * ef.reduce_sum(ef.square(discriminator.layers[0].kernel)))
            d_loss = bce(labels, logits) + sum(discriminator.losses)
        grads = tape.gradient(d_loss, discriminator.trainable_weights)
        d_opt.apply_gradients(zip(grads, discriminator.trainable_weights, strict=True))
        with ef.GradientTape() as tape:
            g_loss = bce(ef.zeros([batch, 1]), discriminator(generator(noise)))
        grads = tape.gradient(g_loss, generator.trainable_weights)
        g_opt.apply_gradients(zip(grads, generator.trainable_weights, strict=True))
        d_tracker.update_state(d_loss)
        g_tracker.update_state(g_loss)
        return d_loss, g_loss

    real = ef.constant(np.random.default_rng(0).normal(3.0, 0.1, (16, 2)).astype("float32"))
    before = [w.numpy() for w in generator.weights + discriminator.weights]
    for _ in range(5):
        d_loss, g_loss = train_step(real)
    assert np.isfinite(float(d_loss)) and np.isfinite(float(g_loss))
    assert int(d_opt.iterations) == int(g_opt.iterations) == 5
    assert all(not np.array_equal(b, w.numpy())
               for b, w in zip(before, generator.weights + discriminator.weights, strict=True))
    assert train_step.experimental_get_tracing_count() == 1


def test_deferred_restore_when_the_first_call_is_traced(tmp_path):
    ef.random.set_seed(0)
    source = ef.Sequential([ef.layers.Dense(3), ef.layers.Dense(2)])
    x = ef.constant(np.ones((2, 5), "float32"))
    expected = source(x).numpy()
    path = ef.Checkpoint(model=source).write(str(tmp_path / "ckpt"))

    ef.random.set_seed(7)
    target = ef.Sequential([ef.layers.Dense(3), ef.layers.Dense(2)])  # not built
    status = ef.Checkpoint(model=target).read(path)
    forward = ef.function(lambda x: target(x))
    np.testing.assert_allclose(forward(x), expected, rtol=1e-6)
    np.testing.assert_allclose(forward(x), expected, rtol=1e-6)  # restored once, not per call
    status.assert_existing_objects_matched()
