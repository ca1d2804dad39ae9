"""Callbacks driving real training: early stopping, checkpoints, backup and restore."""

import json
import os

import numpy as np
import pytest

import eagerflow as ef

from .helpers import classification_data, compiled_mlp, weights_of


def test_early_stopping_restores_the_best_weights_without_stopping_early():
    ef.random.set_seed(0)
    x, y = classification_data(64)
    model = compiled_mlp(optimizer=ef.optim.SGD(0.5))
    snapshots = []
    record = ef.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: snapshots.append((logs["val_loss"],
                                                           weights_of(model))))
    stop = ef.callbacks.EarlyStopping(patience=100, restore_best_weights=True)
    model.fit(x, y, epochs=6, batch_size=8, verbose=0, validation_data=(x[:16], y[:16]),
              callbacks=[record, stop])
    assert stop.stopped_epoch == 0
    best = min(range(6), key=lambda i: snapshots[i][0])
    for actual, expected in zip(weights_of(model), snapshots[best][1], strict=True):
        np.testing.assert_array_equal(actual, expected)


def test_model_checkpoint_writes_loadable_weights(tmp_path):
    ef.random.set_seed(0)
    x, y = classification_data(32)
    model = compiled_mlp()
    path = str(tmp_path / "w-{epoch:02d}-{loss:.2f}.h5")
    model.fit(x, y, epochs=2, verbose=0, callbacks=[
        ef.callbacks.ModelCheckpoint(path, save_weights_only=True, monitor="loss")])
    files = sorted(os.listdir(tmp_path))
    assert len(files) == 2 and files[0].startswith("w-01-")
    best = str(tmp_path / "best.h5")
    model.fit(x, y, epochs=2, verbose=0, validation_data=(x, y), callbacks=[
        ef.callbacks.ModelCheckpoint(best, save_best_only=True)])
    clone = compiled_mlp()
    clone.load_weights(best)
    full = str(tmp_path / "full.h5")
    model.fit(x, y, epochs=1, verbose=0, callbacks=[ef.callbacks.ModelCheckpoint(full)])
    restored = ef.models.load_model(full)
    np.testing.assert_allclose(restored.predict(x, verbose=0), model.predict(x, verbose=0))


def test_reduce_lr_on_plateau_changes_the_real_optimizer():
    x, y = classification_data(16)
    model = compiled_mlp(optimizer=ef.optim.SGD(0.0))
    history = model.fit(x, y, epochs=3, verbose=0, callbacks=[
        ef.callbacks.ReduceLROnPlateau(monitor="loss", patience=1, factor=0.5, min_delta=1.0)])
    assert history.history["learning_rate"] == [0.0, 0.0, 0.0]
    model = compiled_mlp(optimizer=ef.optim.SGD(0.1))
    history = model.fit(x, y, epochs=3, verbose=0, callbacks=[
        ef.callbacks.LearningRateScheduler(lambda epoch, lr: 0.1 / (epoch + 1))])
    assert history.history["learning_rate"] == pytest.approx([0.1, 0.05, 0.1 / 3])
    assert float(model.optimizer.learning_rate) == pytest.approx(0.1 / 3)


def test_learning_rate_callbacks_refuse_a_schedule():
    x, y = classification_data(8)
    schedule = ef.optim.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    model = compiled_mlp(optimizer=ef.optim.SGD(schedule))
    with pytest.raises(TypeError, match=r"computed by a schedule \(ExponentialDecay\)"):
        model.fit(x, y, verbose=0, callbacks=[
            ef.callbacks.LearningRateScheduler(lambda epoch, lr: lr)])


def test_csv_logger_and_tensorboard_on_a_real_run(tmp_path):
    pytest.importorskip("tensorboard")
    x, y = classification_data(16)
    model = compiled_mlp()
    model.fit(x, y, epochs=2, verbose=0, validation_data=(x, y), callbacks=[
        ef.callbacks.CSVLogger(tmp_path / "log.csv"),
        ef.callbacks.TensorBoard(tmp_path / "tb", histogram_freq=1)])
    lines = (tmp_path / "log.csv").read_text().splitlines()
    assert lines[0] == "epoch,accuracy,loss,val_accuracy,val_loss" and len(lines) == 3
    assert any(p.name.startswith("events.out") for p in (tmp_path / "tb" / "train").iterdir())


