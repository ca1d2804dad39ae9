"""Faults during loads and saves: nothing half-done, every error names the file (issue 18)."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import h5format


def _model(seed):
    ef.random.set_seed(seed)
    model = ef.Sequential([ef.layers.Dense(3, input_shape=(2,)), ef.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    model.train_on_batch(np.ones((4, 2)), np.ones((4, 1)))  # the optimizer has slots
    return model


@pytest.mark.parametrize("load", ["load_weights", "checkpoint"])
def test_a_failed_load_changes_nothing(tmp_path, monkeypatch, load):
    source, target = _model(0), _model(1)
    path = str(tmp_path / "ckpt.h5")
    if load == "load_weights":
        source.save_weights(path)
    else:
        ef.Checkpoint(model=source, optimizer=source.optimizer).write(path)
    before = [v.numpy() for v in target.variables + target.optimizer.variables]
    calls = []
    original = h5format.Reader.read

    def failing(self, key):
        calls.append(key)
        if len(calls) == 3:  # after two values were read successfully
            self._fail(f"dataset {key!r} cannot be read; the file is corrupted (simulated).")
        return original(self, key)

    monkeypatch.setattr(h5format.Reader, "read", failing)
    with pytest.raises(ef.saving.InvalidCheckpointError, match="ckpt.h5.*cannot be read"):
        if load == "load_weights":
            target.load_weights(path)
        else:
            ef.Checkpoint(model=target, optimizer=target.optimizer).read(path)
    after = [v.numpy() for v in target.variables + target.optimizer.variables]
    for b, a in zip(before, after, strict=True):
        np.testing.assert_array_equal(a, b)
