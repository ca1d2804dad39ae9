"""The ownership rule: attributes, lists, dicts, tuples, appended lists, sharing."""


import eagerflow as ef
from tests.layers.layer_contract import trackable_paths


class Holder(ef.layers.Layer):
    def __init__(self):
        super().__init__()
        self.listed = [ef.layers.Dense(1, name="in_list")]
        self.mapping = {"b": ef.layers.Dense(1, name="in_dict")}
        self.pair = (ef.Variable(1.0, name="first"), [ef.Variable(2.0, name="nested")])
        self._private = ef.layers.Dense(1, name="private")
        self.listed.append(ef.layers.Dense(1, name="appended"))
        self.plain = 3

    def call(self, x):
        for layer in [*self.listed, self.mapping["b"], self._private]:
            layer(x)
        return x


def test_one_tracking_rule_for_attributes_lists_dicts_tuples():
    holder = Holder()
    holder(ef.ones([1, 2]))
    names = [v.name for v in holder.weights]
    # The layer's own variables first, then each sublayer's, as Keras 3.15 lists this
    # Holder: ['first', 'nested', in_list, in_dict, private, appended]. Sublayers come in
    # attribute position (a list appended to later counts where the list is); Keras orders
    # them by when it tracked them, so its `appended` comes last.
    assert names == ["first", "nested", "in_list/kernel", "in_list/bias", "appended/kernel",
                     "appended/bias", "in_dict/kernel", "in_dict/bias", "private/kernel",
                     "private/bias"]
    assert [layer.name for layer in ef.layers.ownership.flatten_layers(holder)][1:] == [
        "in_list", "appended", "in_dict", "private"]
    paths = trackable_paths(holder)
    assert "listed/1/kernel" in paths and "mapping/b/bias" in paths and "pair/1/0" in paths


def test_shared_variables_and_layers_are_listed_once():
    dense = ef.layers.Dense(2)

    class Twice(ef.layers.Layer):
        def __init__(self):
            super().__init__()
            self.a = dense
            self.b = dense

        def call(self, x):
            return self.b(self.a(x))

    layer = Twice()
    layer(ef.ones([1, 2]))
    assert len(layer.weights) == 2


def test_other_trackables_are_checkpointed_but_are_not_weights():
    class Counter(ef.core.trackable.Trackable):
        def __init__(self):
            self.count = ef.Variable(0, name="count")

    layer = ef.layers.Dense(1, input_shape=(2,))
    layer.counter = Counter()
    assert "counter/count" in trackable_paths(layer)
    assert [v.name for v in layer.weights] == ["dense/kernel", "dense/bias"]
