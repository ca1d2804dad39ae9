"""`run_layer_test`: the contract every layer meets, checked by one helper.

It builds the layer on data, checks the output shape and the weight counts, the numeric
result for fixed weights (when given), `compute_output_shape`, the functional API, a
config round trip (through JSON when the config is plain data), a checkpoint round trip
by attribute path, a gradient step that lowers a loss, and the gradients of the output
with respect to the input and every weight against finite differences (float64).
"""

from __future__ import annotations

import contextlib
import json

import numpy as np

import eagerflow as ef
from eagerflow.layers import ownership


def trackable_paths(obj, prefix="") -> dict:
    """``{"path/to/variable": variable}`` through `_trackable_children`, as checkpoints see it."""
    found = {}

    def walk(value, path):
        if isinstance(value, ef.Variable):
            found.setdefault(path, value)
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                walk(item, f"{path}/{index}")
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{path}/{key}")
        elif hasattr(value, "_trackable_children"):
            for key, item in value._trackable_children().items():
                walk(item, f"{path}/{key}" if path else key)

    walk(obj, prefix)
    return found


def _owners(layer) -> dict:
    """``id(variable) -> (owning layer, attribute name)`` for every weight."""
    owners = {}
    for sub in ownership.flatten_layers(layer):
        for name, value in vars(sub).items():
            if isinstance(value, ef.Variable):
                owners.setdefault(id(value), (sub, name))
    return owners


@contextlib.contextmanager
def weights_replaced(layer, variables, values):
    """Temporarily puts tensors in place of some weight variables (by attribute)."""
    owners = _owners(layer)
    saved = []
    try:
        for variable, value in zip(variables, values, strict=True):
            owner, name = owners[id(variable)]
            saved.append((owner, name, variable))
            owner.__dict__[name] = value
        yield
    finally:
        for owner, name, variable in saved:
            owner.__dict__[name] = variable


def _random_input(shape, dtype, seed=0, low=None, high=None):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(low or 0, high or 5, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _flat(outputs):
    return [np.asarray(o) for o in ef.core.nest.flatten(outputs)]


def _assert_same(a, b, rtol=1e-5, atol=1e-6):
    for x, y in zip(_flat(a), _flat(b), strict=True):
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol)


