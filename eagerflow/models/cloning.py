"""`ef.models.clone_model`: a new model with the same architecture and fresh weights."""

from __future__ import annotations

from typing import Any

from eagerflow.saving import registry


def clone_model(model: Any) -> Any:
    """Builds a new model from `model`'s config: same layers and connections, new weights.

    As in Keras, this is ``type(model).from_config(model.get_config())``: the weights are
    freshly initialized (copy them with ``clone.set_weights(model.get_weights())``) and the
    clone is not compiled. A built model's clone is built for the same input shape.

    Args:
        model: a Sequential, functional or subclassed model (a subclass needs
            ``get_config``).

    Returns:
        The new model.

    Raises:
        TypeError: if `model` is not a model or layer with ``get_config``.

    Example:
        >>> import numpy as np
        >>> import eagerflow as ef
        >>> model = ef.Sequential([ef.Input((3,)), ef.layers.Dense(2)])
        >>> clone = ef.models.clone_model(model)
        >>> clone is model, clone.get_config() == model.get_config(), clone.optimizer
        (False, True, None)
        >>> bool(np.array_equal(clone.weights[0].numpy(), model.weights[0].numpy()))
        False
    """
    if not callable(getattr(model, "get_config", None)) or not callable(
            getattr(type(model), "from_config", None)):
        raise TypeError(
            "clone_model expects a model (Sequential, functional or a subclass with "
            f"get_config). Received: {type(model).__name__}")
    clone = registry.deserialize(registry.serialize(model), kind="layer")
    build_config = model.get_build_config() if model.built else None
    if build_config and not clone.built:
        clone.build_from_config(build_config)
    return clone
