"""ef.utils.PyDataset (and its alias Sequence) in fit, evaluate and predict."""

import numpy as np
import pytest

import eagerflow as ef


class Lines(ef.utils.PyDataset):
    def __init__(self, batches=4, **kwargs):
        super().__init__(**kwargs)
        rng = np.random.default_rng(0)
        self.x = rng.standard_normal((batches, 8, 2)).astype("float32")
        self.y = self.x.sum(axis=2, keepdims=True)
        self.epochs_ended = 0
        self.read = []

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        self.read.append(index)
        return self.x[index], self.y[index]

    def on_epoch_end(self):
        self.epochs_ended += 1


@pytest.mark.parametrize("workers", [1, 2])
def test_fit_evaluate_predict_on_a_py_dataset(workers):
    ef.random.set_seed(0)
    data = Lines(workers=workers)
    model = ef.Sequential([ef.layers.Dense(1)])
    model.compile(optimizer=ef.optim.SGD(0.1), loss="mse")
    history = model.fit(data, epochs=5, verbose=0, validation_data=Lines(2))
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert "val_loss" in history.history and data.epochs_ended == 5
    assert model.predict(Lines(), verbose=0).shape == (32, 1)
    assert isinstance(model.evaluate(Lines(), verbose=0), float)


def test_batch_order_is_shuffled_unless_asked_not_to():
    ef.random.set_seed(1)
    data = Lines(batches=8)
    model = ef.Sequential([ef.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(data, epochs=1, verbose=0, shuffle=False)
    assert data.read[1:] == list(range(8))  # (batch 0 was read once to build the model)
    data.read.clear()
    model.fit(data, epochs=1, verbose=0)
    assert sorted(data.read) == list(range(8)) and data.read != list(range(8))


def test_bad_arguments():
    with pytest.raises(ValueError, match="use_multiprocessing=True is not supported"):
        Lines(use_multiprocessing=True)
    model = ef.Sequential([ef.layers.Dense(1)])
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match="y must not be given when x is a PyDataset"):
        model.fit(Lines(), np.ones((8, 1)), verbose=0)
    assert ef.utils.Sequence is ef.utils.PyDataset
