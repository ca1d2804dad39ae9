import numpy as np
import pytest

import eagerflow as ef


class Scaled(ef.layers.Layer):
    """Keeps a factor outside any Variable: only its save hook can save it."""

    def __init__(self, factor=1.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")

    def call(self, x):
        return x * self.w * self.factor

    def save_own_variables(self, store):
        super().save_own_variables(store)
        store["factor"] = np.array(self.factor)

    def load_own_variables(self, store):
        super().load_own_variables({"0": store["0"]})
        self.factor = float(store["factor"])


def test_the_save_hook_state_survives_save_weights_and_load_weights(tmp_path):
    model = ef.Sequential([ef.Input((3,)), Scaled()])
    model.layers[0].factor = 4.0
    model.layers[0].w.assign([1.0, 2.0, 3.0])
    path = model.save_weights(tmp_path / "m.weights.h5")
    fresh = ef.Sequential([ef.Input((3,)), Scaled()])
    fresh.load_weights(path)
    assert fresh.layers[0].factor == 4.0  # without the hook: silently 1.0
    np.testing.assert_array_equal(fresh(np.ones((1, 3))).numpy(), [[4.0, 8.0, 12.0]])


def test_a_store_from_another_layer_is_refused(tmp_path):
    model = ef.Sequential([ef.Input((3,)), Scaled()])
    path = model.save_weights(tmp_path / "m.weights.h5")

    class Plain(ef.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")

        def call(self, x):
            return x * self.w

    other = ef.Sequential([ef.Input((3,)), Plain()])
    # Keras's default load_own_variables refuses a store that does not fit, and so does this
    with pytest.raises(ValueError, match="expected 1 variables, but received 2"):
        other.load_weights(path)


def test_default_load_own_variables_checks_the_count_and_shapes():
    layer = ef.layers.Dense(2)
    layer.build((None, 3))
    store = {}
    layer.save_own_variables(store)
    assert sorted(store) == ["0", "1"] and store["0"].shape == (3, 2)
    with pytest.raises(ValueError, match="expected 2 variables, but received 1"):
        layer.load_own_variables({"0": store["0"]})
    with pytest.raises(ValueError, match=r"shape \(2,\).*shape \(3, 2\)"):
        layer.load_own_variables({"0": store["1"], "1": store["1"]})
    other = ef.layers.Dense(2)
    other.build((None, 3))
    other.load_own_variables(store)
    np.testing.assert_array_equal(other.kernel.numpy(), layer.kernel.numpy())


def test_a_store_value_that_is_not_an_array_is_refused(tmp_path):
    class Bad(Scaled):
        def save_own_variables(self, store):
            store["x"] = object()

    model = ef.Sequential([ef.Input((3,)), Bad()])
    with pytest.raises(ef.saving.InvalidCheckpointError, match="stored 'x' as a value"):
        model.save(tmp_path / "m.h5")


def test_a_direct_build_call_leaves_the_layer_built():
    layer = ef.layers.Dense(4)
    layer.build((None, 3))  # Keras code does this before set_weights
    assert layer.built and layer.get_build_config() == {"input_shape": (None, 3)}
    assert [w.shape for w in layer.get_weights()] == [(3, 4), (4,)]


def test_hook_state_without_a_matching_object_or_load_hook_is_refused():
    from eagerflow.saving import layer_state

    class Vocab(ef.layers.Layer):
        def save_assets(self, directory):
            with open(f"{directory}/vocab.txt", "w") as handle:
                handle.write("a b")

        def call(self, x):
            return x

    saved = ef.Sequential([ef.Input((3,)), Vocab()])
    blob = layer_state.collect(saved)[layer_state.LAYER_STATE]
    with pytest.raises(ef.saving.InvalidCheckpointError, match="no load_assets method"):
        layer_state.read(saved, blob, "f.h5")
    with pytest.raises(ef.saving.InvalidCheckpointError, match="no object there"):
        layer_state.read(ef.Sequential([ef.Input((3,))]), blob, "f.h5")
    assert layer_state.collect(ef.Sequential([ef.Input((3,)), ef.layers.Dense(2)])) == {}
