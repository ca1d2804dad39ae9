"""Functional models: a graph of layer calls from `Input` tensors to outputs.

``ef.models.Model(inputs, outputs)`` walks the nodes (layer calls) back from `outputs` to
`inputs`, orders them so every node comes after the nodes it reads, and runs them in that
order when called. Inputs and outputs may be single tensors, lists or dicts (dict inputs
are matched by Input name); layers may be shared (called several times), and models
nest (a model is a layer). As in Keras, an input whose rank is one off through a trailing
axis of size 1 is reshaped to the Input's rank (``(n,)`` for ``Input(shape=(1,))``).

Examples:
    >>> import eagerflow as ef
    >>> a = ef.layers.Input(shape=(2,), name="a")
    >>> b = ef.layers.Input(shape=(2,), name="b")
    >>> shared = ef.layers.Dense(3, name="shared")
    >>> merged = ef.layers.Add(name="add")([shared(a), shared(b)])
    >>> model = ef.models.Model([a, b], merged)
    >>> model([ef.ones([4, 2]), ef.zeros([4, 2])]).shape
    (4, 3)
    >>> [layer.name for layer in model.layers]
    ['a', 'b', 'shared', 'add']
    >>> x = ef.layers.Input(shape=(1,))
    >>> ef.models.Model(x, ef.layers.Dense(2)(x))(ef.constant([1.0, 2.0, 3.0])).shape
    (3, 2)
"""

from __future__ import annotations

from typing import Any

from eagerflow.core import nest
from eagerflow.layers import layer_info, masking, symbolic
from eagerflow.models import functional_config
from eagerflow.models.model import Model
from eagerflow.ops import array_ops
from eagerflow.ops import math as math_ops
from eagerflow.saving import registry


def _check_symbolic(structure, what: str) -> list:
    flat = nest.flatten(structure)
    for item in flat:
        if not getattr(item, "_is_symbolic", False):
            raise ValueError(
                f"All `{what}` of a functional Model must be symbolic tensors made from "
                f"ef.layers.Input() and layer calls. Received: {what}={structure!r}")
    return flat


def adjust_rank(value, expected: tuple):
    """`value` with its rank adjusted to an input of shape `expected`, as Keras does: a rank
    off by one through a trailing axis of size 1 gains or loses that axis (a column of
    shape ``(n,)``, such as a pandas Series, feeds ``Input(shape=(1,))``; ``(n, 4, 1)``
    feeds ``Input(shape=(4,))``). Other shapes are returned unchanged."""
    shape = value.shape
    if len(shape) == len(expected) - 1 and expected and expected[-1] == 1:
        return array_ops.expand_dims(value, -1)
    if len(shape) == len(expected) + 1 and shape and shape[-1] == 1:
        return array_ops.squeeze(value, -1)
    return value


def graph_nodes(model: Functional) -> list:
    """The layer calls (`Node`s) of a functional model, each after the ones it reads (the
    order the model runs them in)."""
    return model._nodes


def topological_nodes(flat_inputs: list, flat_outputs: list) -> list:
    """The nodes between `flat_inputs` and `flat_outputs`, each after the ones it reads.

    Raises:
        ValueError: "Graph disconnected" when an output needs an Input not in the list.
    """
    input_ids = {id(t) for t in flat_inputs}
    ordered, done, visiting = [], set(), set()

    def visit(node_key, trail):
        if node_key in done:
            return
        layer, index = node_key
        node = layer_info.inbound_nodes(layer)[index]
        visiting.add(node_key)
        for tensor in node.inputs:
            if id(tensor) in input_ids:
                continue
            parent = tensor.origin.layer
            if isinstance(parent, symbolic.InputLayer):
                raise ValueError(
                    f"Graph disconnected: cannot obtain value for tensor {tensor!r} (from "
                    f"Input '{parent.name}'), needed by layer '{layer.name}'. It is not one "
                    f"of the model's inputs {[t.name for t in flat_inputs]}. The following "
                    f"layers were accessed without issue: {trail}")
            visit((parent, tensor.origin.node_index), trail + [layer.name])
        visiting.discard(node_key)
        done.add(node_key)
        ordered.append(node)

    for tensor in flat_outputs:
        if id(tensor) in input_ids:
            continue
        layer, index, _ = tensor.origin
        visit((layer, index), [])
    return ordered


