"""Issue 28, weak item: every JSON a load reads goes through `fileio.loads_json`, so JSON
nested deeper than `fileio.MAX_JSON_DEPTH` is a clear error naming the file, never a bare
`RecursionError` (the model config and the layer-state manifest are tested elsewhere)."""

import json

import h5py
import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import fileio, index
from tests.security import forge

DEEP = "[" * 100_000 + "]" * 100_000
NESTED = r"the JSON is nested 100000 levels deep \(more than 200\)"


def test_a_checkpoint_index(tmp_path):
    (tmp_path / index.INDEX_NAME).write_text(DEEP)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"index '.*checkpoint.json' is corrupted: the index: {NESTED}"):
        index.read(tmp_path)


def test_a_backup_state_file(tmp_path):
    (tmp_path / "training_state.json").write_text(DEEP)
    model = ef.Sequential([ef.Input((2,)), ef.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match=rf"cannot read .*training_state.json .*{NESTED}"):
        model.fit(np.zeros((4, 2)), np.zeros((4, 1)), verbose=0,
                  callbacks=[ef.callbacks.BackupAndRestore(tmp_path)])


def test_a_dataset_cache(tmp_path):
    path = tmp_path / "cache"
    with open(path, "wb") as file:
        np.lib.format.write_array(file, np.array(DEEP), allow_pickle=False)
    dataset = ef.data.Dataset.from_tensor_slices(np.arange(3)).cache(str(path))
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"cache: '.*cache' is not a readable .*the header: {NESTED}"):
        list(dataset)


def test_a_saved_model_function(tmp_path):
    path = str(tmp_path / "m.h5")
    ef.saved_model.save(ef.function(lambda x: x, input_signature=[ef.TensorSpec([])]), path)
    with h5py.File(path, "r+") as f:
        del f[".eagerflow/functions/serving_default/0"]
        f[".eagerflow/functions/serving_default"].create_dataset("0", data=np.frombuffer(DEEP.encode(),
                                                                              np.uint8))
    forge.reseal(path)  # as a forger would: the checksums pass, the nesting is refused
    with pytest.raises(ef.errors.InvalidArgumentError, match=rf"serving_default.*{NESTED}"):
        ef.saved_model.load(path)


def test_a_checkpoint_shape_attribute(tmp_path):
    path = ef.Checkpoint(w=ef.Variable([1.0, 2.0])).write(str(tmp_path / "c.h5"))
    with h5py.File(path, "r+") as f:
        f["w"].attrs["shape"] = DEEP
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"c.h5.* has shape \(2,\) but its 'shape' attribute says '\[\[\["):
        ef.Checkpoint(w=ef.Variable([0.0, 0.0])).read(path)


def test_the_helper_refuses_before_parsing_and_names_the_source():
    assert fileio.loads_json(json.dumps({"a": [[1]]}), "x") == {"a": [[1]]}
    with pytest.raises(ef.errors.InvalidArgumentError, match="^where: the JSON is nested"):
        fileio.loads_json(DEEP, "where", ef.errors.InvalidArgumentError)
    with pytest.raises(ValueError, match=r"^where: not valid JSON"):
        fileio.loads_json("[1,", "where")
