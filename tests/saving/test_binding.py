"""The object alias record and the binding of a file's objects to live ones."""

import json
import os

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import binding, h5format, object_graph


def _module(**variables):
    module = ef.Module()
    for name, value in variables.items():
        setattr(module, name, ef.Variable(value))
    return module


def test_walk_records_every_further_path_but_not_cycles():
    inner = _module(v=1.0)
    outer = ef.Module()
    outer.inner = inner
    inner.up = outer
    graph = object_graph.walk({"b": inner, "a": outer, "c": [inner.v]})
    assert graph.aliases == {"a/inner": "b", "c/0": "b/v", "b/up": "a"}
    assert graph.path_of(inner.v) == "b/v"
    cyclic = object_graph.walk({"a": outer})  # 'a/inner/up' leads back to 'a': not kept
    assert cyclic.aliases == {} and list(cyclic.variables) == ["a/inner/v"]


def test_a_checkpoint_stores_its_aliases_sealed(tmp_path):
    module = _module(v=3.0)
    path = ef.train.Checkpoint(a=module, b=module).write(os.path.join(tmp_path, "c.h5"))
    with h5format.Reader(path) as reader:
        assert json.loads(reader.metadata(binding.ALIASES)) == {"b": "a"}
        assert list(reader.entries) == ["a/v"]
    plain = ef.train.Checkpoint(a=_module(v=1.0)).write(os.path.join(tmp_path, "p.h5"))
    with h5format.Reader(plain) as reader:  # no second path: no record (the old format)
        assert reader.metadata(binding.ALIASES) is None


def test_a_file_without_alias_record_binds_by_path_through_live_aliases(tmp_path):
    # A file written before aliases were recorded: plain paths only.
    path = h5format.write(os.path.join(tmp_path, "old.h5"),
                          {"one/v": np.float32(1.0), "two/w": np.float32(2.0)}, "checkpoint")
    module = _module(v=0.0, w=0.0)
    ef.train.Checkpoint(one=module, two=module).read(path).assert_consumed()
    assert (float(module.v), float(module.w)) == (1.0, 2.0)


def test_optimizer_slots_are_restored_through_an_alias_deferred(tmp_path):
    model = _module(v=[1.0, 2.0])
    optimizer = ef.optim.SGD(0.1, momentum=0.9)
    optimizer.apply_gradients([(ef.constant([1.0, 1.0]), model.v)])
    saved_momentum = optimizer.slot_variables()[0][2].numpy()
    path = ef.train.Checkpoint(a=model, b=model, optimizer=optimizer).write(
        os.path.join(tmp_path, "s.h5"))
    loaded = _module(v=[0.0, 0.0])
    fresh = ef.optim.SGD(0.1, momentum=0.9)
    status = ef.train.Checkpoint(b=loaded, optimizer=fresh).read(path)
    assert status.pending == ["optimizer/slots/a/v/momentum"]
    fresh.build([loaded.v])  # the slot is created: restored through b -> a
    np.testing.assert_array_equal(fresh.slot_variables()[0][2].numpy(), saved_momentum)
    status.assert_consumed()


def test_saving_while_pending_through_an_alias_keeps_the_value(tmp_path):
    module = _module(v=5.0)
    path = ef.train.Checkpoint(a=module, b=module).write(os.path.join(tmp_path, "first.h5"))
    ckpt = ef.train.Checkpoint(b=ef.Module())  # reached as 'b' only, with no 'v' yet
    assert ckpt.restore(path).pending == ["a/v"]
    again = ckpt.write(os.path.join(tmp_path, "again.h5"))  # the pending value is kept
    assert ef.train.list_variables(again) == [("b/v", [])]


def test_encode_keeps_only_aliases_to_saved_objects():
    assert binding.encode_aliases({"b": "a", "e": "empty"}, ["a/v"]) == b'{"b":"a"}'
    assert binding.encode_aliases({"e": "empty"}, ["a/v"]) is None


def test_file_graph_follows_each_alias_once():
    graph = binding.FileGraph(["a/v", "m/w"], {"b": "a", "a/sub": "m"})
    assert graph.locate("b/sub/w") == "m/w"
    assert graph.locate("b/v") == "a/v"
    assert graph.locate("x/v") == "x/v"


@pytest.mark.parametrize("blob, match", [
    (b'{"b": "a/x"}', "the target holds no saved values"),
    (b'{"a/up": "a"}', "the target is an ancestor of the alias"),
    (b'{"a/v": "a"}', "the alias is itself a saved path"),
])
def test_decode_names_the_broken_rule(blob, match):
    with pytest.raises(ValueError, match=match):
        binding.decode_aliases(blob, ["a/v"])
