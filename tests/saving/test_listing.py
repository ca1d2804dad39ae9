"""list_variables, load_variable and the command line."""

import subprocess
import sys

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import listing
from tests.saving.fakes import REPO


@pytest.fixture
def saved(tmp_path):
    ckpt = ef.Checkpoint(model={"dense": {"kernel": ef.Variable(np.ones((2, 3), np.float32))}},
                         step=ef.Variable(np.int64(4)))
    return ckpt.save(tmp_path / "ckpt")


def test_list_variables(saved, tmp_path):
    expected = [("model/dense/kernel", (2, 3), "float32"), ("save_counter", (), "int64"),
                ("step", (), "int64")]
    assert ef.checkpoint.list_variables(saved) == expected
    assert ef.checkpoint.list_variables(tmp_path) == expected  # a directory: its latest


def test_load_variable(saved):
    assert np.array_equal(ef.checkpoint.load_variable(saved, "model/dense/kernel"),
                          np.ones((2, 3), np.float32))
    with pytest.raises(ef.errors.NotFoundError,
                       match=r"has no variable 'other/kernel'; similar paths: "
                             r"\['model/dense/kernel'\]"):
        ef.checkpoint.load_variable(saved, "other/kernel")
    with pytest.raises(ef.errors.NotFoundError, match=r"no variable 'nope' \(3 variables"):
        ef.checkpoint.load_variable(saved, "nope")


def test_main_prints_the_variables(saved, capsys):
    assert listing.main([saved]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == saved
    assert out[1:] == ["  model/dense/kernel  [2, 3]  float32", "  save_counter  []  int64",
                       "  step  []  int64", "  3 variables, 8 values"]


def test_module_entry_point(saved):
    result = subprocess.run([sys.executable, "-m", "eagerflow.saving", saved],
                            capture_output=True, text=True, cwd=REPO, check=True)
    assert "model/dense/kernel  [2, 3]  float32" in result.stdout


def test_tensorflow_style_reader_without_building_the_model(tmp_path):
    ef.random.set_seed(0)
    model = ef.Sequential([ef.layers.Dense(3, input_shape=(2,))])
    manager = ef.CheckpointManager(ef.Checkpoint(model=model), str(tmp_path), max_to_keep=1)
    manager.save()
    reader = ef.train.load_checkpoint(str(tmp_path))  # a directory: its latest checkpoint
    shapes = reader.get_variable_to_shape_map()
    assert shapes["model/layers/0/kernel"] == [2, 3]
    assert reader.get_variable_to_dtype_map()["model/layers/0/bias"] == np.float32
    np.testing.assert_array_equal(reader.get_tensor("model/layers/0/kernel"),
                                  model.layers[0].kernel.numpy())
    assert ("model/layers/0/kernel", [2, 3]) in ef.train.list_variables(str(tmp_path))
    with pytest.raises(ef.errors.NotFoundError, match="no variable 'model/kernel'"):
        reader.get_tensor("model/kernel")
