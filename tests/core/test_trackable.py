"""The Trackable protocol: default children and the creation hooks."""

import gc
import weakref

import eagerflow as ef
from eagerflow.core import trackable
from eagerflow.core.trackable import Trackable


class Recorder:
    def __init__(self):
        self.events = []

    def variable_created(self, owner, name, variable):
        self.events.append(("variable", owner, name, variable))

    def slot_created(self, optimizer, variable, slot_name, slot):
        self.events.append(("slot", optimizer, variable, slot_name, slot))


class Holder(Trackable):
    def __init__(self):
        self.w = ef.Variable(1.0)
        self.layers = [Trackable(), 3]
        self.table = {"a": ef.Variable(2.0), "b": "text"}
        self.empty = []
        self.number = 4


def test_default_children_keep_trackable_attributes_in_order():
    holder = Holder()
    assert list(holder._trackable_children()) == ["w", "layers", "table"]


def test_is_trackable_value_looks_inside_containers():
    assert trackable.is_trackable_value([[{"x": ef.Variable(1.0)}]])
    assert trackable.is_trackable_value((Trackable(),))
    assert not trackable.is_trackable_value([1, "a", {"k": None}])
    assert not trackable.is_trackable_value(ef.constant(1.0))


def test_hooks_reach_registered_listeners_only_while_registered():
    recorder, owner, var, slot = Recorder(), Trackable(), ef.Variable(1.0), ef.Variable(0.0)
    owner._track_new_variable("w", var)  # nobody listening: nothing happens
    trackable.add_restore_listener(recorder)
    try:
        owner._track_new_variable("w", var)
        owner._track_new_slot(var, "m", slot)
    finally:
        trackable.remove_restore_listener(recorder)
    owner._track_new_variable("w", var)
    assert recorder.events == [("variable", owner, "w", var), ("slot", owner, var, "m", slot)]


def test_listeners_are_held_weakly():
    recorder = Recorder()
    ref = weakref.ref(recorder)
    trackable.add_restore_listener(recorder)
    del recorder
    gc.collect()
    assert ref() is None
    trackable.remove_restore_listener(Recorder())  # unknown listener: no error


def test_a_listener_set_on_the_object_itself():
    recorder, owner, var = Recorder(), Trackable(), ef.Variable(1.0)
    owner._deferred_restore = recorder
    owner._track_new_variable("w", var)
    owner._track_new_slot(var, "m", var)
    Trackable()._track_new_variable("w", var)  # other objects: not forwarded
    assert [event[0] for event in recorder.events] == ["variable", "slot"]
