"""Losses by name: `ef.losses.get("mse")`, as `compile(loss="mse")` needs.

As in Keras, a function name or alias (``"mse"``, ``"mean_squared_error"``,
``"sparse_categorical_crossentropy"``) gives the per-sample function, and a class name
(``"MeanSquaredError"``) gives an instance with default arguments; wrap a function with
`LossFunctionWrapper` to get reductions and sample weights.

Example:
    >>> import eagerflow as ef
    >>> ef.losses.get("mse") is ef.losses.mean_squared_error
    True
    >>> ef.losses.get("SparseCategoricalCrossentropy")
    <ef.losses.SparseCategoricalCrossentropy name='sparse_categorical_crossentropy'>
"""

from __future__ import annotations

from eagerflow.losses import crossentropy, regression
from eagerflow.losses import loss as loss_module

__all__ = ["deserialize", "get", "serialize"]

_CLASSES = {cls.__name__: cls for cls in (
    regression.MeanSquaredError, regression.MeanAbsoluteError, regression.Huber,
    crossentropy.BinaryCrossentropy, crossentropy.CategoricalCrossentropy,
    crossentropy.SparseCategoricalCrossentropy, loss_module.LossFunctionWrapper)}
_FUNCTIONS = {fn.__name__: fn for fn in (
    regression.mean_squared_error, regression.mean_absolute_error, regression.huber,
    crossentropy.binary_crossentropy, crossentropy.categorical_crossentropy,
    crossentropy.sparse_categorical_crossentropy, crossentropy.sparse_softmax_cross_entropy)}
_FUNCTIONS.update({
    "mse": regression.mean_squared_error, "MSE": regression.mean_squared_error,
    "mae": regression.mean_absolute_error, "MAE": regression.mean_absolute_error,
    "bce": crossentropy.binary_crossentropy, "BCE": crossentropy.binary_crossentropy,
    "huber_loss": regression.huber,
})


def serialize(loss) -> dict | str:
    """A loss object as ``{"class_name", "config"}``; a built-in function as its name.

    Raises:
        ValueError: for a function that is not a built-in loss.

    Example:
        >>> import eagerflow as ef
        >>> ef.losses.serialize(ef.losses.mean_absolute_error)
        'mean_absolute_error'
    """
    if isinstance(loss, loss_module.Loss):
        return {"class_name": type(loss).__name__, "config": loss.get_config()}
    if getattr(loss, "__name__", None) in _FUNCTIONS and _FUNCTIONS[loss.__name__] is loss:
        return loss.__name__
    raise ValueError(f"Cannot serialize {loss!r}: it is not an ef.losses.Loss or a built-in "
                     "loss function.")


def deserialize(config, custom_objects=None):
    """The inverse of `serialize`.

    Raises:
        ValueError: for an unknown name.

    Example:
        >>> import eagerflow as ef
        >>> ef.losses.deserialize({"class_name": "Huber", "config": {"delta": 2.0}}).delta
        2.0
    """
    custom = custom_objects or {}
    if isinstance(config, str):
        return _by_name(config, custom)
    name = config.get("class_name") if isinstance(config, dict) else None
    cls = custom.get(name) or _CLASSES.get(name)
    if cls is None:
        raise ValueError(
            f"Unknown loss class {name!r}; known: {sorted(_CLASSES)}. Received: "
            f"config={config!r}"
        )
    return cls.from_config(config.get("config", {}))


def _by_name(name: str, custom: dict):
    if name in custom:
        found = custom[name]
        return found() if isinstance(found, type) else found
    if name in _FUNCTIONS:
        return _FUNCTIONS[name]
    if name in _CLASSES and name != "LossFunctionWrapper":
        return _CLASSES[name]()
    raise ValueError(
        f"Unknown loss {name!r}. Known names: {sorted(_FUNCTIONS)} and classes "
        f"{sorted(set(_CLASSES) - {'LossFunctionWrapper'})}."
    )


def get(identifier, custom_objects=None):
    """Returns a loss for a name, a config dict, a `Loss` or a function (as is), or None.

    Raises:
        ValueError: for an unknown name or an identifier of another type.

    Example:
        >>> import eagerflow as ef
        >>> ef.losses.get("categorical_crossentropy") is ef.losses.categorical_crossentropy
        True
        >>> ef.losses.get({"class_name": "BinaryCrossentropy", "config": {"from_logits": True}})
        <ef.losses.BinaryCrossentropy name='binary_crossentropy'>
    """
    if identifier is None or isinstance(identifier, loss_module.Loss) or (
            callable(identifier) and not isinstance(identifier, type)):
        return identifier
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier, custom_objects)
    raise ValueError(
        "Could not interpret loss identifier: expected a name, a config dict, a Loss or a "
        f"function. Received: identifier={identifier!r}"
    )