def _dropout_model(built_by_fit=False):
    shape = {} if built_by_fit else {"input_shape": (4,)}
    model = ef.Sequential([ef.layers.Dense(16, activation="relu", name="hidden", **shape),
                           ef.layers.Dropout(0.3, name="drop"),
                           ef.layers.Dense(3, name="out")])
    model.compile(optimizer=ef.optim.Adam(0.01),
                  loss=ef.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


class _Interrupt(ef.callbacks.Callback):
    def __init__(self, epoch, batch):
        super().__init__()
        self.at = (epoch, batch)
        self.epoch = 0

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if (self.epoch, batch) == self.at:
            raise KeyboardInterrupt("simulated preemption")


@pytest.mark.parametrize("use_dataset, built_by_fit", [(False, False), (True, False),
                                                       (False, True), (True, True)])
def test_backup_and_restore_resumes_to_identical_weights(tmp_path, use_dataset,
                                                         built_by_fit):
    x, y = classification_data(48)

    def data():
        if not use_dataset:
            return {"x": x, "y": y}
        return {"x": ef.data.Dataset.from_tensor_slices((x, y)).shuffle(48).batch(8)}

    ef.random.set_seed(11)
    straight = _dropout_model(built_by_fit)
    straight.fit(**data(), epochs=4, batch_size=None if use_dataset else 8, verbose=0)

    backup = tmp_path / "backup"
    ef.random.set_seed(11)
    first = _dropout_model(built_by_fit)
    with pytest.raises(KeyboardInterrupt):
        first.fit(**data(), epochs=4, batch_size=None if use_dataset else 8, verbose=0,
                  callbacks=[ef.callbacks.BackupAndRestore(backup), _Interrupt(2, 3)])
    assert os.path.exists(backup / "training_state.json")

    ef.random.set_seed(11)  # a new process: same script, fresh objects
    resumed = _dropout_model(built_by_fit)
    callback = ef.callbacks.BackupAndRestore(backup)
    history = resumed.fit(**data(), epochs=4, batch_size=None if use_dataset else 8,
                          verbose=0, callbacks=[callback])
    assert callback.restored_epoch == 1 and history.epoch == [2, 3]
    for actual, expected in zip(weights_of(resumed), weights_of(straight), strict=True):
        np.testing.assert_array_equal(actual, expected)
    assert int(resumed.optimizer.iterations) == int(straight.optimizer.iterations)
    assert not os.listdir(backup)  # a finished fit deletes its backup


def test_backup_and_restore_keeps_its_files_when_asked(tmp_path):
    x, y = classification_data(8)
    model = compiled_mlp()
    model.fit(x, y, epochs=2, verbose=0, callbacks=[
        ef.callbacks.BackupAndRestore(tmp_path, delete_checkpoint=False)])
    assert sorted(os.listdir(tmp_path)) == ["backup-epoch1.h5", "training_state.json"]
    # Restarting a finished run restores it and has nothing left to do.
    history = compiled_mlp().fit(x, y, epochs=2, verbose=0, callbacks=[
        ef.callbacks.BackupAndRestore(tmp_path, delete_checkpoint=False)])
    assert history.epoch == []


def test_backup_and_restore_bad_arguments_and_files(tmp_path):
    with pytest.raises(ValueError, match=r"backup_dir must be a directory"):
        ef.callbacks.BackupAndRestore("")
    with pytest.raises(ValueError, match=r"only save_freq='epoch' is supported"):
        ef.callbacks.BackupAndRestore(tmp_path, save_freq=10)
    x, y = classification_data(8)
    (tmp_path / "training_state.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"cannot read .*training_state.json"):
        compiled_mlp().fit(x, y, verbose=0, callbacks=[ef.callbacks.BackupAndRestore(tmp_path)])
    (tmp_path / "training_state.json").write_text('{"format": "other"}')
    with pytest.raises(ValueError, match=r"is not a backup state file written by eagerflow"):
        compiled_mlp().fit(x, y, verbose=0, callbacks=[ef.callbacks.BackupAndRestore(tmp_path)])


@pytest.mark.parametrize("state, match", [
    ({"epoch": 0, "rng": {}}, r"lacks \['file'\]"),
    ({"epoch": 0, "file": "/etc/passwd", "rng": {}}, "not a backup file of this directory"),
    ({"epoch": 0, "file": "../outside/backup-epoch0.h5", "rng": {}}, "not a backup file"),
    ({"epoch": "0", "file": "backup-epoch0.h5", "rng": {}}, "expected an integer"),
])
def test_backup_and_restore_never_follows_paths_out_of_its_directory(tmp_path, state, match):
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "backup-epoch0.h5"
    victim.write_bytes(b"not ours")
    backup = tmp_path / "backup"
    backup.mkdir()
    (backup / "training_state.json").write_text(
        json.dumps({"format": "eagerflow-backup", **state}))
    x, y = classification_data(8)
    with pytest.raises(ValueError, match=match):
        compiled_mlp().fit(x, y, verbose=0, callbacks=[ef.callbacks.BackupAndRestore(backup)])
    assert victim.read_bytes() == b"not ours"  # neither read nor deleted
