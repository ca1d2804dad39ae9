"""`ef.models.load_model` and `ef.models.save_model`: the whole-model file, knowing every
layer class.

`Model.save` writes the architecture as a config naming classes (``"Sequential"``,
``"Dense"``, your own Model subclass...). Every `Layer` subclass is known to
`ef.layers` by name as soon as it is defined, so loading needs no registration for them;
other custom objects (a custom loss function, a metric class) go in `custom_objects` or
are registered with `ef.saving.register_serializable`.

Examples:
    >>> import eagerflow as ef, os, tempfile
    >>> model = ef.Sequential([ef.layers.Dense(2, input_shape=(3,))])
    >>> model.compile(optimizer="adam", loss="mse")
    >>> path = model.save(os.path.join(tempfile.mkdtemp(), "model.h5"))
    >>> restored = ef.models.load_model(path)
    >>> [w.shape for w in restored.weights], restored.optimizer.name
    ([(3, 2), (2,)], 'adam')
"""

from __future__ import annotations

import os
from typing import Any

from eagerflow.saving import model_file


def load_model(filepath: str | os.PathLike[str], custom_objects: dict[str, Any] | None = None,
               compile: bool = True, safe_mode: bool = True,  # noqa: A002
               max_bytes: int | None = None) -> Any:
    """Rebuilds a model saved by `Model.save`: architecture, weights, compile state and
    optimizer state, ready to `predict` or continue `fit`.

    Args:
        filepath: the file written by `model.save`.
        custom_objects: ``{name: class or function}`` for objects that are not layers and
            not registered (custom losses, metrics, activations).
        compile: also restore the compile configuration and the optimizer state.
        safe_mode: refuse a config that names a file to read (a `StringLookup`,
            `IntegerLookup` or `TextVectorization` ``vocabulary`` path), as Keras does:
            loading never reads a path named inside the file. False allows it for a file
            you trust (still only regular files of bounded size).
        max_bytes: the most this load may allocate, in bytes (weights, values read, build
            probes, buffers, decompression; see `eagerflow.saving.load_budget`); default
            ``ef.config.get_load_budget()``, or else twice the file's size plus 1 GiB.

    Returns:
        The model.

    Raises:
        NotFoundError: if the file does not exist.
        InvalidCheckpointError: if it is not a model file.
        InvalidArgumentError: for an unknown class name or weights that do not fit.
        ResourceExhaustedError: if rebuilding the model would allocate more than
            `max_bytes` (a layer config naming huge sizes); the error names the layer.

    Examples:
        >>> import eagerflow as ef
        >>> callable(ef.models.load_model)
        True
    """
    return model_file.load_model(filepath, custom_objects=custom_objects, compile=compile,
                               safe_mode=safe_mode, max_bytes=max_bytes)


def save_model(model: Any, filepath: str | os.PathLike[str], overwrite: bool = True,
               include_optimizer: bool = True) -> Any:
    """Keras's function form of `model.save(filepath)`: one HDF5 file with architecture,
    weights, compile configuration and optimizer state.

    Args:
        model: the model to save.
        filepath: the file to write (``.h5``; ``.keras`` is refused).
        overwrite: False makes an existing file an error.
        include_optimizer: also save the optimizer's state.

    Returns:
        The path written.

    Raises:
        InvalidArgumentError: for a ``.keras`` name or a config that is not JSON.

    Examples:
        >>> import eagerflow as ef, os, tempfile
        >>> model = ef.Sequential([ef.Input((3,)), ef.layers.Dense(2)])
        >>> path = ef.models.save_model(model, os.path.join(tempfile.mkdtemp(), "m.h5"))
        >>> [w.shape for w in ef.models.load_model(path).weights]
        [(3, 2), (2,)]
    """
    return model.save(filepath, overwrite=overwrite, include_optimizer=include_optimizer)
