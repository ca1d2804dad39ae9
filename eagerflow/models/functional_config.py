"""Configs of functional models: the layers, plus every call as references to tensors.

A functional model's config lists its layers (with their own configs) in graph order;
each layer lists its calls ("inbound nodes") with the call arguments, where every
symbolic tensor is written as ``{"__tensor__": [layer_name, node_index, tensor_index]}``
(the `tensor_index`-th output of that layer's `node_index`-th call in this model). Only
plain data is written for built-in layers, so the config survives JSON.

Examples:
    >>> import eagerflow as ef
    >>> x = ef.layers.Input(shape=(3,), name="x")
    >>> model = ef.models.Model(x, ef.layers.Dense(2, name="d")(x), name="net")
    >>> config = model.get_config()
    >>> config["input_layers"], config["output_layers"]
    ([['x', 0, 0]], [['d', 0, 0]])
    >>> clone = ef.models.Model.from_config(config)
    >>> clone.name, [layer.name for layer in clone.layers]
    ('net', ['x', 'd'])
"""

from __future__ import annotations

from typing import Any

from eagerflow.core import nest
from eagerflow.layers import layer_info, symbolic
from eagerflow.saving import registry

_TAG = "__tensor__"


def _node_indices(model) -> dict:
    """``(id(layer), global node index) -> node index within this model``."""
    indices: dict = {}
    counts: dict = {}
    for layer in model._functional_layers:
        if isinstance(layer, symbolic.InputLayer):
            indices[(id(layer), 0)] = 0
    for node in model._nodes:
        position = layer_info.inbound_nodes(node.layer).index(node)
        count = counts.get(id(node.layer), 0)
        indices[(id(node.layer), position)] = count
        counts[id(node.layer)] = count + 1
    return indices


def _reference(tensor, indices) -> list:
    layer, node_index, tensor_index = tensor.origin
    return [layer.name, indices[(id(layer), node_index)], tensor_index]


def _encode(structure, indices):
    if getattr(structure, "_is_symbolic", False):
        return {_TAG: _reference(structure, indices)}
    if isinstance(structure, dict):
        return {k: _encode(v, indices) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return [_encode(v, indices) for v in structure]
    return structure


def _structure(structure, indices):
    """Inputs/outputs: one reference, or a list/dict of them."""
    if getattr(structure, "_is_symbolic", False):
        return [_reference(structure, indices)]
    if isinstance(structure, dict):
        return {k: _reference(v, indices) for k, v in structure.items()}
    return [_reference(t, indices) for t in nest.flatten(structure)]


def get_config(model) -> dict:
    """The functional model's config (see the module docstring)."""
    indices = _node_indices(model)
    nodes_by_layer: dict = {}
    for node in model._nodes:
        nodes_by_layer.setdefault(id(node.layer), []).append(
            {"args": _encode(list(node.args), indices),
             "kwargs": _encode(node.kwargs, indices)})
    layers = []
    for layer in model._functional_layers:
        layers.append({
            "class_name": type(layer).__name__,
            "name": layer.name,
            "config": registry.serialize_config_values(layer.get_config()),
            "inbound_nodes": nodes_by_layer.get(id(layer), []),
        })
        build_config = layer.get_build_config()
        if build_config is not None and not isinstance(layer, symbolic.InputLayer):
            layers[-1]["build_config"] = registry.serialize_config_values(build_config)
    return {
        "name": model.name,
        "trainable": model.trainable,
        "layers": layers,
        "input_layers": _structure(model._input_structure, indices),
        "output_layers": _structure(model._output_structure, indices),
        "single_input": getattr(model._input_structure, "_is_symbolic", False),
        "single_output": getattr(model._output_structure, "_is_symbolic", False),
    }


def _decode(structure, tensors):
    if isinstance(structure, dict):
        if set(structure) == {_TAG}:
            name, node_index, tensor_index = structure[_TAG]
            return nest.flatten(tensors[name][node_index])[tensor_index]
        return {k: _decode(v, tensors) for k, v in structure.items()}
    if isinstance(structure, list):
        return [_decode(v, tensors) for v in structure]
    return structure


def _ready(structure, tensors) -> bool:
    if isinstance(structure, dict):
        if set(structure) == {_TAG}:
            name, node_index, _ = structure[_TAG]
            return name in tensors and node_index < len(tensors[name])
        return all(_ready(v, tensors) for v in structure.values())
    if isinstance(structure, list):
        return all(_ready(v, tensors) for v in structure)
    return True


def from_config(cls, config: dict, custom_objects=None):
    """Rebuilds a functional model: creates the layers, then replays their calls."""
    layers: dict = {}
    pending: list = []
    tensors: dict = {}  # layer name -> outputs of each of its calls, in order
    for entry in config["layers"]:
        layer = registry.deserialize(
            {"class_name": entry["class_name"], "config": entry["config"],
             "build_config": entry.get("build_config")}, custom_objects,
            "layer")
        layers[entry["name"]] = layer
        if isinstance(layer, symbolic.InputLayer):
            tensors[entry["name"]] = [layer.output]
        pending.extend((entry["name"], node) for node in entry["inbound_nodes"])
    # Replay calls as soon as their arguments exist; a shared layer's later call may
    # depend on layers listed after it.
    while pending:
        remaining: list[Any] = []
        for name, node in pending:
            ready = _ready(node["args"], tensors) and _ready(node["kwargs"], tensors)
            ready = ready and all(n != name for n, _ in remaining)
            if not ready:
                remaining.append((name, node))
                continue
            args = _decode(node["args"], tensors)
            kwargs = _decode(node["kwargs"], tensors)
            outputs = layers[name](*args, **kwargs)
            tensors.setdefault(name, []).append(outputs)
        if len(remaining) == len(pending):
            raise ValueError(
                "Cannot rebuild the functional model from its config: the calls of layers "
                f"{sorted({n for n, _ in remaining})} refer to tensors no layer produces.")
        pending = remaining

    def resolve(references, single):
        if isinstance(references, dict):
            return {k: _decode({_TAG: v}, tensors) for k, v in references.items()}
        found = [_decode({_TAG: ref}, tensors) for ref in references]
        return found[0] if single and len(found) == 1 else found

    inputs = resolve(config["input_layers"], config.get("single_input", True))
    outputs = resolve(config["output_layers"], config.get("single_output", True))
    return cls(inputs, outputs, name=config.get("name"), trainable=config.get("trainable", True))
