"""Keras 3 guide "Training & evaluation with the built-in methods", ported section by
section with `keras.`/`keras.ops.`/`tf.` turned into `ef.` (the built-in digits stand in
for MNIST: 64 features, not 784; `ops.mean` is `ef.reduce_mean`, `ops.sum` is
`ef.reduce_sum`, `ops.softmax` is `ef.nn.softmax`). Not ported: the PyTorch `DataLoader`
section (eagerflow takes its own Datasets, PyDatasets and arrays). Deliberate difference:
`ModelCheckpoint("...keras")` is refused with an error naming `.h5`."""

import os
import warnings

import numpy as np
import pytest

import eagerflow as ef
from eagerflow import layers


def _data():
    (x_train, y_train), (x_test, y_test) = ef.datasets.digits.load_data()
    x_train = x_train.reshape(-1, 64).astype("float32") / 16
    x_test = x_test.reshape(-1, 64).astype("float32") / 16
    y_train = y_train.astype("float32")
    y_test = y_test.astype("float32")
    x_val, y_val = x_train[-300:], y_train[-300:]
    return x_train[:-300], y_train[:-300], x_val, y_val, x_test, y_test


def get_uncompiled_model():
    inputs = ef.Input(shape=(64,), name="digits")
    x = layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = layers.Dense(64, activation="relu", name="dense_2")(x)
    outputs = layers.Dense(10, activation="softmax", name="predictions")(x)
    return ef.Model(inputs=inputs, outputs=outputs)


def get_compiled_model():
    model = get_uncompiled_model()
    model.compile(optimizer="rmsprop", loss="sparse_categorical_crossentropy",
                  metrics=["sparse_categorical_accuracy"])
    return model


def test_api_overview_a_first_end_to_end_example():
    x_train, y_train, x_val, y_val, x_test, y_test = _data()
    model = get_uncompiled_model()
    model.compile(
        optimizer=ef.optimizers.RMSprop(),
        loss=ef.losses.SparseCategoricalCrossentropy(),
        metrics=[ef.metrics.SparseCategoricalAccuracy()],
    )
    history = model.fit(x_train, y_train, batch_size=64, epochs=2,
                        validation_data=(x_val, y_val), verbose=0)
    assert set(history.history) == {"loss", "sparse_categorical_accuracy", "val_loss",
                                    "val_sparse_categorical_accuracy"}
    results = model.evaluate(x_test, y_test, batch_size=128, verbose=0)
    assert len(results) == 2 and results[1] > 0.5
    predictions = model.predict(x_test[:3], verbose=0)
    assert predictions.shape == (3, 10)
    np.testing.assert_allclose(predictions.sum(axis=1), 1.0, rtol=1e-5)
    model.compile(optimizer="rmsprop", loss="sparse_categorical_crossentropy",
                  metrics=["sparse_categorical_accuracy"])


def test_custom_losses():
    x_train, y_train, *_ = _data()

    def custom_mean_squared_error(y_true, y_pred):
        return ef.reduce_mean(ef.square(y_true - y_pred), axis=-1)

    model = get_uncompiled_model()
    model.compile(optimizer=ef.optimizers.Adam(), loss=custom_mean_squared_error)
    y_train_one_hot = ef.one_hot(ef.cast(y_train, "int32"), depth=10)  # TF's one_hot
    history = model.fit(x_train, y_train_one_hot, batch_size=64, epochs=2, verbose=0)
    assert history.history["loss"][1] < history.history["loss"][0]

    class CustomMSE(ef.losses.Loss):
        def __init__(self, regularization_factor=0.1, name="custom_mse"):
            super().__init__(name=name)
            self.regularization_factor = regularization_factor

        def call(self, y_true, y_pred):
            mse = ef.reduce_mean(ef.square(y_true - y_pred), axis=-1)
            reg = ef.reduce_mean(ef.square(0.5 - y_pred), axis=-1)
            return mse + reg * self.regularization_factor

    model = get_uncompiled_model()
    model.compile(optimizer=ef.optimizers.Adam(), loss=CustomMSE())
    model.fit(x_train, y_train_one_hot, batch_size=64, epochs=1, verbose=0)
    y_pred = model.predict(x_train[:64], verbose=0)
    onehot = np.eye(10)[y_train[:64].astype(int)]
    expected = np.mean(np.mean((onehot - y_pred) ** 2, -1)
                       + 0.1 * np.mean((0.5 - y_pred) ** 2, -1))
    np.testing.assert_allclose(model.evaluate(x_train[:64], onehot, verbose=0), expected,
                               rtol=1e-4)


