"""History."""

import eagerflow as ef

from .fakes import FakeModel, run_epochs


def test_history_records_every_epoch_and_sets_model_history():
    model = FakeModel()
    _, history = run_epochs([], model, [{"loss": 1.0, "val_loss": 2.0},
                                        {"loss": 0.5, "val_loss": 1.5}])
    assert history.history == {"loss": [1.0, 0.5], "val_loss": [2.0, 1.5]}
    assert history.epoch == [0, 1]
    assert history.params["epochs"] == 2
    assert model.history is history
    assert repr(history) == "<ef.callbacks.History epochs=2 keys=[loss, val_loss]>"


def test_history_without_logs():
    history = ef.callbacks.History()
    history.on_train_begin()
    history.on_epoch_end(4)
    assert history.epoch == [4] and history.history == {}
