"""Object-based checkpoints in plain HDF5: save and restore anything Trackable by path.

`Checkpoint` saves named objects; `CheckpointManager` keeps the newest few in a directory;
`latest_checkpoint` finds the newest; `save_weights` / `load_weights` / `save_model` /
`load_model` are what models use; `register_serializable` / `deserialize` rebuild objects
from saved configs. The file format is documented in `eagerflow.saving.h5format` and
the README.

Example:
    >>> import os, tempfile
    >>> import eagerflow as ef
    >>> v = ef.Variable([1.0, 2.0])
    >>> path = ef.Checkpoint(v=v).save(os.path.join(tempfile.mkdtemp(), "ckpt"))
    >>> ef.checkpoint.list_variables(path)
    [('save_counter', (), 'int64'), ('v', (2,), 'float32')]
"""

from eagerflow.saving.checkpoint import Checkpoint
from eagerflow.saving.h5format import InvalidCheckpointError
from eagerflow.saving.index import latest_checkpoint
from eagerflow.saving.listing import list_variables, load_variable
from eagerflow.saving.manager import CheckpointManager
from eagerflow.saving.model_io import load_model, load_weights, save_model, save_weights
from eagerflow.saving.registry import (
    custom_object_scope,
    deserialize,
    get_registered_name,
    get_registered_object,
    register_resolver,
    register_serializable,
    serialize,
)
from eagerflow.saving.status import CheckpointLoadStatus, Mismatch, warn_pending_restores

__all__ = [
    "Checkpoint",
    "CheckpointLoadStatus",
    "CheckpointManager",
    "InvalidCheckpointError",
    "Mismatch",
    "custom_object_scope",
    "deserialize",
    "get_registered_name",
    "get_registered_object",
    "latest_checkpoint",
    "list_variables",
    "load_model",
    "load_variable",
    "load_weights",
    "register_resolver",
    "register_serializable",
    "save_model",
    "save_weights",
    "serialize",
    "warn_pending_restores",
]