def test_custom_metrics():
    x_train, y_train, *_ = _data()

    class CategoricalTruePositives(ef.metrics.Metric):
        def __init__(self, name="categorical_true_positives", **kwargs):
            super().__init__(name=name, **kwargs)
            self.true_positives = self.add_variable(shape=(), name="ctp",
                                                    initializer="zeros")

        def update_state(self, y_true, y_pred, sample_weight=None):
            y_pred = ef.reshape(ef.argmax(y_pred, axis=1), (-1, 1))
            values = ef.cast(y_true, "int32") == ef.cast(y_pred, "int32")
            values = ef.cast(values, "float32")
            if sample_weight is not None:
                sample_weight = ef.cast(sample_weight, "float32")
                values = ef.multiply(values, sample_weight)
            self.true_positives.assign_add(ef.reduce_sum(values))

        def result(self):
            return self.true_positives

        def reset_state(self):
            self.true_positives.assign(0.0)

    model = get_uncompiled_model()
    model.compile(optimizer=ef.optimizers.RMSprop(learning_rate=1e-3),
                  loss=ef.losses.SparseCategoricalCrossentropy(),
                  metrics=[CategoricalTruePositives()])
    history = model.fit(x_train, y_train.reshape(-1, 1), batch_size=64, epochs=3, verbose=0)
    counts = history.history["categorical_true_positives"]
    assert counts[2] > counts[0] and counts[2] <= len(x_train)  # reset every epoch


