"""ef.Module, as the TensorFlow guide "Introduction to modules" uses tf.Module."""

import numpy as np
import pytest

import eagerflow as ef


class Dense(ef.Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = ef.Variable(ef.random.normal([in_features, out_features]), name="w")
        self.b = ef.Variable(ef.zeros([out_features]), name="b")

    def __call__(self, x):
        return ef.nn.relu(ef.matmul(x, self.w) + self.b)


class SequentialModule(ef.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)
        self.frozen = ef.Variable(1.0, trainable=False, name="frozen")

    def __call__(self, x):
        return self.dense_2(self.dense_1(x))


def test_variables_submodules_and_names():
    module = SequentialModule(name="the_model")
    assert module.name == "the_model"
    assert [m.name for m in module.submodules] == ["dense", "dense"]
    assert len(module.variables) == 5 and len(module.trainable_variables) == 4
    assert module.non_trainable_variables == (module.frozen,)
    assert module(ef.constant([[2.0, 2.0, 2.0]])).shape == (1, 2)
    with pytest.raises(ValueError, match="valid Python identifier"):
        SequentialModule(name="not valid")


class Ordered(ef.Module):
    def __init__(self):
        super().__init__()
        self.z = ef.Variable(1.0, name="z")
        self.a = ef.Variable(2.0, name="a")
        self.zm = ef.Module(name="zm")
        self.am = ef.Module(name="am")
        self.zm.v = ef.Variable(3.0, name="zmv")
        self.am.v = ef.Variable(4.0, name="amv")
        self.d = {"y": ef.Variable(5.0, name="dy"), "b": ef.Variable(6.0, name="db")}
        self.l = [ef.Variable(7.0, name="l0"), ef.Variable(8.0, name="l1")]


def test_walk_order_is_tf_modules():
    # Recorded from TF 2.21 with the same class on tf.Module: a module's own leaves in
    # sorted attribute order (dict keys sorted) first, then each submodule's.
    module = Ordered()
    assert [v.name for v in module.variables] == [
        "a", "db", "dy", "l0", "l1", "z", "amv", "zmv"]
    assert [m.name for m in module.submodules] == ["am", "zm"]
    outer = ef.Module(name="outer")
    outer.c, outer.b = ef.Module(name="c"), ef.Module(name="b")
    outer.b.d, outer.c.e = ef.Module(name="d"), ef.Module(name="e")
    for m in (outer, outer.b, outer.c, outer.b.d, outer.c.e):
        m.v = ef.Variable(1.0, name=f"{m.name}v")
    # tf.Module gives ['b', 'c', 'd', 'e'] and ['outerv', 'bv', 'dv', 'cv', 'ev'].
    assert [m.name for m in outer.submodules] == ["b", "c", "d", "e"]
    assert [v.name for v in outer.variables] == ["outerv", "bv", "dv", "cv", "ev"]


def test_training_a_module_with_a_tape_and_checkpointing_it(tmp_path):
    ef.random.set_seed(0)
    module = SequentialModule()
    x, y = ef.ones([4, 3]), ef.ones([4, 2])
    opt = ef.optim.SGD(0.05)
    losses = []
    for _ in range(20):
        with ef.GradientTape() as tape:
            loss = ef.reduce_mean(ef.square(module(x) - y))
        opt.apply_gradients(zip(tape.gradient(loss, module.trainable_variables),
                                module.trainable_variables, strict=True))
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    path = ef.Checkpoint(model=module).write(str(tmp_path / "module.h5"))
    fresh = SequentialModule()
    ef.Checkpoint(model=fresh).read(path).assert_consumed()
    np.testing.assert_array_equal(fresh.dense_2.w.numpy(), module.dense_2.w.numpy())


def test_name_scope_names_created_variables_and_layers_are_modules():
    class Lazy(ef.Module):
        @ef.Module.with_name_scope
        def __call__(self, x):
            if not hasattr(self, "w"):
                self.w = ef.Variable(ef.ones([x.shape[-1]]), name="w")
            return x * self.w

    lazy = Lazy(name="lazy")
    lazy(ef.ones([3]))
    assert lazy.w.name == "lazy/w"
    layer = ef.layers.Dense(2)
    assert isinstance(layer, ef.Module)
    layer.build((None, 3))
    assert len(layer.variables) == 2


def test_a_subclass_that_skips_super_init_still_works_in_ef_function():
    class SimpleModel(ef.Module):
        def __init__(self):  # no super().__init__(), as in TF's tf.function guide
            self.bias = 0.0
            self.v = ef.Variable(2.0)

    m = SimpleModel()
    assert repr(m) == "<SimpleModel name=None>"
    assert len(m.trainable_variables) == 1
    assert ef.function(lambda model, x: model.v * x + model.bias)(m, ef.constant(3.0)) == 6.0