def keras_layer_order(flat_inputs: list, flat_outputs: list) -> list:
    """The graph's layers in Keras 3's order (``map_graph``): by depth from the outputs,
    deepest (the Inputs) first, and within one depth in the order a depth-first walk from
    the outputs first reaches them. `get_weights`/`set_weights` and positional checkpoint
    keys follow it, so weights move between eagerflow and Keras models layer for layer."""
    input_ids = {id(t) for t in flat_inputs}
    index: dict = {}  # layer -> first-visit order
    finished: set = set()
    post_order: list = []  # node keys, inputs before the nodes that read them

    def walk(tensor):
        layer, node_index, _ = tensor.origin
        key = (layer, node_index)
        if key in finished:
            return
        index.setdefault(layer, len(index))
        if id(tensor) not in input_ids or not isinstance(layer, symbolic.InputLayer):
            for parent in layer_info.inbound_nodes(layer)[node_index].inputs:
                walk(parent)
        finished.add(key)
        post_order.append(key)

    for tensor in flat_outputs:
        walk(tensor)
    node_depth: dict = {}
    layer_depth: dict = {}
    keys = set(post_order)
    for key in reversed(post_order):
        layer = key[0]
        depth = max(node_depth.setdefault(key, 0), layer_depth.get(layer, 0))
        layer_depth[layer] = node_depth[key] = depth
        if isinstance(layer, symbolic.InputLayer):
            continue
        for parent in layer_info.inbound_nodes(layer)[key[1]].inputs:
            parent_key = (parent.origin.layer, parent.origin.node_index)
            if parent_key in keys:
                node_depth[parent_key] = max(depth + 1, node_depth.get(parent_key, 0))
    for tensor in flat_inputs:  # Inputs no output depends on
        layer = tensor.origin.layer
        if layer not in layer_depth:
            layer_depth[layer], index[layer] = 0, -1
    return sorted(layer_depth, key=lambda layer: (-layer_depth[layer], index[layer]))