def test_losses_and_metrics_that_dont_fit_the_standard_signature():
    x_train, y_train, *_ = _data()

    class ActivityRegularizationLayer(layers.Layer):
        def call(self, inputs):
            self.add_loss(ef.reduce_sum(inputs) * 0.1)
            return inputs

    inputs = ef.Input(shape=(64,), name="digits")
    x = layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = ActivityRegularizationLayer()(x)
    x = layers.Dense(64, activation="relu", name="dense_2")(x)
    outputs = layers.Dense(10, name="predictions")(x)
    model = ef.Model(inputs=inputs, outputs=outputs)
    model.compile(optimizer=ef.optimizers.RMSprop(learning_rate=1e-3),
                  loss=ef.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(x_train, y_train, batch_size=64, epochs=1, verbose=0)
    assert history.history["loss"][0] > 3.0  # "much higher than before"

    class LogisticEndpoint(ef.layers.Layer):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.loss_fn = ef.losses.BinaryCrossentropy(from_logits=True)

        def call(self, targets, logits, sample_weights=None):
            loss = self.loss_fn(targets, logits, sample_weights)
            self.add_loss(loss)
            return ef.nn.softmax(logits)

    inputs = ef.Input(shape=(3,), name="inputs")
    targets = ef.Input(shape=(10,), name="targets")
    logits = ef.layers.Dense(10)(inputs)
    predictions = LogisticEndpoint(name="predictions")(targets, logits)
    model = ef.Model(inputs=[inputs, targets], outputs=predictions)
    model.compile(optimizer="adam")
    data = {"inputs": np.random.random((3, 3)), "targets": np.random.random((3, 10))}
    history = model.fit(data, verbose=0)
    assert np.isfinite(history.history["loss"][0])


def test_automatically_setting_apart_a_validation_holdout_set():
    x_train, y_train, *_ = _data()
    model = get_compiled_model()
    history = model.fit(x_train, y_train, batch_size=64, validation_split=0.2, epochs=1,
                        verbose=0)
    # The validation rows are the last 20%, before any shuffling.
    split = int(len(x_train) * 0.8)
    val = model.evaluate(x_train[split:], y_train[split:], verbose=0)
    np.testing.assert_allclose(history.history["val_loss"][0], val[0], rtol=1e-5)


def test_training_and_evaluation_using_datasets():
    x_train, y_train, x_val, y_val, x_test, y_test = _data()
    model = get_compiled_model()
    train_dataset = ef.data.Dataset.from_tensor_slices((x_train, y_train))
    train_dataset = train_dataset.shuffle(buffer_size=1024).batch(64)
    test_dataset = ef.data.Dataset.from_tensor_slices((x_test, y_test)).batch(64)
    model.fit(train_dataset, epochs=3, verbose=0)
    result = model.evaluate(test_dataset, verbose=0)
    scores = dict(zip(model.metrics_names, result, strict=True))
    assert set(scores) == {"loss", "sparse_categorical_accuracy"}

    model = get_compiled_model()
    seen = []

    class Count(ef.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append(batch)

    model.fit(train_dataset, epochs=3, steps_per_epoch=5, verbose=0, callbacks=[Count()])
    assert seen == list(range(5)) * 3

    val_dataset = ef.data.Dataset.from_tensor_slices((x_val, y_val)).batch(64)
    model = get_compiled_model()
    history = model.fit(train_dataset, epochs=1, validation_data=val_dataset, verbose=0)
    assert "val_loss" in history.history
    model = get_compiled_model()
    history = model.fit(train_dataset, epochs=1, validation_data=val_dataset,
                        validation_steps=2, verbose=0)
    first_two = model.evaluate(val_dataset.take(2), verbose=0)
    np.testing.assert_allclose(history.history["val_loss"][0], first_two[0], rtol=1e-5)


def test_training_and_evaluation_using_py_datasets():
    x_train, y_train, x_val, y_val, *_ = _data()

    class ExamplePyDataset(ef.utils.PyDataset):
        def __init__(self, x, y, batch_size, **kwargs):
            super().__init__(**kwargs)
            self.x = x
            self.y = y
            self.batch_size = batch_size

        def __len__(self):
            return int(np.ceil(len(self.x) / float(self.batch_size)))

        def __getitem__(self, idx):
            batch_x = self.x[idx * self.batch_size:(idx + 1) * self.batch_size]
            batch_y = self.y[idx * self.batch_size:(idx + 1) * self.batch_size]
            return batch_x, batch_y

    train_py_dataset = ExamplePyDataset(x_train, y_train, batch_size=32)
    val_py_dataset = ExamplePyDataset(x_val, y_val, batch_size=32)
    model = get_compiled_model()
    # Deliberate difference: Keras ignores batch_size with a PyDataset; eagerflow refuses
    # it (the PyDataset makes the batches), so the port leaves it out.
    with pytest.raises(ValueError, match="batch_size must not be given when x is a PyDataset"):
        get_compiled_model().fit(train_py_dataset, batch_size=64, verbose=0)
    history = model.fit(train_py_dataset, validation_data=val_py_dataset, epochs=1,
                        verbose=0)
    assert "val_loss" in history.history
    loss, _ = model.evaluate(val_py_dataset, verbose=0)
    np.testing.assert_allclose(loss, model.evaluate(x_val, y_val, verbose=0)[0], rtol=1e-5)

    train_py_dataset = ExamplePyDataset(x_train, y_train, batch_size=32, workers=4)
    val_py_dataset = ExamplePyDataset(x_val, y_val, batch_size=32, workers=4)
    model = get_compiled_model()
    model.fit(train_py_dataset, validation_data=val_py_dataset, epochs=1, verbose=0)


def test_using_sample_weighting_and_class_weighting():
    x_train, y_train, *_ = _data()
    class_weight = {0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0, 5: 2.0, 6: 1.0, 7: 1.0,
                    8: 1.0, 9: 1.0}
    ef.random.set_seed(0)
    model = get_compiled_model()
    by_class = model.fit(x_train, y_train, class_weight=class_weight, batch_size=64,
                         epochs=1, shuffle=False, verbose=0).history["loss"]
    sample_weight = np.ones(shape=(len(y_train),))
    sample_weight[y_train == 5] = 2.0
    ef.random.set_seed(0)
    model = get_compiled_model()
    by_sample = model.fit(x_train, y_train, sample_weight=sample_weight, batch_size=64,
                          epochs=1, shuffle=False, verbose=0).history["loss"]
    np.testing.assert_allclose(by_class, by_sample, rtol=1e-5)  # the same weighting
    train_dataset = ef.data.Dataset.from_tensor_slices((x_train, y_train, sample_weight))
    train_dataset = train_dataset.shuffle(buffer_size=1024).batch(64)
    model = get_compiled_model()
    model.fit(train_dataset, epochs=1, verbose=0)


def _multi_io_model():
    image_input = ef.Input(shape=(32, 32, 3), name="img_input")
    timeseries_input = ef.Input(shape=(None, 10), name="ts_input")
    x1 = layers.Conv2D(3, 3)(image_input)
    x1 = layers.GlobalMaxPooling2D()(x1)
    x2 = layers.Conv1D(3, 3)(timeseries_input)
    x2 = layers.GlobalMaxPooling1D()(x2)
    x = layers.concatenate([x1, x2])
    score_output = layers.Dense(1, name="score_output")(x)
    class_output = layers.Dense(5, name="class_output")(x)
    return ef.Model(inputs=[image_input, timeseries_input],
                    outputs=[score_output, class_output])


def test_passing_data_to_multi_input_multi_output_models(tmp_path):
    model = _multi_io_model()
    ef.utils.plot_model(model, str(tmp_path / "multi_input_and_output_model.png"),
                        show_shapes=True, dpi=40)
    losses = [ef.losses.MeanSquaredError(), ef.losses.CategoricalCrossentropy()]
    model.compile(optimizer=ef.optimizers.RMSprop(1e-3), loss=losses)
    model.compile(
        optimizer=ef.optimizers.RMSprop(1e-3), loss=losses,
        metrics=[[ef.metrics.MeanAbsolutePercentageError(), ef.metrics.MeanAbsoluteError()],
                 [ef.metrics.CategoricalAccuracy()]])
    per_output = {
        "score_output": [ef.metrics.MeanAbsolutePercentageError(),
                         ef.metrics.MeanAbsoluteError()],
        "class_output": [ef.metrics.CategoricalAccuracy()],
    }
    model.compile(
        optimizer=ef.optimizers.RMSprop(1e-3),
        loss={"score_output": ef.losses.MeanSquaredError(),
              "class_output": ef.losses.CategoricalCrossentropy()},
        metrics=per_output, loss_weights={"score_output": 2.0, "class_output": 1.0})
    rng = np.random.default_rng(0)
    img_data = rng.random(size=(100, 32, 32, 3))
    ts_data = rng.random(size=(100, 20, 10))
    score_targets = rng.random(size=(100, 1))
    class_targets = rng.random(size=(100, 5))
    history = model.fit([img_data, ts_data], [score_targets, class_targets], batch_size=32,
                        epochs=1, verbose=0)
    assert {"loss", "score_output_loss", "class_output_loss",
            "score_output_mean_absolute_error", "class_output_categorical_accuracy"} \
        <= set(history.history)

    # No loss for the score output: its layer gets no gradient, and (as in Keras) a
    # warning says so.
    model.compile(optimizer=ef.optimizers.RMSprop(1e-3),
                  loss=[None, ef.losses.CategoricalCrossentropy()])
    with pytest.warns(ef.errors.EagerflowWarning, match="score_output/kernel"):
        model.fit([img_data, ts_data], [score_targets, class_targets], batch_size=32,
                  epochs=1, verbose=0)
    model.compile(optimizer=ef.optimizers.RMSprop(1e-3),
                  loss={"class_output": ef.losses.CategoricalCrossentropy()})
    with warnings.catch_warnings():  # the same warning, already given once
        warnings.simplefilter("ignore", ef.errors.EagerflowWarning)
        model.fit([img_data, ts_data], [score_targets, class_targets], batch_size=32,
                  epochs=1, verbose=0)

    model.compile(optimizer=ef.optimizers.RMSprop(1e-3), loss=losses)
    model.fit([img_data, ts_data], [score_targets, class_targets], batch_size=32, epochs=1,
              verbose=0)
    model.fit({"img_input": img_data, "ts_input": ts_data},
              {"score_output": score_targets, "class_output": class_targets},
              batch_size=32, epochs=1, verbose=0)
    train_dataset = ef.data.Dataset.from_tensor_slices(
        ({"img_input": img_data, "ts_input": ts_data},
         {"score_output": score_targets, "class_output": class_targets}))
    train_dataset = train_dataset.shuffle(buffer_size=1024).batch(64)
    model.fit(train_dataset, epochs=1, verbose=0)


def test_using_callbacks(capsys):
    x_train, y_train, *_ = _data()
    model = get_compiled_model()
    callbacks = [ef.callbacks.EarlyStopping(monitor="val_loss", min_delta=1e-2, patience=2,
                                            verbose=1)]
    # 200 epochs rather than 20: on the small digits set the validation loss keeps
    # improving by more than 1e-2 for longer than on MNIST.
    history = model.fit(x_train, y_train, epochs=200, batch_size=64, callbacks=callbacks,
                        validation_split=0.2, verbose=0)
    assert len(history.history["loss"]) < 200
    assert "early stopping" in capsys.readouterr().out

    class LossHistory(ef.callbacks.Callback):
        def on_train_begin(self, logs):
            self.per_batch_losses = []

        def on_batch_end(self, batch, logs):
            self.per_batch_losses.append(logs.get("loss"))

    recorder = LossHistory()
    get_compiled_model().fit(x_train, y_train, batch_size=64, epochs=1, verbose=0,
                             callbacks=[recorder])
    assert len(recorder.per_batch_losses) == int(np.ceil(len(x_train) / 64))


def test_checkpointing_models(tmp_path, capsys):
    x_train, y_train, *_ = _data()
    model = get_compiled_model()
    # Deliberate difference: eagerflow writes HDF5 files and refuses the `.keras` name.
    with pytest.raises(ValueError, match=r"\.keras.*\.h5"):
        ef.callbacks.ModelCheckpoint(filepath=str(tmp_path / "mymodel_{epoch}.keras"))
    callbacks = [ef.callbacks.ModelCheckpoint(
        filepath=str(tmp_path / "mymodel_{epoch}.h5"), save_best_only=True,
        monitor="val_loss", verbose=1)]
    model.fit(x_train, y_train, epochs=2, batch_size=64, callbacks=callbacks,
              validation_split=0.2, verbose=0)
    assert "mymodel_1.h5" in os.listdir(tmp_path)
    assert "saving model to" in capsys.readouterr().out

    checkpoint_dir = str(tmp_path / "ckpt")
    if not os.path.exists(checkpoint_dir):
        os.makedirs(checkpoint_dir)

    def make_or_restore_model():
        checkpoints = [checkpoint_dir + "/" + name for name in os.listdir(checkpoint_dir)]
        if checkpoints:
            latest_checkpoint = max(checkpoints, key=os.path.getctime)
            print("Restoring from", latest_checkpoint)
            return ef.models.load_model(latest_checkpoint)
        print("Creating a new model")
        return get_compiled_model()

    model = make_or_restore_model()
    callbacks = [ef.callbacks.ModelCheckpoint(
        filepath=checkpoint_dir + "/model-loss={loss:.2f}.h5", save_freq=10)]
    model.fit(x_train, y_train, epochs=1, callbacks=callbacks, verbose=0)
    saved = os.listdir(checkpoint_dir)
    assert saved and all(name.startswith("model-loss=") for name in saved)
    restored = make_or_restore_model()
    assert "Restoring from" in capsys.readouterr().out
    assert restored.optimizer is not None  # compiled, ready to train on


def test_using_learning_rate_schedules():
    initial_learning_rate = 0.1
    lr_schedule = ef.optimizers.schedules.ExponentialDecay(
        initial_learning_rate, decay_steps=100000, decay_rate=0.96, staircase=True)
    optimizer = ef.optimizers.RMSprop(learning_rate=lr_schedule)
    np.testing.assert_allclose(float(lr_schedule(100000)), 0.096, rtol=1e-6)
    assert optimizer.learning_rate is not None
    assert issubclass(ef.callbacks.ReduceLROnPlateau, ef.callbacks.Callback)


def test_visualizing_loss_and_metrics_during_training_with_tensorboard(tmp_path):
    x_train, y_train, *_ = _data()
    board = ef.callbacks.TensorBoard(log_dir=str(tmp_path / "logs"), histogram_freq=0,
                                     embeddings_freq=0, update_freq="epoch")
    get_compiled_model().fit(x_train[:128], y_train[:128], epochs=1, verbose=0,
                             callbacks=[board])
    assert os.listdir(tmp_path / "logs" / "train")
    with pytest.raises(ValueError, match="embeddings_freq"):
        ef.callbacks.TensorBoard(log_dir=str(tmp_path / "logs"), embeddings_freq=1)
