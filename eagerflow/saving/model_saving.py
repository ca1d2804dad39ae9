"""`ef.models.load_model`: the checkpoint module's model loader, knowing every layer class.

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

from eagerflow.saving import model_io


def load_model(filepath: str | os.PathLike[str], custom_objects: dict[str, Any] | None = None,
               compile: bool = True) -> Any:  # noqa: A002 - Keras's name
    """Rebuilds a model saved by `Model.save`: architecture, weights, compile state and
    optimizer state, ready to `predict` or continue `fit`.

    Args:
        filepath: the file written by `model.save`.
        custom_objects: ``{name: class or function}`` for objects that are not layers and
            not registered (custom losses, metrics, activations).
        compile: also restore the compile configuration and the optimizer state.

    Returns:
        The model.

    Raises:
        NotFoundError: if the file does not exist.
        InvalidCheckpointError: if it is not a model file.
        InvalidArgumentError: for an unknown class name or weights that do not fit.

    Examples:
        >>> import eagerflow as ef
        >>> callable(ef.models.load_model)
        True
    """
    return model_io.load_model(filepath, custom_objects=custom_objects, compile=compile)
