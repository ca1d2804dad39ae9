"""Small stand-ins for a compiled model, so callbacks are tested without the training loop."""

import numpy as np

import eagerflow as ef
from eagerflow.callbacks import CallbackList


class FakeOptimizer:
    def __init__(self, learning_rate=0.1):
        self.learning_rate = ef.Variable(learning_rate, trainable=False)


class FakeModel:
    """Has what callbacks use: weights, optimizer, stop_training, save/save_weights."""

    def __init__(self):
        self.w = ef.Variable([1.0, 2.0])
        self.b = ef.Variable(0.0)
        self.optimizer = FakeOptimizer()
        self.stop_training = False
        self.saved = []

    @property
    def weights(self):
        return [self.w, self.b]

    def save_weights(self, path):
        self.saved.append(("weights", path))
        with open(path, "w") as f:
            f.write("weights")

    def save(self, path):
        self.saved.append(("model", path))
        with open(path, "w") as f:
            f.write("model")


def run_epochs(callbacks, model, epoch_logs, steps=2, epoch_hook=None, verbose=0):
    """Drives callbacks like `fit` would: one dict of epoch-end logs per epoch.

    Returns the epochs that ran (training stops when a callback sets stop_training).
    `epoch_hook(epoch, model)` runs before each epoch's end (e.g. to change the weights).
    """
    callback_list = CallbackList(callbacks, add_history=True, model=model, verbose=verbose,
                                 epochs=len(epoch_logs), steps=steps, do_validation=True)
    callback_list.on_train_begin()
    ran = []
    for epoch, logs in enumerate(epoch_logs):
        callback_list.on_epoch_begin(epoch)
        for step in range(steps):
            callback_list.on_train_batch_begin(step)
            callback_list.on_train_batch_end(step, {"loss": logs.get("loss", 0.0)})
        if epoch_hook is not None:
            epoch_hook(epoch, model)
        logs = dict(logs)
        callback_list.on_epoch_end(epoch, logs)
        ran.append(epoch)
        if model.stop_training:
            break
    callback_list.on_train_end()
    return ran, callback_list.history


def set_weights_to(value):
    """An epoch_hook that sets every weight to `value(epoch)`."""

    def hook(epoch, model):
        for variable in model.weights:
            variable.assign(np.full(variable.shape, value(epoch), np.float32))

    return hook
