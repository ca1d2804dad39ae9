"""Small Trackable classes standing in for layers, models, optimizers and metrics.

They follow the protocol the real classes follow: layers create variables on first call
and announce them with `_track_new_variable` (before the attribute is assigned, as a
Keras-style `self.kernel = self.add_weight(...)` does); the optimizer creates slots lazily,
announces them with `_track_new_slot` and lists them in `slot_variables()`.
"""

import pathlib

import numpy as np

import eagerflow as ef
from eagerflow.core.trackable import Trackable

REPO = str(pathlib.Path(__file__).resolve().parents[2])  # for child processes' PYTHONPATH


class Dense(Trackable):
    """y = x @ kernel + bias, built on first call from a seeded initializer."""

    def __init__(self, units, seed=0):
        self.units = units
        self.seed = seed
        self.built = False

    def add_weight(self, name, value):
        var = ef.Variable(value, name=name)
        self._track_new_variable(name, var)
        return var

    def build(self, input_dim):
        rng = np.random.default_rng(self.seed)
        self.kernel = self.add_weight(
            "kernel", rng.standard_normal((input_dim, self.units)).astype(np.float32))
        self.bias = self.add_weight("bias", np.zeros(self.units, np.float32))
        self.built = True

    def __call__(self, x):
        if not self.built:
            self.build(x.shape[-1])
        return ef.matmul(x, self.kernel) + self.bias

    def trainable_variables(self):
        return [self.kernel, self.bias] if self.built else []


class Sequential(Trackable):
    """A list of layers applied in order."""

    def __init__(self, layers):
        self.layers = list(layers)

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def trainable_variables(self):
        return [v for layer in self.layers for v in layer.trainable_variables()]


class Block(Trackable):
    """A nested object holding a layer and a plain variable."""

    def __init__(self, seed):
        self.dense = Dense(3, seed=seed)
        self.gain = ef.Variable(1.0, name="gain")

    def __call__(self, x):
        return self.dense(x) * self.gain

    def trainable_variables(self):
        return self.dense.trainable_variables() + [self.gain]


class SubclassedModel(Trackable):
    """Attributes holding a layer, a list of nested blocks and a dict of variables."""

    def __init__(self, seed=0):
        self.dense1 = Dense(3, seed=seed)
        self.blocks = [Block(seed + 1), Block(seed + 2)]
        self.extra = {"scale": ef.Variable(np.float32(0.5), name="scale")}

    def __call__(self, x):
        x = self.dense1(x)
        for block in self.blocks:
            x = block(x)
        return x * self.extra["scale"]

    def trainable_variables(self):
        return (self.dense1.trainable_variables()
                + [v for b in self.blocks for v in b.trainable_variables()]
                + [self.extra["scale"]])


class Momentum(Trackable):
    """SGD with momentum; one lazily created slot per variable, hidden from children."""

    def __init__(self, learning_rate=0.05, momentum=0.9):
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.iterations = ef.Variable(np.int64(0), trainable=False, name="iterations")
        self._slots = {}

    def _trackable_children(self):
        return {"iterations": self.iterations}

    def slot_variables(self):
        return [(var, name, slot) for var, slots in self._slots.values()
                for name, slot in slots.items()]

    def apply_gradients(self, grads_and_vars):
        for grad, var in grads_and_vars:
            if id(var) not in self._slots:
                slot = ef.Variable(np.zeros(var.shape, var.dtype), trainable=False)
                self._slots[id(var)] = (var, {"momentum": slot})
                self._track_new_slot(var, "momentum", slot)
            slot = self._slots[id(var)][1]["momentum"]
            slot.assign(self.momentum * slot.numpy() + grad.numpy())
            var.assign_sub(self.learning_rate * slot.numpy())
        self.iterations.assign_add(1)


class Mean(Trackable):
    """A running mean kept in two variables."""

    def __init__(self):
        self.total = ef.Variable(np.float64(0.0), trainable=False)
        self.count = ef.Variable(np.float64(0.0), trainable=False)

    def update_state(self, value):
        self.total.assign_add(np.float64(float(value)))
        self.count.assign_add(1.0)

    def result(self):
        return float(self.total) / max(float(self.count), 1.0)


def batches(n, seed=0, input_dim=4):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((8, input_dim)).astype(np.float32),
             rng.standard_normal((8, 3)).astype(np.float32)) for _ in range(n)]


def train(model, optimizer, metric, data):
    for x, y in data:
        with ef.GradientTape() as tape:
            loss = ef.reduce_mean(ef.square(model(x) - y))
        variables = model.trainable_variables()
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables, strict=True))
        metric.update_state(loss)


def state(*roots):
    """Every variable under `roots` as {path: bytes}, for bitwise comparison."""
    from eagerflow.saving import object_graph

    named = {f"r{i}": root for i, root in enumerate(roots)}
    return {p: (v.dtype.str, v.shape, v.numpy().tobytes())
            for p, v in object_graph.walk(named).all_variables().items()}
