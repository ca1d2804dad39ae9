"""Issue 28 (weak): BackupAndRestore's state file is checked in full before anything is
adopted. Crafted files (wrong types, negative or huge epochs, huge ints, malformed random
states, missing keys, deep nesting, oversized files, another number of ranks) are refused
with an error naming the file; the weights and the random streams stay as they were."""

import copy
import json

import numpy as np
import pytest

import eagerflow as ef


def _data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(16, 4)).astype(np.float32), rng.integers(0, 3, 16)


def _model():
    model = ef.Sequential([ef.layers.Dense(8, activation="relu", input_shape=(4,)),
                           ef.layers.Dropout(0.5), ef.layers.Dense(3)])
    model.compile(optimizer="adam", loss=ef.losses.SparseCategoricalCrossentropy(
        from_logits=True))
    return model


@pytest.fixture(scope="module")
def valid_state(tmp_path_factory):
    backup = tmp_path_factory.mktemp("valid")
    ef.random.set_seed(1)
    x, y = _data()
    _model().fit(x, y, epochs=2, batch_size=8, verbose=0, callbacks=[
        ef.callbacks.BackupAndRestore(backup, delete_checkpoint=False)])
    state = json.loads((backup / "training_state.json").read_text())
    return state, (backup / state["file"]).read_bytes()


def _edited(state, path, value):
    state = copy.deepcopy(state)
    *parents, last = path
    node = state
    for key in parents:
        node = node[key]
    if value is KeyError:
        del node[last]
    else:
        node[last] = value
    return state


