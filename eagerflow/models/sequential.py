"""Sequential: a plain stack of layers, each feeding the next.

With an input shape (an `Input` first, or ``input_shape=`` on the first layer) the
model builds at once: every `add` builds the new layer and checks it accepts the
previous output, so a mismatch fails at `add` time and `summary()` works before any
data. Without one, the model builds on its first call (deferred build).

Examples:
    >>> import eagerflow as ef
    >>> model = ef.Sequential([ef.layers.Input(shape=(4,)), ef.layers.Dense(8)])
    >>> model.add(ef.layers.Dense(2))
    >>> model.output_shape, len(model.weights)
    ((None, 2), 4)
    >>> lazy = ef.Sequential([ef.layers.Dense(3)])
    >>> lazy.built
    False
    >>> lazy(ef.ones([5, 7])).shape, lazy.built
    ((5, 3), True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.core.tensor import Tensor
from eagerflow.layers import base, layer_info, symbolic
from eagerflow.models import functional
from eagerflow.models.model import Model
from eagerflow.ops import math as math_ops
from eagerflow.saving import registry


class Sequential(Model):
    """A model that runs its layers one after the other.

    Args:
        layers: initial layers (an `ef.layers.Input` may come first).
        name: the model's name.
        trainable: whether its weights train.

    Raises:
        TypeError: when adding something that is not a layer.
        ValueError: for duplicate layer names, or a layer that does not accept the
            previous layer's output.

    Examples:
        >>> import eagerflow as ef
        >>> model = ef.Sequential([ef.layers.Dense(2, input_shape=(3,)), ef.layers.Dense(1)])
        >>> [layer.name for layer in model.layers] == [model.layers[0].name,
        ...                                           model.layers[1].name]
        True
        >>> model.pop().units
        1
    """

    _BOOKKEEPING = Model._BOOKKEEPING | {"_graph_outputs"}

    def __init__(self, layers: Any = None, name: str | None = None, trainable: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(name=name, trainable=trainable, **kwargs)
        # As in Keras, floating inputs are cast to the dtype of the model's input (its
        # `Input`, else its first layer's dtype), not to the model's own dtype: a stack of
        # float64 layers in a default (float32) Sequential must not see float64 data
        # rounded through float32. `call` does the cast; each layer then casts to its own.
        self.__dict__["_autocast"] = False
        self._layers: list[Any] = []
        self._graph_input = None
        self._graph_outputs: list[Any] = []
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self) -> list:
        """The layers, in order (without the Input)."""
        return list(self._layers)

    def _trackable_children(self) -> dict:
        # Layers are keyed by position (``layers/0/kernel``), as in TensorFlow's Sequential
        # checkpoints: default names are numbered per process (dense, dense_1, ...), so a
        # model rebuilt in a new session, or a second copy, would match nothing by name.
        children = {"layers": list(self._layers)}
        for name, value in self._owned_items():
            if name != "_layers":
                children.setdefault(name, value)
        return children

    def add(self, layer: Any) -> None:
        """Appends a layer (or sets the Input, when it comes first).

        Raises:
            TypeError: for a non-layer.
            ValueError: for a duplicate name, a second Input, or a layer that does not
                accept the previous output.

        Examples:
            >>> import eagerflow as ef
            >>> model = ef.Sequential()
            >>> model.add(ef.layers.Dense(2))
            >>> len(model.layers)
            1
        """
        if getattr(layer, "_is_symbolic", False) or isinstance(layer, symbolic.InputLayer):
            if self._layers or self._graph_input is not None:
                raise ValueError(
                    f"An Input can only be the first element of Sequential model "
                    f"'{self.name}', which already has an input or layers.")
            self._graph_input = layer if getattr(layer, "_is_symbolic", False) else layer.output
            self.built = True
            return
        if not isinstance(layer, base.Layer):
            raise TypeError(
                "The added layer must be an instance of class Layer. Received: "
                f"layer={layer!r} of type {type(layer).__name__}.")
        if any(existing.name == layer.name for existing in self._layers):
            raise ValueError(
                f"All layers added to a Sequential model should have unique names. Name "
                f"'{layer.name}' is already the name of a layer in model '{self.name}'.")
        if self._graph_input is None and not self._layers and (
                layer_info.batch_input_shape(layer) is not None):
            self._graph_input = symbolic.Input(batch_shape=layer_info.batch_input_shape(layer),
                                               dtype=_float_dtype_of(layer))
        if self._graph_input is not None:
            previous = self._graph_outputs[-1] if self._graph_outputs else self._graph_input
            output = layer(previous)
            self._check_single(layer, output)
            self._graph_outputs.append(output)
        self._layers.append(layer)
        self.built = self._graph_input is not None or self.built

    # -- the functional graph (Keras's model.inputs / model.outputs) ----------------------
    def _graph(self, what: str):
        if self._graph_input is None:
            raise AttributeError(
                f"Sequential model '{self.name}' has no {what} yet: give it an input shape "
                "(ef.layers.Input((features,)) first, or input_shape= on its first layer) "
                "to make it a graph with symbolic inputs and outputs.")
        return self._graph_input, (self._graph_outputs[-1] if self._graph_outputs
                                   else self._graph_input)

    @property
    def inputs(self) -> list:
        """The symbolic input tensors (a one-element list), as in Keras.

        Raises:
            AttributeError: if the model has no input shape yet.

        Examples:
            >>> import eagerflow as ef
            >>> model = ef.Sequential([ef.layers.Input((3,)), ef.layers.Dense(2, name="a"),
            ...                        ef.layers.Dense(1, name="b")])
            >>> features = ef.Model(inputs=model.inputs,
            ...                     outputs=[layer.output for layer in model.layers])
            >>> [t.shape for t in features(ef.ones([4, 3]))]
            [(4, 2), (4, 1)]
        """
        return [self._graph("inputs")[0]]

    @property
    def outputs(self) -> list:
        """The symbolic output tensors (a one-element list); see `inputs`."""
        return [self._graph("outputs")[1]]

    @property
    def input(self) -> Any:
        """The symbolic input tensor; see `inputs`."""
        return self._graph("input")[0]

    @property
    def output(self) -> Any:
        """The symbolic output tensor; see `inputs`."""
        return self._graph("output")[1]

    def pop(self) -> Any:
        """Removes and returns the last layer.

        Raises:
            TypeError: if the model has no layers.
        """
        if not self._layers:
            raise TypeError(f"There are no layers in Sequential model '{self.name}' to pop.")
        layer = self._layers.pop()
        if self._graph_outputs:
            self._graph_outputs.pop()
        return layer

    def _check_single(self, layer, output) -> None:
        if isinstance(output, (list, tuple, dict)):
            raise ValueError(
                f"All layers in a Sequential model should have a single output tensor, but "
                f"layer '{layer.name}' returned {len(output)} outputs. Use the functional API "
                "for layers with several outputs (e.g. return_state=True).")

    @property
    def input_shape(self) -> Any:
        """The shape of the input, batch axis as None; an `AttributeError` before it is known."""
        if self._graph_input is None:
            raise AttributeError(
                f"Sequential model '{self.name}' has no defined input shape yet: add an "
                "ef.layers.Input first, pass input_shape= to the first layer, or call it.")
        return self._graph_input.shape

    @property
    def output_shape(self) -> Any:
        """The shape of the output, batch axis as None; an `AttributeError` before it is known."""
        if self._graph_input is None:
            raise AttributeError(
                f"Sequential model '{self.name}' has no defined output shape yet: add an "
                "ef.layers.Input first, pass input_shape= to the first layer, or call it.")
        return (self._graph_outputs[-1] if self._graph_outputs else self._graph_input).shape

    def build(self, input_shape: Any = None) -> None:
        """Builds every layer for inputs of `input_shape` (with the batch axis)."""
        if self._graph_input is not None:
            return
        if input_shape is None:
            raise ValueError(
                f"Sequential model '{self.name}' cannot be built without an input shape: "
                "call build((batch, ...)) with one, or call the model on data.")
        self._graph_input = symbolic.Input(
            batch_shape=tuple(input_shape),
            dtype=_float_dtype_of(self._layers[0]) if self._layers else None)
        self._graph_outputs = []
        previous = self._graph_input
        for layer in self._layers:
            previous = layer(previous)
            self._check_single(layer, previous)
            self._graph_outputs.append(previous)
        self.__dict__["_build_input_shape"] = tuple(input_shape)
        self.built = True

    def _build_from_shape(self, input_shape) -> None:
        # The first call builds each layer as it runs; no separate probe is needed.
        self.__dict__["_build_input_shape"] = input_shape
        self.__dict__["built"] = True

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None) -> Any:
        outputs = inputs
        wanted = self._graph_input.dtype if self._graph_input is not None else None
        if (isinstance(inputs, Tensor) and wanted is not None and inputs.dtype != wanted
                and inputs.dtype.kind == "f" and np.dtype(wanted).kind == "f"):
            outputs = math_ops.cast(inputs, wanted)
        if self._graph_input is not None and isinstance(outputs, Tensor):
            outputs = functional.adjust_rank(outputs, self._graph_input.shape)  # as Keras
        for index, layer in enumerate(self._layers):
            if index == 0 and mask is not None and layer_info.accepts_mask(layer):
                outputs = layer(outputs, mask=mask)
            else:
                outputs = layer(outputs)
            self._check_single(layer, outputs)
        return outputs

    def get_config(self) -> dict:
        config = {"name": self.name, "trainable": self.trainable, "dtype": self.dtype.name,
                  "layers": [registry.serialize_keras_object(layer) for layer in self._layers]}
        shape = self._graph_input.shape if self._graph_input is not None else (
            self._build_input_shape)
        if shape is not None and not isinstance(shape, (list, dict)):
            config["build_input_shape"] = [None, *list(shape)[1:]]
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict[str, Any] | None = None) -> Any:
        """Rebuilds the model and, when the config records an input shape, its weights."""
        model = cls(name=config.get("name"), trainable=config.get("trainable", True))
        for entry in config.get("layers", []):
            model.add(registry.deserialize(entry, custom_objects, "layer"))
        shape = config.get("build_input_shape")
        if shape is not None and model._graph_input is None:
            model.build(tuple(shape))
        return model


def _float_dtype_of(layer) -> Any:
    """The dtype of an implied Input for `layer`: its own when floating, else the default."""
    dtype = getattr(layer, "dtype", None)
    return dtype if dtype is not None and np.dtype(dtype).kind == "f" else None
