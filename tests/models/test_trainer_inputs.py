"""fit with several inputs/outputs, Datasets and generators."""

import numpy as np
import pytest

import eagerflow as ef

from .helpers import classification_data, compiled_mlp


def _two_in_two_out():
    a = ef.layers.Input(shape=(4,), name="a")
    b = ef.layers.Input(shape=(2,), name="b")
    hidden = ef.layers.Dense(8, activation="relu", name="hidden")(
        ef.layers.Concatenate(name="join")([a, b]))
    model = ef.models.Model({"a": a, "b": b}, [ef.layers.Dense(3, name="cls")(hidden),
                                               ef.layers.Dense(1, name="reg")(hidden)])
    model.compile(optimizer=ef.optim.Adam(0.01),
                  loss={"cls": ef.losses.SparseCategoricalCrossentropy(from_logits=True),
                        "reg": "mse"},
                  loss_weights={"cls": 1.0, "reg": 0.5},
                  metrics={"cls": ["accuracy"], "reg": ["mae"]})
    return model


def _two_in_two_out_data(n=40):
    rng = np.random.default_rng(0)
    x = {"a": rng.normal(size=(n, 4)).astype(np.float32),
         "b": rng.normal(size=(n, 2)).astype(np.float32)}
    return x, [np.argmax(x["a"][:, :3], 1), x["b"][:, :1] * 2]


def test_multi_input_multi_output_logs_each_output():
    ef.random.set_seed(0)
    model = _two_in_two_out()
    x, y = _two_in_two_out_data()
    history = model.fit(x, y, epochs=3, batch_size=8, verbose=0,
                        class_weight={"cls": {0: 1.0, 1: 2.0, 2: 1.0}})
    assert list(history.history) == ["loss", "cls_loss", "reg_loss", "cls_accuracy", "reg_mae"]
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert logs["loss"] == pytest.approx(logs["cls_loss"] + 0.5 * logs["reg_loss"], rel=1e-5)
    classes, values = model.predict(x, batch_size=16, verbose=0)
    assert classes.shape == (40, 3) and values.shape == (40, 1)
    history = model.fit(x, {"cls": y[0], "reg": y[1]}, verbose=0,
                        sample_weight={"cls": np.ones(40), "reg": np.zeros(40)})
    assert history.history["reg_loss"] == [0.0]


def test_dict_input_keys_are_checked():
    model = _two_in_two_out()
    x, y = _two_in_two_out_data()
    with pytest.raises(ValueError, match=r"expects inputs named \['a', 'b'\], got a dict with "
                                         r"keys \['a', 'c'\]"):
        model.fit({"a": x["a"], "c": x["b"]}, y, verbose=0)


def test_dataset_of_dicts_and_tuples():
    model = _two_in_two_out()
    x, y = _two_in_two_out_data()
    dataset = ef.data.Dataset.from_tensor_slices((x, tuple(y))).shuffle(40, seed=1).batch(8)
    history = model.fit(dataset, epochs=2, verbose=0, validation_data=dataset.take(1))
    assert history.params["steps"] == 5 and len(history.history["val_loss"]) == 2


def test_dataset_with_sample_weights_and_class_weight():
    x, y = classification_data(16)
    model = compiled_mlp(optimizer=ef.optim.SGD(0.0))
    plain = model.evaluate(x, y, verbose=0)[0]
    dataset = ef.data.Dataset.from_tensor_slices((x, y, np.full(16, 3.0))).batch(16)
    assert model.fit(dataset, verbose=0).history["loss"][0] == pytest.approx(3 * plain,
                                                                            rel=1e-5)
    dataset = ef.data.Dataset.from_tensor_slices((x, y)).batch(16)
    history = model.fit(dataset, verbose=0, class_weight={0: 2.0, 1: 2.0, 2: 2.0})
    assert history.history["loss"][0] == pytest.approx(2 * plain, rel=1e-5)


def test_finite_dataset_is_one_epoch_per_pass_and_reshuffled():
    x, y = classification_data(24)
    seen = []

    class Record(ef.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            seen.append(batch)

    dataset = ef.data.Dataset.from_tensor_slices((x, y)).shuffle(24).batch(10)
    history = compiled_mlp().fit(dataset, epochs=2, verbose=0, callbacks=[Record()])
    assert seen == [0, 1, 2, 0, 1, 2] and history.params["steps"] == 3


def test_dataset_with_unknown_length_learns_its_steps():
    x, y = classification_data(24)
    dataset = ef.data.Dataset.from_tensor_slices((x, y)).filter(lambda a, b: b >= 0).batch(10)
    steps = []

    class Record(ef.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            steps.append(self.params["steps"])

    compiled_mlp().fit(dataset, epochs=2, verbose=0, callbacks=[Record()])
    assert steps == [None, 3]


def test_repeated_dataset_needs_steps_per_epoch():
    x, y = classification_data(8)
    dataset = ef.data.Dataset.from_tensor_slices((x, y)).batch(4).repeat()
    with pytest.raises(ValueError, match=r"dataset is infinite.*steps_per_epoch"):
        compiled_mlp().fit(dataset, verbose=0)
    history = compiled_mlp().fit(dataset, steps_per_epoch=5, epochs=2, verbose=0)
    assert history.params["steps"] == 5


def test_generator_input():
    x, y = classification_data(8)

    def batches():
        while True:
            yield x, y

    model = compiled_mlp()
    history = model.fit(batches(), steps_per_epoch=3, epochs=2, verbose=0,
                        validation_data=batches(), validation_steps=1)
    assert history.params["steps"] == 3 and len(history.history["val_loss"]) == 2
    assert isinstance(model.evaluate(batches(), steps=2, verbose=0), list)
    assert model.predict(iter([x, x]), verbose=0).shape == (16, 3)


def test_generator_arguments_that_do_not_apply():
    with pytest.raises(ValueError, match=r"y must not be given when x is a generator"):
        compiled_mlp().fit(iter([]), np.zeros(3))


def test_a_list_of_many_arrays_is_summarised_with_a_hint():
    model = ef.Sequential([ef.layers.Dense(1)])
    model.compile(loss="mse")
    x = list(np.ones((100, 4), "float32"))
    with pytest.raises(ef.errors.InvalidArgumentError) as info:
        model.fit(x, np.ones((100, 1)), verbose=0)
    message = str(info.value)
    assert "x[0]..x[99]: 4 (100 arrays), y: 100" in message
    assert "np.stack(x)" in message and len(message) < 400


def test_an_unbatched_dataset_gets_a_batch_hint():
    model = ef.Sequential([ef.layers.Dense(1)])
    model.compile(loss="mse")
    dataset = ef.data.Dataset.from_tensor_slices((np.ones((8, 4), "float32"), np.ones(8)))
    with pytest.raises(ValueError) as info:
        model.fit(dataset, verbose=0)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "no batching stage" in notes and "(4,), ()" in notes and ".batch(32)" in notes
    model.fit(dataset.batch(4), verbose=0)  # batched, it trains