_CASES = {
    "negative epoch": (("epoch",), -1, r"has epoch -1, expected an integer in \[0, "),
    "huge epoch": (("epoch",), 10**30, r"has epoch 1000000000000000000000000000000"),
    "float epoch": (("epoch",), 1.0, "has epoch 1.0"),
    "bool epoch": (("epoch",), True, "has epoch True"),
    "epoch and file disagree": (("epoch",), 0, r"names the checkpoint 'backup-epoch1.h5' "
                                               r"for epoch 0"),
    "missing rng": (("rng",), KeyError, r"lacks \['rng'\]"),
    "rng not a list": (("rng",), "abc", "'rng' that is not a list"),
    "empty rng list": (("rng",), [], "'rng' that is not a list"),
    "wrong replica count type": (("num_replicas",), "1", r"says num_replicas='1'"),
    "missing global": (("rng", 0, "global"), KeyError, "malformed random state for rank 0"),
    "extra key": (("rng", 0, "extra"), 1, r"Received keys: \['extra', 'global'"),
    "negative seed": (("rng", 0, "global_seed"), -3, "global_seed must be None or a non"),
    "string seed": (("rng", 0, "global_seed"), "1", "global_seed must be None or a non"),
    "huge generator state": (("rng", 0, "global", "state", "state"), 2**200,
                             "'global' is not a generator state"),
    "negative increment": (("rng", 0, "global", "state", "inc"), -1,
                           "'global' is not a generator state"),
    "float state": (("rng", 0, "global", "state", "state"), 1.5,
                    "'global' is not a generator state"),
    "list state": (("rng", 0, "global", "state"), [1, 2], "'global' is not a generator state"),
    "other bit generator": (("rng", 0, "global", "bit_generator"), "MT19937",
                            "'global' is not a generator state"),
    "has_uint32 out of range": (("rng", 0, "global", "has_uint32"), 2,
                                "'global' is not a generator state"),
    "ops not a dict": (("rng", 0, "ops"), [], "'ops' must be a dict"),
    "bad op seed": (("rng", 0, "ops", "-5"), None, "op seeds in 'ops' must be non-negative"),
    "bad op state": (("rng", 0, "ops", "7"), {"bit_generator": "PCG64"},
                     r"'ops'\['7'\] is not a generator state"),
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_a_crafted_state_file_is_refused_and_nothing_is_adopted(tmp_path, valid_state, case):
    path, value, match = _CASES[case]
    state, weights_file = valid_state
    _check_refused(tmp_path, _edited(state, path, value), weights_file, match)


def _check_refused(tmp_path, document, weights_file, match, raw=None):
    (tmp_path / "backup-epoch1.h5").write_bytes(weights_file)
    (tmp_path / "training_state.json").write_text(raw if raw is not None else
                                                  json.dumps(document))
    ef.random.set_seed(5)
    model = _model()
    x, y = _data()
    model(x[:1])
    weights = [w.copy() for w in model.get_weights()]
    streams = ef.random.get_state()
    with pytest.raises(ValueError, match=match) as caught:
        model.fit(x, y, epochs=3, batch_size=8, verbose=0,
                  callbacks=[ef.callbacks.BackupAndRestore(tmp_path)])
    assert str(tmp_path / "training_state.json") in str(caught.value)
    for got, want in zip(model.get_weights(), weights, strict=True):
        np.testing.assert_array_equal(got, want)
    assert ef.random.get_state() == streams


def test_deep_nesting_huge_numbers_and_oversized_files_are_refused(tmp_path, valid_state,
                                                                   monkeypatch):
    state, weights_file = valid_state
    nested = json.dumps(state)[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    _check_refused(tmp_path, None, weights_file, r"nested 100001 levels deep", raw=nested)
    digits = json.dumps(state).replace('"epoch": 1', '"epoch": 1' + "0" * 5000)
    _check_refused(tmp_path, None, weights_file, "cannot read", raw=digits)
    from eagerflow.callbacks import backup_and_restore

    monkeypatch.setattr(backup_and_restore, "_MAX_STATE_BYTES", 50_000)  # (64 MiB: slow)
    padded = json.dumps(state)[:-1] + ', "pad": "' + "x" * 50_000 + '"}'
    _check_refused(tmp_path, None, weights_file, r"is larger than 50000 bytes", raw=padded)
    _check_refused(tmp_path, None, weights_file, "cannot read", raw='{"format": "\xff')


def test_a_backup_of_two_ranks_is_refused_by_one_process(tmp_path, valid_state):
    state, weights_file = valid_state
    two = dict(state, num_replicas=2, rng=[state["rng"][0], state["rng"][0]])
    _check_refused(tmp_path, two, weights_file,
                   r"was made by a run on 2 rank\(s\), and this one has 1")


def test_a_valid_file_still_resumes(tmp_path, valid_state):
    state, weights_file = valid_state
    (tmp_path / "backup-epoch1.h5").write_bytes(weights_file)
    (tmp_path / "training_state.json").write_text(json.dumps(state))
    x, y = _data()
    callback = ef.callbacks.BackupAndRestore(tmp_path)
    history = _model().fit(x, y, epochs=3, batch_size=8, verbose=0, callbacks=[callback])
    assert callback.restored_epoch == 1 and history.epoch == [2]


def test_a_single_state_of_an_older_eagerflow_still_resumes(tmp_path, valid_state):
    state, weights_file = valid_state
    legacy = {key: value for key, value in state.items() if key != "num_replicas"}
    legacy["rng"] = state["rng"][0]  # one dict: the format before per-rank states
    (tmp_path / "backup-epoch1.h5").write_bytes(weights_file)
    (tmp_path / "training_state.json").write_text(json.dumps(legacy))
    x, y = _data()
    history = _model().fit(x, y, epochs=3, batch_size=8, verbose=0,
                           callbacks=[ef.callbacks.BackupAndRestore(tmp_path)])
    assert history.epoch == [2]


def test_set_state_checks_before_adopting():
    ef.random.set_seed(3)
    state = ef.random.get_state()
    broken = copy.deepcopy(state)
    broken["ops"] = {"1": {"bit_generator": "PCG64"}}
    ef.random.normal([2])  # moves the global stream
    moved = ef.random.get_state()
    with pytest.raises(ValueError, match=r"'ops'\['1'\] is not a generator state"):
        ef.random.set_state(broken)
    assert ef.random.get_state() == moved  # the global stream was not rewound either