class Functional(Model):
    """A model defined by `Input` tensors and the layer calls that lead to its outputs.

    Created by ``ef.models.Model(inputs, outputs)``; see the module docstring.

    Raises:
        ValueError: for inputs that are not `Input` tensors, outputs not computed from
            them ("Graph disconnected"), or duplicate layer names.
    """

    def __init__(self, inputs: Any, outputs: Any, name: str | None = None, trainable: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(name=name, trainable=trainable, **kwargs)
        # As in Keras, the model itself does not cast its inputs: each is converted to the
        # dtype of its `Input`, and every layer inside casts to its own dtype. Casting to the
        # model's (default float32) dtype first would round float64 data fed to a float64
        # graph, and its gradients with it.
        self.__dict__["_autocast"] = False
        flat_inputs = _check_symbolic(inputs, "inputs")
        flat_outputs = _check_symbolic(outputs, "outputs")
        for tensor in flat_inputs:
            if not isinstance(tensor.origin.layer, symbolic.InputLayer):
                raise ValueError(
                    f"Model inputs must come from ef.layers.Input(); {tensor!r} is the output "
                    f"of layer '{tensor.origin.layer.name}'.")
        self._input_structure = inputs
        self._output_structure = outputs
        self._flat_inputs = flat_inputs
        self._flat_outputs = flat_outputs
        self._nodes = topological_nodes(flat_inputs, flat_outputs)
        layers = keras_layer_order(flat_inputs, flat_outputs)
        names = [layer.name for layer in layers]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(
                f"The name {duplicates[0]!r} is used {names.count(duplicates[0])} times in "
                f"model '{self.name}'. All layer names should be unique (get_layer and the "
                "saved config refer to layers by name); give the layers distinct `name=` "
                "arguments.")
        self._functional_layers = layers
        self.built = True

    # -- structure -------------------------------------------------------------------------
    @property
    def input(self) -> Any:
        """The model's inputs in the structure they were given (Keras's ``model.input``).

        Examples:
            >>> import eagerflow as ef
            >>> x = ef.layers.Input((3,))
            >>> model = ef.Model(x, ef.layers.Dense(2)(x))
            >>> model.inputs[0] is x, model.input is x, model.output.shape
            (True, True, (None, 2))
        """
        return self._input_structure

    @property
    def output(self) -> Any:
        """The model's outputs in the structure they were given (Keras's ``model.output``)."""
        return self._output_structure

    @property
    def layers(self) -> list:
        """Every layer of the graph in Keras 3's order: by depth, Inputs first (see
        `keras_layer_order`)."""
        return list(self._functional_layers)

    @property
    def inputs(self) -> list:
        """The model's Input tensors, flattened."""
        return list(self._flat_inputs)

    @property
    def outputs(self) -> list:
        """The model's output tensors, flattened."""
        return list(self._flat_outputs)

    @property
    def input_names(self) -> list:
        """The names of the model's `Input` tensors, in order."""
        return [t.name for t in self._flat_inputs]

    @property
    def output_names(self) -> list:
        """The names of the layers that produce the model's outputs, in order."""
        return [t.origin.layer.name for t in self._flat_outputs]

    @property
    def input_shape(self) -> Any:
        """The shape of the input, batch axis as None (a list of shapes for several inputs)."""
        shapes = [t.shape for t in self._flat_inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self) -> Any:
        """The shape of the output, batch axis as None (a list of shapes for several outputs)."""
        shapes = [t.shape for t in self._flat_outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    def build(self, input_shape: Any = None) -> None:
        """Does nothing: a functional model is built when it is created."""

    def _owned_items(self) -> list:
        graph = [(layer.name, layer) for layer in self._functional_layers
                 if not isinstance(layer, symbolic.InputLayer)]
        return graph + super()._owned_items()

    def _trackable_children(self) -> dict:
        # By position in the graph, like Sequential (see its comment): ``layers/0/kernel``.
        children = {"layers": [layer for layer in self._functional_layers
                               if not isinstance(layer, symbolic.InputLayer)]}
        for name, value in super()._owned_items():
            children.setdefault(name, value)
        return children

    # -- running ---------------------------------------------------------------------------
    def _flatten_call_inputs(self, inputs) -> list:
        expected = self._flat_inputs
        if isinstance(inputs, dict):
            names = {t.name for t in expected}
            if set(inputs) != names:
                raise ValueError(
                    f"Model '{self.name}' expects inputs named {sorted(names)}, got a dict "
                    f"with keys {sorted(inputs)}.")
            return [inputs[t.name] for t in expected]
        flat = nest.flatten(inputs)
        if len(flat) != len(expected):
            raise ValueError(
                f"Model '{self.name}' expects {len(expected)} input(s) "
                f"{[t.name for t in expected]}, but it received {len(flat)} input tensor(s).")
        return flat

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None) -> Any:
        flat = self._flatten_call_inputs(inputs)
        masks = nest.flatten(mask) if mask is not None else [None] * len(flat)
        values = {}
        pairs = zip(self._flat_inputs, flat, masks, strict=False)
        for index, (placeholder, value, value_mask) in enumerate(pairs):
            value = self._standardize(index, placeholder, value)
            if value_mask is not None:
                masking.set_mask(value, value_mask)
            values[id(placeholder)] = value
        for node in self._nodes:
            args = symbolic.replace_symbolic(list(node.args), values)
            kwargs = symbolic.replace_symbolic(node.kwargs, values)
            outputs = node.layer(*args, **kwargs)
            for placeholder, value in zip(nest.flatten(node.outputs), nest.flatten(outputs),
                                          strict=False):
                if placeholder is not None:
                    values[id(placeholder)] = value
        return nest.pack_sequence_as(self._output_structure,
                                     [values[id(t)] for t in self._flat_outputs])

    def _standardize(self, index, placeholder, value):
        if value.dtype != placeholder.dtype:
            value = math_ops.cast(value, placeholder.dtype)
        expected = placeholder.shape
        value = adjust_rank(value, expected)
        shape = value.shape
        if len(shape) != len(expected) or any(
                e is not None and e != s for e, s in zip(expected, shape, strict=False)):
            raise ValueError(
                f"Input {index} ('{placeholder.name}') of model '{self.name}' is incompatible "
                f"with the model: expected shape={expected}, found shape={tuple(shape)}.")
        return value

    # -- config ----------------------------------------------------------------------------
    def get_config(self) -> dict:
        return functional_config.get_config(self)

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict[str, Any] | None = None) -> Any:
        """Rebuilds the graph (layers from their configs, then every call in order).

        Raises:
            ValueError: for a config whose calls cannot be replayed.
        """
        return functional_config.from_config(cls, config, custom_objects)


registry.register("layer", Functional)
