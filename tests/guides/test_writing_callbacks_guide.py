"""Keras guide "Writing your own callbacks", ported section by section with `tf.`/`keras.`
turned into `ef.` (the built-in 8x8 digits stand in for MNIST: 64 features, not 784)."""

import re

import numpy as np

import eagerflow as ef


def get_model():
    model = ef.Sequential()
    model.add(ef.layers.Dense(1, input_dim=64))
    model.compile(
        optimizer=ef.optimizers.RMSprop(learning_rate=0.1),
        loss="mean_squared_error",
        metrics=["mean_absolute_error"],
    )
    return model


def _data():
    (x, y), _ = ef.datasets.digits.load_data()
    x = x.reshape(-1, 64).astype("float32") / 16.0
    x_train, y_train, x_test, y_test = x[:1000], y[:1000], x[1000:], y[1000:]
    return x_train, y_train.astype("float32"), x_test, y_test.astype("float32")


class CustomCallback(ef.callbacks.Callback):
    def on_train_begin(self, logs=None):
        keys = list(logs.keys())
        print(f"Starting training; got log keys: {keys}")

    def on_train_end(self, logs=None):
        keys = list(logs.keys())
        print(f"Stop training; got log keys: {keys}")

    def on_epoch_begin(self, epoch, logs=None):
        keys = list(logs.keys())
        print(f"Start epoch {epoch} of training; got log keys: {keys}")

    def on_epoch_end(self, epoch, logs=None):
        keys = list(logs.keys())
        print(f"End epoch {epoch} of training; got log keys: {keys}")

    def on_test_begin(self, logs=None):
        keys = list(logs.keys())
        print(f"Start testing; got log keys: {keys}")

    def on_test_end(self, logs=None):
        keys = list(logs.keys())
        print(f"Stop testing; got log keys: {keys}")

    def on_predict_begin(self, logs=None):
        keys = list(logs.keys())
        print(f"Start predicting; got log keys: {keys}")

    def on_predict_end(self, logs=None):
        keys = list(logs.keys())
        print(f"Stop predicting; got log keys: {keys}")

    def on_train_batch_begin(self, batch, logs=None):
        keys = list(logs.keys())
        print(f"...Training: start of batch {batch}; got log keys: {keys}")

    def on_train_batch_end(self, batch, logs=None):
        keys = list(logs.keys())
        print(f"...Training: end of batch {batch}; got log keys: {keys}")

    def on_test_batch_begin(self, batch, logs=None):
        keys = list(logs.keys())
        print(f"...Evaluating: start of batch {batch}; got log keys: {keys}")

    def on_test_batch_end(self, batch, logs=None):
        keys = list(logs.keys())
        print(f"...Evaluating: end of batch {batch}; got log keys: {keys}")

    def on_predict_batch_begin(self, batch, logs=None):
        keys = list(logs.keys())
        print(f"...Predicting: start of batch {batch}; got log keys: {keys}")

    def on_predict_batch_end(self, batch, logs=None):
        keys = list(logs.keys())
        print(f"...Predicting: end of batch {batch}; got log keys: {keys}")


def test_a_basic_example(capsys):
    x_train, y_train, x_test, y_test = _data()
    model = get_model()
    model.fit(x_train, y_train, batch_size=128, epochs=1, verbose=0, validation_split=0.5,
              callbacks=[CustomCallback()])
    model.evaluate(x_test, y_test, batch_size=128, verbose=0, callbacks=[CustomCallback()])
    model.predict(x_test, batch_size=128, verbose=0, callbacks=[CustomCallback()])
    out = capsys.readouterr().out.splitlines()
    # The same sequence of calls, and the same log keys, as Keras 3 prints.
    assert out[:3] == [
        "Starting training; got log keys: []",
        "Start epoch 0 of training; got log keys: []",
        "...Training: start of batch 0; got log keys: []",
    ]
    assert out[3] == ("...Training: end of batch 0; got log keys: "
                      "['loss', 'mean_absolute_error']")
    assert sum(line.startswith("...Training: end of batch") for line in out) == 4
    assert ("End epoch 0 of training; got log keys: ['loss', 'mean_absolute_error', "
            "'val_loss', 'val_mean_absolute_error']") in out
    assert out.index("Start testing; got log keys: []") < out.index(
        "End epoch 0 of training; got log keys: ['loss', 'mean_absolute_error', "
        "'val_loss', 'val_mean_absolute_error']")
    assert ("Stop training; got log keys: ['loss', 'mean_absolute_error', 'val_loss', "
            "'val_mean_absolute_error']") in out
    assert "Stop testing; got log keys: ['loss', 'mean_absolute_error']" in out
    assert "...Predicting: end of batch 0; got log keys: ['outputs']" in out
    assert out[-1] == "Stop predicting; got log keys: []"


