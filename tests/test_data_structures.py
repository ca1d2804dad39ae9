"""Tracked lists and dicts (`eagerflow.data_structures`): what they are, and that their
additions restore at once."""

import copy
import json
import os
import pickle

import numpy as np

import eagerflow as ef
from eagerflow import data_structures
from eagerflow.core import trackable
from eagerflow.data_structures import DictWrapper, ListWrapper


def test_the_seam_is_filled_by_import_eagerflow():
    assert trackable.container_wrappers == {list: ListWrapper, dict: DictWrapper}


def test_attributes_of_modules_layers_and_checkpoints_are_wrapped():
    module, layer, ckpt = ef.Module(), ef.layers.Dense(2), ef.train.Checkpoint()
    for owner in (module, layer, ckpt):
        owner.items, owner.table, owner.pair = [1], {"a": [2]}, ([3],)
        assert type(owner.items) is ListWrapper and type(owner.table) is DictWrapper
        assert type(owner.table["a"]) is ListWrapper  # nested containers are wrapped
        assert type(owner.pair) is tuple and type(owner.pair[0]) is list  # tuples kept


def test_wrappers_behave_as_plain_containers():
    module = ef.Module()
    module.items, module.table = [1, "x", None], {"a": 1}
    items, table = module.items, module.table
    assert isinstance(items, list) and type(items) is not list  # as in TensorFlow
    assert items == [1, "x", None] and [1, "x", None] == items and table == {"a": 1}
    assert json.dumps([items, table]) == '[[1, "x", null], {"a": 1}]'
    assert np.asarray(ListWrapper([1.0, 2.0])).tolist() == [1.0, 2.0]
    assert type(items[:1]) is list and type(items + [2]) is list and type(items.copy()) is list
    assert type(table.copy()) is dict and type(table | {"b": 2}) is dict
    assert repr(items) == "[1, 'x', None]"


def test_copies_and_pickles_keep_the_wrapper():
    items, table = ListWrapper([1, [2]]), DictWrapper(a=[1])
    for clone in (copy.copy(items), copy.deepcopy(items), pickle.loads(pickle.dumps(items))):
        assert type(clone) is ListWrapper and clone == [1, [2]]
    for clone in (copy.copy(table), copy.deepcopy(table), pickle.loads(pickle.dumps(table))):
        assert type(clone) is DictWrapper and clone == {"a": [1]}


def test_the_wrapper_holds_the_items_not_the_original_list():
    # Keras 3's TrackedList rule (TensorFlow's ListWrapper shares the storage instead).
    original = []
    module = ef.Module()
    module.items = original
    original.append(ef.Variable(1.0))
    assert module.items == [] and module.variables == ()
    module.items.append(ef.Variable(2.0))
    assert [float(v) for v in module.variables] == [2.0]


def test_layers_own_what_is_added_to_their_lists():
    class Stack(ef.layers.Layer):
        def __init__(self):
            super().__init__()
            self.blocks = []
            self.blocks.append(ef.layers.Dense(2, name="block"))
            self.blocks += [ef.layers.Dense(1, name="head")]

        def call(self, x):
            for block in self.blocks:
                x = block(x)
            return x

    model = Stack()
    model(ef.ones([1, 3]))
    assert [v.name for v in model.trainable_variables] == [
        "block/kernel", "block/bias", "head/kernel", "head/bias"]


def _saved(tmp_path):
    original = ef.train.Checkpoint()
    original.items = [ef.Variable(1.0), ef.Variable(2.0), ef.Variable(3.0), ef.Variable(4.0)]
    original.table = {"a": ef.Variable(5.0), "b": ef.Variable(6.0), "c": ef.Variable(7.0)}
    return original.save(os.path.join(tmp_path, "ckpt"))


def test_every_addition_restores_at_once(tmp_path):
    path = _saved(tmp_path)
    loaded = ef.train.Checkpoint()
    loaded.items, loaded.table = [], {}
    status = loaded.restore(path)
    loaded.items.extend([ef.Variable(0.0)])
    loaded.items += [ef.Variable(0.0)]
    loaded.items.insert(2, ef.Variable(0.0))
    loaded.items[3:] = [ef.Variable(0.0)]
    loaded.table.setdefault("a", ef.Variable(0.0))
    loaded.table |= {"b": ef.Variable(0.0)}
    loaded.table.update(c=ef.Variable(0.0))
    assert [float(v) for v in loaded.items] == [1.0, 2.0, 3.0, 4.0]
    assert {k: float(v) for k, v in loaded.table.items()} == {"a": 5.0, "b": 6.0, "c": 7.0}
    status.assert_consumed()


def test_an_empty_container_of_a_checkpoint_is_saved_once_filled(tmp_path):
    ckpt = ef.train.Checkpoint()
    ckpt.items = []
    ckpt.items.append(ef.Variable(1.0))
    path = ckpt.write(os.path.join(tmp_path, "c.h5"))
    assert ef.train.list_variables(path) == [("items/0", [])]


def test_wrap_leaves_other_values_alone():
    class Mine(list):
        pass

    mine = Mine([1])
    assert data_structures.wrap(mine) is mine and data_structures.wrap((1,)) == (1,)
