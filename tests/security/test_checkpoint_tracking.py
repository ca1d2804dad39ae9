"""Issue 28: `ckpt._private = v` was silently not saved; TensorFlow saves it.

Keys checked against TensorFlow 2.21 (`tf.train.list_variables` of a saved checkpoint):
``ckpt._private = v`` -> ``_private/.ATTRIBUTES/VARIABLE_VALUE``; a ``tf.Module`` or Keras
layer attribute ``self._w`` -> ``m/_w/...``. Our keys are the same paths without TF's
``/.ATTRIBUTES/VARIABLE_VALUE`` suffix.
"""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import object_graph


def test_underscored_checkpoint_attribute_is_saved_and_restored(tmp_path):
    ckpt = ef.Checkpoint(public=ef.Variable(1.0))
    ckpt._private = ef.Variable([3.0, 4.0])
    path = ckpt.save(tmp_path / "ckpt")
    assert sorted(ef.train.list_variables(path)) == [
        ("_private", [2]), ("public", []), ("save_counter", [])]

    fresh = ef.Checkpoint(public=ef.Variable(0.0))
    fresh._private = ef.Variable([0.0, 0.0])
    fresh.restore(path).assert_consumed()
    np.testing.assert_array_equal(fresh._private.numpy(), [3.0, 4.0])


def test_underscored_attribute_replaced_or_deleted_stops_being_saved(tmp_path):
    ckpt = ef.Checkpoint(public=ef.Variable(1.0))
    ckpt._private = ef.Variable(2.0)
    ckpt._private = "a note"  # no longer trackable: no longer saved
    ckpt._other = ef.Variable(5.0)
    del ckpt._other
    path = ckpt.write(tmp_path / "c.h5")
    assert [name for name, _ in ef.train.list_variables(path)] == ["public"]


def test_checkpoint_internals_cannot_be_overwritten():
    ckpt = ef.Checkpoint(v=ef.Variable(1.0))
    for name in ("_objects", "_save_counter", "_roots", "_trackable_children"):
        with pytest.raises(ef.errors.InvalidArgumentError,
                           match=rf"Checkpoint\.{name}: .* attribute of Checkpoint itself"):
            setattr(ckpt, name, ef.Variable(0.0))


def test_layer_and_module_keys_are_unchanged(tmp_path):
    # Layers and Modules already tracked underscored attributes under TF's names; a model
    # checkpoint written before the change keeps its keys and round-trips.
    class Scaled(ef.layers.Layer):
        def __init__(self):
            super().__init__()
            self._scale = ef.Variable(2.0)
            self.dense = ef.layers.Dense(2)

        def call(self, x):
            return self.dense(x) * self._scale

    class Holder(ef.Module):
        def __init__(self):
            super().__init__()
            self._w = ef.Variable(2.0)
            self.b = ef.Variable(1.0)

    layer, module = Scaled(), Holder()
    layer(ef.ones([1, 3]))
    roots = {"layer": layer, "module": module}
    assert sorted(object_graph.walk(roots).variables) == [
        "layer/_scale", "layer/dense/bias", "layer/dense/kernel", "module/_w", "module/b"]
    path = ef.Checkpoint(**roots).write(tmp_path / "model.h5")
    again, other = Scaled(), Holder()
    again(ef.ones([1, 3]))
    ef.Checkpoint(layer=again, module=other).read(path).assert_consumed()
    np.testing.assert_array_equal(again.dense.kernel.numpy(), layer.dense.kernel.numpy())