def run_layer_test(layer_cls, init_kwargs=None, input_shape=None, input_data=None,
                   input_dtype="float32", call_kwargs=None, expected_output_shape=None,
                   expected_num_trainable_weights=None, expected_num_non_trainable_weights=0,
                   weights=None, expected_output=None, gradient_order=2, check_gradients=True,
                   check_training=True, input_range=None, rtol=1e-5):
    """Runs the layer contract; returns the layer built on float32 data.

    Args:
        layer_cls: the layer class.
        init_kwargs: constructor arguments.
        input_shape / input_data: the test input (random data of `input_dtype` if only
            the shape is given).
        call_kwargs: extra call arguments.
        expected_output_shape: the output shape (a tuple, or a list for several outputs).
        expected_num_trainable_weights, expected_num_non_trainable_weights: weight counts.
        weights: arrays to load with `set_weights` before comparing with
            `expected_output` (a NumPy reference).
        gradient_order: highest order of the finite-difference gradient check.
        check_gradients: run the float64 gradient check.
        check_training: take a gradient step and check the loss goes down.
        input_range: ``(low, high)`` for random integer inputs.
    """
    init_kwargs = dict(init_kwargs or {})
    call_kwargs = dict(call_kwargs or {})
    if input_data is None:
        low, high = input_range or (None, None)
        input_data = _random_input(input_shape, input_dtype, low=low, high=high)
    input_shape = tuple(np.shape(input_data))
    data = ef.constant(input_data)

    # Build on the first call; shapes and weight counts.
    layer = layer_cls(**init_kwargs)
    assert not layer.built or "input_shape" in init_kwargs
    output = layer(data, **call_kwargs)
    assert layer.built
    shapes = [tuple(o.shape) for o in ef.core.nest.flatten(output)]
    if expected_output_shape is not None:
        expected = expected_output_shape if isinstance(expected_output_shape, list) else [
            expected_output_shape]
        assert shapes == [tuple(s) for s in expected], (shapes, expected_output_shape)
    if expected_num_trainable_weights is not None:
        assert len(layer.trainable_weights) == expected_num_trainable_weights
    assert len(layer.non_trainable_weights) == expected_num_non_trainable_weights
    names = [v.name for v in layer.weights]
    assert len(set(names)) == len(names), names

    # Numeric result for fixed weights.
    if weights is not None:
        layer.set_weights(weights)
        output = layer(data, **call_kwargs)
        if expected_output is not None:
            _assert_same(output, expected_output, rtol=rtol, atol=1e-5)

    # compute_output_shape agrees with the call (batch size unknown).
    if not call_kwargs:
        predicted = layer.compute_output_shape((None, *input_shape[1:]))
        predicted = predicted if isinstance(predicted, list) else [predicted]
        assert [tuple(p) for p in predicted] == [(None, *s[1:]) for s in shapes], predicted

    # Functional API: same result through a model.
    if not call_kwargs:
        inputs = ef.layers.Input(shape=input_shape[1:], dtype=data.dtype)
        model = ef.models.Model(inputs, layer(inputs))
        _assert_same(model(data), layer(data))

    # Config round trip (through JSON when the config is plain data).
    config = layer.get_config()
    try:
        config = json.loads(json.dumps(config))
    except TypeError:
        pass
    clone = layer_cls.from_config(config)
    clone(data, **call_kwargs)
    clone.set_weights(layer.get_weights())
    _assert_same(clone(data, **call_kwargs), layer(data, **call_kwargs))
    assert ef.layers.deserialize(ef.layers.serialize(layer)).get_config() == layer.get_config()

    # Checkpoint round trip by attribute path.
    saved = {path: v.numpy() for path, v in trackable_paths(layer).items()}
    assert len(saved) == len(layer.weights)
    restored = layer_cls.from_config(config)
    restored(data, **call_kwargs)
    paths = trackable_paths(restored)
    assert sorted(paths) == sorted(saved)
    for path, variable in paths.items():
        variable.assign(saved[path])
    _assert_same(restored(data, **call_kwargs), layer(data, **call_kwargs))

    # A gradient step on the trainable weights lowers a loss.
    if check_training and layer.trainable_weights:
        target = [ef.constant(np.random.default_rng(1).standard_normal(o.shape).astype(
            o.dtype)) for o in ef.core.nest.flatten(output) if o.dtype.kind == "f"]

        def loss_fn():
            outs = [o for o in ef.core.nest.flatten(layer(data, **call_kwargs))
                    if o.dtype.kind == "f"]
            total = 0.0
            for out, wanted in zip(outs, target, strict=True):
                total = total + ef.reduce_mean(ef.square(out - wanted))
            return total

        with ef.GradientTape() as tape:
            before = loss_fn()
        grads = tape.gradient(before, layer.trainable_weights)
        assert all(g is not None for g in grads), [v.name for v, g in zip(
            layer.trainable_weights, grads, strict=True) if g is None]
        norm = float(np.sqrt(sum(float(ef.reduce_sum(ef.square(g))) for g in grads)))
        for variable, grad in zip(layer.trainable_weights, grads, strict=True):
            variable.assign_sub(grad * (1e-3 / max(norm, 1e-12)))
        assert float(loss_fn()) < float(before)

    # Gradients of the output w.r.t. the input and every weight, in float64.
    if check_gradients:
        layer64 = layer_cls(**{**init_kwargs, "dtype": "float64"})
        data64 = input_data.astype(np.float64) if np.asarray(input_data).dtype.kind == "f" else (
            input_data)
        layer64(ef.constant(data64), **call_kwargs)
        layer64.set_weights([w.astype(np.float64) for w in layer.get_weights()])
        trainable = layer64.trainable_weights

        def apply(x, *values):
            with weights_replaced(layer64, trainable, values):
                return layer64(x, **call_kwargs)

        apply.__name__ = layer_cls.__name__
        values = [ef.constant(v.numpy()) for v in trainable]
        ef.testing.check_gradients(apply, ef.constant(data64), *values, order=gradient_order)
    return layer
