"""`Pipeline`: preprocessing layers applied one after the other, as one layer.

Unlike `Sequential` it is a plain layer, not a model: it has no `compile` or `fit`, and it
is meant for ``dataset.map(pipeline)`` and for the front of a model. A layer's mask is
passed on to the next, and `training` reaches every layer that takes it (the random
augmentation layers augment unless ``training=False``).

Examples:
    >>> import eagerflow as ef
    >>> pipeline = ef.layers.Pipeline([ef.layers.Rescaling(1 / 255),
    ...                                ef.layers.CenterCrop(2, 2)])
    >>> pipeline(ef.fill([1, 4, 4, 3], 255.0)).shape
    (1, 2, 2, 3)
"""

from __future__ import annotations

import inspect
from typing import Any

from eagerflow.layers import masking
from eagerflow.layers.base import Layer
from eagerflow.saving import registry


def _takes(layer, argument: str) -> bool:
    try:
        parameters = inspect.signature(layer.call).parameters
    except (TypeError, ValueError):
        return False
    return argument in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


class Pipeline(Layer):
    """Applies `layers` in order (Keras 3's layer).

    Args:
        layers: the layers, first to last.
        name: the layer's name.

    Raises:
        ValueError: if `layers` is not a list of layers.

    Examples:
        >>> import eagerflow as ef
        >>> p = ef.layers.Pipeline([ef.layers.RandomFlip("horizontal", seed=1)])
        >>> [type(layer).__name__ for layer in p.layers]
        ['RandomFlip']
    """

    def __init__(self, layers: Any, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        if not isinstance(layers, (list, tuple)):
            raise ValueError(f"Pipeline: `layers` must be a list of layers. Received: "
                             f"layers={layers!r}")
        layers = [registry.deserialize(x, kind="layer") if isinstance(x, dict) else x
                  for x in layers]
        for layer in layers:
            if not isinstance(layer, Layer):
                raise ValueError(f"Pipeline: every element of `layers` must be a layer. "
                                 f"Received: {layer!r}")
        self._pipeline_layers = list(layers)
        self.supports_masking = True

    @property
    def layers(self) -> list:
        """The layers the pipeline applies, in order (a copy of the list)."""
        return list(self._pipeline_layers)

    def call(self, inputs: Any, training: bool | None = True, mask: Any = None) -> Any:
        outputs = inputs
        for layer in self._pipeline_layers:
            kwargs = {}
            if mask is not None and _takes(layer, "mask"):
                kwargs["mask"] = mask
            if training is not None and _takes(layer, "training"):
                kwargs["training"] = training
            outputs = layer(outputs, **kwargs)
            mask = masking.get_mask(outputs)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = tuple(input_shape)
        for layer in self._pipeline_layers:
            shape = tuple(layer.compute_output_shape(shape))
        return shape

    def get_config(self) -> dict:
        return {"name": self.name,
                "layers": [registry.serialize(layer, "layer") for layer in self._pipeline_layers]}
