"""The compile arguments of a model as JSON-ready data, so `model.save` /
`ef.models.load_model` bring a model back compiled (optimizer, loss, metrics).

Names stay names; built-in and custom `Loss`/`Metric` objects become ``{"class_name",
"config"}``; functions become their registered name (``{"class_name": name, "config":
None}``), looked up again at load time in ``custom_objects`` or the registry
(`ef.saving.register_serializable`).

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.saving import compile_config
    >>> spec = compile_config.serialize_spec(["mae", ef.metrics.AUC()])
    >>> spec[0], spec[1]["class_name"]
    ('mae', 'AUC')
    >>> [type(m).__name__ for m in compile_config.deserialize_spec(spec, "metric")]
    ['str', 'AUC']
"""

from __future__ import annotations

from eagerflow import losses as losses_lib
from eagerflow import metrics as metrics_lib
from eagerflow import optim
from eagerflow.saving import registry


def _serialize_leaf(value):
    if value is None or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, losses_lib.Loss):
        return losses_lib.serialize(value)
    if isinstance(value, metrics_lib.Metric):
        return metrics_lib.serialize(value)
    if callable(value):
        try:
            return losses_lib.serialize(value)  # a built-in loss function: its name
        except ValueError:
            return {"class_name": registry.get_registered_name(value), "config": None}
    raise TypeError(f"compile argument {value!r} cannot be saved with the model")


def serialize_spec(spec):
    """A loss/metric/loss_weights argument with every leaf made JSON-ready.

    Raises:
        TypeError: for a leaf that cannot be saved.

    Examples:
        >>> from eagerflow.saving import compile_config
        >>> compile_config.serialize_spec({"a": "mse", "b": None})
        {'a': 'mse', 'b': None}
    """
    if isinstance(spec, dict) and "class_name" not in spec:
        return {key: serialize_spec(value) for key, value in spec.items()}
    if isinstance(spec, (list, tuple)):
        return [serialize_spec(value) for value in spec]
    return _serialize_leaf(spec)


def _deserialize_leaf(value, kind: str, custom_objects):
    if not isinstance(value, dict):
        return value
    name = value.get("class_name")
    if value.get("config") is None:  # a function saved by name
        # (a missing name finds nothing, which the error below reports)
        found = registry.get_registered_object(name, custom_objects, kind)  # type: ignore[arg-type]
        if found is None:
            raise ValueError(
                f"load_model: the model was compiled with the {kind} function {name!r}; pass "
                f"custom_objects={{{name!r}: {name}}} or register it with "
                "@ef.saving.register_serializable()"
            )
        return found
    return registry.deserialize(value, custom_objects, kind)


def deserialize_spec(spec, kind: str, custom_objects=None):
    """The inverse of `serialize_spec` (`kind` is "loss" or "metric").

    Raises:
        ValueError: for a function name that is neither registered nor in
            `custom_objects`.

    Examples:
        >>> from eagerflow.saving import compile_config
        >>> compile_config.deserialize_spec(["mae"], "metric")
        ['mae']
    """
    if isinstance(spec, dict) and "class_name" not in spec:
        return {key: deserialize_spec(value, kind, custom_objects)
                for key, value in spec.items()}
    if isinstance(spec, list):
        return [deserialize_spec(value, kind, custom_objects) for value in spec]
    return _deserialize_leaf(spec, kind, custom_objects)


def to_config(arguments: dict) -> dict:
    """The `compile` arguments (as stored by `Trainer.compile`) as a JSON-ready dict.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.saving import compile_config
        >>> model = ef.Sequential([ef.layers.Dense(1)])
        >>> model.compile(optimizer="sgd", loss="mse")
        >>> compile_config.to_config(model._compile_arguments)["loss"]
        'mse'
    """
    return {
        "optimizer": optim.serialize(arguments["optimizer"]),
        "loss": serialize_spec(arguments["loss"]),
        "metrics": serialize_spec(arguments["metrics"]),
        "weighted_metrics": serialize_spec(arguments["weighted_metrics"]),
        "loss_weights": serialize_spec(arguments["loss_weights"]),
        "run_eagerly": arguments["run_eagerly"],
        "steps_per_execution": arguments["steps_per_execution"],
        "jit_compile": arguments.get("jit_compile", "auto"),
    }


def from_config(config: dict, custom_objects=None) -> dict:
    """The `compile` keyword arguments for a config from `to_config`.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.saving import compile_config
        >>> model = ef.Sequential([ef.layers.Dense(1)])
        >>> model.compile(optimizer="sgd", loss="mse")
        >>> config = compile_config.to_config(model._compile_arguments)
        >>> compile_config.from_config(config)["optimizer"].name
        'sgd'
    """
    return {
        "optimizer": optim.deserialize(config["optimizer"], custom_objects),
        "loss": deserialize_spec(config.get("loss"), "loss", custom_objects),
        "metrics": deserialize_spec(config.get("metrics"), "metric", custom_objects),
        "weighted_metrics": deserialize_spec(config.get("weighted_metrics"), "metric",
                                             custom_objects),
        "loss_weights": config.get("loss_weights"),
        "run_eagerly": config.get("run_eagerly", False),
        "steps_per_execution": config.get("steps_per_execution", 1),
        "jit_compile": config.get("jit_compile", "auto"),
    }
