"""Issue 28 (weak): a partial optimizer restore is not silent. `fit` calls
`ef.saving.warn_pending_restores` after its first step (once the optimizer built its
slots), so a checkpoint whose slots never matched warns, as TensorFlow's "Unresolved
object in checkpoint" warnings do; matching and `expect_partial()` restores stay quiet."""

import warnings

import numpy as np
import pytest

import eagerflow as ef

X, Y = np.ones((8, 3), np.float32), np.zeros((8, 2), np.float32)


def _model(optimizer):
    model = ef.Sequential([ef.layers.Dense(2, input_shape=(3,))])
    model.compile(optimizer=optimizer, loss="mse")
    return model


@pytest.fixture
def adam_checkpoint(tmp_path):
    trained = _model(ef.optim.Adam(0.01))
    trained.fit(X, Y, verbose=0)
    return ef.Checkpoint(model=trained, optimizer=trained.optimizer).write(tmp_path / "c.h5")


def test_slots_of_another_optimizer_warn_after_the_first_step(adam_checkpoint):
    model = _model(ef.optim.SGD(0.1, momentum=0.9))
    ef.Checkpoint(model=model, optimizer=model.optimizer).read(adam_checkpoint)
    with pytest.warns(ef.errors.EagerflowWarning,
                      match=r"restored from .*c\.h5' are still waiting for their variables.*"
                            r"'optimizer/slots/model/layers/0/bias/velocity'"):
        model.fit(X, Y, epochs=2, verbose=0)


@pytest.mark.parametrize("eager", [True, False])
def test_a_matching_or_expected_partial_restore_is_quiet(adam_checkpoint, eager):
    same = _model(ef.optim.Adam(0.01))
    same.run_eagerly = eager
    ef.Checkpoint(model=same, optimizer=same.optimizer).read(adam_checkpoint)
    other = _model(ef.optim.SGD(0.1, momentum=0.9))
    ef.Checkpoint(model=other, optimizer=other.optimizer).read(
        adam_checkpoint).expect_partial()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same.fit(X, Y, verbose=0)   # every slot found its variable in the first step
        other.fit(X, Y, verbose=0)  # declared partial


def test_only_restores_into_the_trained_objects_are_reported(adam_checkpoint):
    waiting = _model(ef.optim.SGD(0.1, momentum=0.9))  # restored, not trained yet
    ef.Checkpoint(model=waiting, optimizer=waiting.optimizer).read(adam_checkpoint)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _model("sgd").fit(X, Y, verbose=0)
    with pytest.warns(ef.errors.EagerflowWarning, match="still waiting"):
        ef.saving.warn_pending_restores()  # every restore: a custom loop's choice
