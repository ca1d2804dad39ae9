"""The object-graph walk: paths, sharing, containers, slots."""

import pytest

import eagerflow as ef
from eagerflow.core.trackable import Trackable
from eagerflow.saving import object_graph
from tests.saving import fakes


def test_paths_follow_attributes_lists_and_dicts():
    model = fakes.SubclassedModel()
    model(ef.zeros((2, 4)))
    walked = object_graph.walk({"model": model})
    assert list(walked.variables) == [  # breadth-first: shallow paths first
        "model/dense1/kernel", "model/dense1/bias", "model/extra/scale",
        "model/blocks/0/gain", "model/blocks/1/gain",
        "model/blocks/0/dense/kernel", "model/blocks/0/dense/bias",
        "model/blocks/1/dense/kernel", "model/blocks/1/dense/bias",
    ]


def test_shared_object_keeps_its_shortest_path():
    layer = fakes.Dense(2)
    layer(ef.zeros((1, 2)))
    walked = object_graph.walk({"model": {"deep": {"deeper": layer}}, "alias": layer})
    assert walked.path_of(layer.kernel) == "alias/kernel"
    assert len(walked.variables) == 2


def test_cycles_terminate():
    a, b = Trackable(), Trackable()
    a.other, b.other = b, a
    a.v = ef.Variable(1.0)
    assert list(object_graph.walk({"a": a}).variables) == ["a/v"]


def test_names_are_escaped_reversibly():
    assert object_graph.escape("a/b") == "a%2Fb"
    assert object_graph.escape("100%") == "100%25"
    assert [object_graph.escape(n) for n in ("", ".", "..")] == ["%00", "%2E", "%2E%2E"]
    walked = object_graph.walk({"d": {"x/y": ef.Variable(1.0), 7: ef.Variable(2.0)}})
    assert list(walked.variables) == ["d/x%2Fy", "d/7"]


def test_colliding_names_are_an_error():
    with pytest.raises(ef.errors.InvalidArgumentError, match="same checkpoint name '1'"):
        object_graph.walk({"d": {1: ef.Variable(1.0), "1": ef.Variable(2.0)}})


def test_children_must_be_a_dict():
    class Bad(Trackable):
        def _trackable_children(self):
            return [ef.Variable(1.0)]

    with pytest.raises(ef.errors.InvalidArgumentError, match="must return a dict"):
        object_graph.walk({"bad": Bad()})


def test_slots_are_keyed_by_their_variable_path():
    model = fakes.Sequential([fakes.Dense(3)])
    optimizer = fakes.Momentum()
    fakes.train(model, optimizer, fakes.Mean(), fakes.batches(1, input_dim=2))
    walked = object_graph.walk({"model": model, "optimizer": optimizer})
    assert list(walked.slots) == ["optimizer/slots/model/layers/0/kernel/momentum",
                                  "optimizer/slots/model/layers/0/bias/momentum"]
    assert "optimizer/iterations" in walked.variables


def test_slots_exposed_as_children_are_saved_once_under_slots():
    class Exposing(fakes.Momentum):
        def _trackable_children(self):
            return {"iterations": self.iterations,
                    "all_slots": [s for _, _, s in self.slot_variables()]}

    var = ef.Variable([1.0, 2.0])
    optimizer = Exposing()
    optimizer.apply_gradients([(ef.constant([1.0, 1.0]), var)])
    walked = object_graph.walk({"v": var, "opt": optimizer})
    assert sorted(walked.all_variables()) == ["opt/iterations", "opt/slots/v/momentum", "v"]


def test_slot_of_a_variable_outside_the_graph_is_an_orphan():
    optimizer = fakes.Momentum()
    outside = ef.Variable([1.0])
    optimizer.apply_gradients([(ef.constant([1.0]), outside)])
    walked = object_graph.walk({"opt": optimizer})
    assert walked.slots == {}
    assert walked.orphan_slots == [("opt", outside, "momentum")]


def test_optimizer_child_named_slots_is_rejected():
    class Clashing(fakes.Momentum):
        def _trackable_children(self):
            return {"slots": ef.Variable(0.0)}

    with pytest.raises(ef.errors.InvalidArgumentError, match="reserved for its slot"):
        object_graph.walk({"opt": Clashing()})


def test_exclude_skips_an_object():
    model = fakes.Sequential([])
    model.optimizer = fakes.Momentum()
    model.w = ef.Variable(1.0)
    assert list(object_graph.walk({"m": model}, exclude=[model.optimizer]).variables) == ["m/w"]