class LossAndErrorPrintingCallback(ef.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        print("For batch {}, loss is {:7.2f}.".format(batch, logs["loss"]))

    def on_test_batch_end(self, batch, logs=None):
        print("For batch {}, loss is {:7.2f}.".format(batch, logs["loss"]))

    def on_epoch_end(self, epoch, logs=None):
        print(
            "The average loss for epoch {} is {:7.2f} "
            "and mean absolute error is {:7.2f}.".format(
                epoch, logs["loss"], logs["mean_absolute_error"]
            )
        )


def test_usage_of_the_logs_dict(capsys):
    x_train, y_train, x_test, y_test = _data()
    model = get_model()
    history = model.fit(x_train, y_train, batch_size=128, epochs=2, verbose=0,
                        callbacks=[LossAndErrorPrintingCallback()])
    model.evaluate(x_test, y_test, batch_size=128, verbose=0,
                   callbacks=[LossAndErrorPrintingCallback()])
    out = capsys.readouterr().out
    epochs = re.findall(r"The average loss for epoch (\d) is +([\d.]+) and mean absolute "
                        r"error is +([\d.]+)\.", out)
    assert [e[0] for e in epochs] == ["0", "1"]
    np.testing.assert_allclose([float(e[1]) for e in epochs], history.history["loss"],
                               atol=0.006)
    test_batches = -(-len(x_test) // 128)
    assert len(re.findall(r"For batch \d, loss is +[\d.]+\.", out)) == 2 * 8 + test_batches


class EarlyStoppingAtMinLoss(ef.callbacks.Callback):
    """Stop training when the loss is at its min, i.e. the loss stops decreasing."""

    def __init__(self, patience=0):
        super().__init__()
        self.patience = patience
        self.best_weights = None

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = np.inf

    def on_epoch_end(self, epoch, logs=None):
        current = logs.get("loss")
        if np.less(current, self.best):
            self.best = current
            self.wait = 0
            self.best_weights = self.model.get_weights()
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = epoch
                self.model.stop_training = True
                print("Restoring model weights from the end of the best epoch.")
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0:
            print(f"Epoch {self.stopped_epoch + 1:05d}: early stopping")


def test_early_stopping_at_minimum_loss(capsys):
    x_train, y_train, _, _ = _data()
    model = get_model()
    stopper = EarlyStoppingAtMinLoss()
    history = model.fit(x_train, y_train, batch_size=64, steps_per_epoch=5, epochs=30,
                        verbose=0, callbacks=[LossAndErrorPrintingCallback(), stopper])
    epochs_run = len(history.history["loss"])
    assert epochs_run < 30  # RMSprop at 0.1 on this data stops improving
    assert stopper.stopped_epoch == epochs_run - 1
    for best, now in zip(stopper.best_weights, model.get_weights(), strict=True):
        np.testing.assert_array_equal(best, now)
    assert f"Epoch {epochs_run:05d}: early stopping" in capsys.readouterr().out


class CustomLearningRateScheduler(ef.callbacks.Callback):
    """Learning rate scheduler which sets the learning rate according to schedule."""

    def __init__(self, schedule):
        super().__init__()
        self.schedule = schedule

    def on_epoch_begin(self, epoch, logs=None):
        if not hasattr(self.model.optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        lr = float(np.array(self.model.optimizer.learning_rate))
        scheduled_lr = self.schedule(epoch, lr)
        self.model.optimizer.learning_rate = scheduled_lr
        print(f"\nEpoch {epoch:05d}: Learning rate is {float(np.array(scheduled_lr)):6.4f}.")


LR_SCHEDULE = [(3, 0.05), (6, 0.01), (9, 0.005), (12, 0.001)]


def lr_schedule(epoch, lr):
    """Helper function to retrieve the scheduled learning rate based on epoch."""
    if epoch < LR_SCHEDULE[0][0] or epoch > LR_SCHEDULE[-1][0]:
        return lr
    for i in range(len(LR_SCHEDULE)):
        if epoch == LR_SCHEDULE[i][0]:
            return LR_SCHEDULE[i][1]
    return lr


def test_learning_rate_scheduling(capsys):
    x_train, y_train, _, _ = _data()
    model = get_model()
    model.fit(x_train, y_train, batch_size=64, steps_per_epoch=5, epochs=15, verbose=0,
              callbacks=[LossAndErrorPrintingCallback(),
                         CustomLearningRateScheduler(lr_schedule)])
    rates = re.findall(r"Epoch (\d+): Learning rate is (\d\.\d+)\.", capsys.readouterr().out)
    assert [float(r) for _, r in rates] == [0.1] * 3 + [0.05] * 3 + [0.01] * 3 + [0.005] * 3 \
        + [0.001] * 3
    np.testing.assert_allclose(float(np.array(model.optimizer.learning_rate)), 0.001)
