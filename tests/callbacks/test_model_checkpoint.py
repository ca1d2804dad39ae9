"""ModelCheckpoint: formatting, best-only, weights-only, batch frequency, errors."""

import os

import numpy as np
import pytest

import eagerflow as ef

from .fakes import FakeModel, run_epochs


def test_saves_every_epoch_with_formatted_names(tmp_path):
    model = FakeModel()
    path = str(tmp_path / "sub" / "model-{epoch:02d}-{val_loss:.2f}.h5")
    run_epochs([ef.callbacks.ModelCheckpoint(path)], model,
               [{"loss": 1.0, "val_loss": 0.5}, {"loss": 0.9, "val_loss": 0.25}])
    assert sorted(os.listdir(tmp_path / "sub")) == ["model-01-0.50.h5", "model-02-0.25.h5"]
    assert [kind for kind, _ in model.saved] == ["model", "model"]


def test_save_best_only_with_weights(tmp_path, capsys):
    model = FakeModel()
    callback = ef.callbacks.ModelCheckpoint(str(tmp_path / "best-{epoch}.h5"),
                                            save_best_only=True, save_weights_only=True,
                                            verbose=1)
    run_epochs([callback], model, [{"val_loss": v} for v in (1.0, 0.5, 0.7, 0.4)])
    assert [os.path.basename(p) for _, p in model.saved] == ["best-1.h5", "best-2.h5",
                                                              "best-4.h5"]
    assert {kind for kind, _ in model.saved} == {"weights"}
    out = capsys.readouterr().out
    assert "Epoch 3: val_loss did not improve from 0.50000" in out
    assert "Epoch 4: val_loss improved from 0.50000 to 0.40000, saving model to" in out


def test_save_best_only_max_mode_and_threshold(tmp_path):
    model = FakeModel()
    callback = ef.callbacks.ModelCheckpoint(str(tmp_path / "m.h5"), monitor="val_accuracy",
                                            save_best_only=True, initial_value_threshold=0.6)
    run_epochs([callback], model, [{"val_accuracy": v} for v in (0.5, 0.7, 0.65, 0.9)])
    assert len(model.saved) == 2


def test_save_best_only_skips_epochs_without_validation(tmp_path):
    model = FakeModel()
    callback = ef.callbacks.ModelCheckpoint(str(tmp_path / "m.h5"), save_best_only=True)
    run_epochs([callback], model, [{"loss": 1.0}, {"loss": 1.0, "val_loss": 0.5}])
    assert len(model.saved) == 1


def test_integer_save_freq_saves_every_n_batches(tmp_path, capsys):
    model = FakeModel()
    callback = ef.callbacks.ModelCheckpoint(str(tmp_path / "m-{epoch}-{batch}.h5"),
                                            save_freq=3, verbose=1)
    run_epochs([callback], model, [{"loss": 1.0}] * 2, steps=4)
    assert [os.path.basename(p) for _, p in model.saved] == ["m-1-3.h5", "m-2-2.h5"]
    assert "Epoch 1: saving model to" in capsys.readouterr().out


def test_missing_monitor_is_an_error(tmp_path):
    callback = ef.callbacks.ModelCheckpoint(str(tmp_path / "m.h5"), monitor="val_acc",
                                            save_best_only=True, mode="max")
    with pytest.raises(KeyError, match=r"ModelCheckpoint: the monitored metric 'val_acc'"):
        run_epochs([callback], FakeModel(), [{"loss": 1.0, "val_accuracy": 0.5}])


def test_unknown_filepath_field_lists_keys(tmp_path):
    callback = ef.callbacks.ModelCheckpoint(str(tmp_path / "m-{val_acc:.2f}.h5"))
    with pytest.raises(ValueError, match=r"uses \{val_acc\}, which is not in the logs. "
                                         r"Available keys: epoch, loss, val_accuracy"):
        run_epochs([callback], FakeModel(), [{"loss": 1.0, "val_accuracy": 0.5}])


def test_positional_filepath_field_is_an_error(tmp_path):
    callback = ef.callbacks.ModelCheckpoint(str(tmp_path / "m-{}.h5"))
    with pytest.raises(ValueError, match=r"cannot format filepath.*named fields"):
        run_epochs([callback], FakeModel(), [{"loss": 1.0}])


@pytest.mark.parametrize("save_freq", [0, -3, "batch", 2.5, True])
def test_bad_save_freq(save_freq):
    with pytest.raises(ValueError, match=r"save_freq must be 'epoch' or a positive int"):
        ef.callbacks.ModelCheckpoint("m.h5", save_freq=save_freq)


def test_bad_mode():
    with pytest.raises(ValueError, match=r"ModelCheckpoint: mode must be"):
        ef.callbacks.ModelCheckpoint("m.h5", mode="lowest")


def test_relative_path_without_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    model = FakeModel()
    run_epochs([ef.callbacks.ModelCheckpoint("plain.h5")], model, [{"loss": 1.0}])
    assert os.path.exists(tmp_path / "plain.h5")


def test_checkpoints_saved_mid_epoch_load_like_epoch_end_ones(tmp_path):
    # The fit loop caches the model's variables in an attribute; saves made while it is
    # set (batch-level save_freq) must not store them under that cache's path.
    model = ef.Sequential([ef.layers.Dense(4, input_shape=(3,)), ef.layers.Dense(1)])
    model.compile("adam", "mse")
    path = str(tmp_path / "mid.h5")
    weights_path = str(tmp_path / "mid.weights.h5")
    callbacks = [ef.callbacks.ModelCheckpoint(path, save_freq=2),
                 ef.callbacks.ModelCheckpoint(weights_path, save_freq=3,
                                              save_weights_only=True)]
    model.fit(np.ones((32, 3)), np.ones((32, 1)), batch_size=4, epochs=1, verbose=0,
              callbacks=callbacks)
    restored = ef.models.load_model(path)
    clone = ef.Sequential([ef.layers.Dense(4, input_shape=(3,)), ef.layers.Dense(1)])
    clone.load_weights(weights_path)
    for loaded in (restored, clone):
        assert [w.shape for w in loaded.weights] == [w.shape for w in model.weights]
