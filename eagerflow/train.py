"""Training utilities (`ef.train`): checkpoints and the global step, TF-1 style names.

Examples:
    >>> import eagerflow as ef
    >>> step = ef.train.get_or_create_global_step()
    >>> step.dtype
    dtype('int64')
"""

from eagerflow import absent as _absent
from eagerflow.core.variable import atomic_update
from eagerflow.optim.global_step import get_or_create_global_step
from eagerflow.saving.checkpoint import Checkpoint
from eagerflow.saving.index import latest_checkpoint
from eagerflow.saving.listing import CheckpointReader, load_checkpoint, load_variable
from eagerflow.saving.listing import list_variables_tf as list_variables
from eagerflow.saving.manager import CheckpointManager

# Written out so that documentation tools can read it; tests/test_api.py checks that it
# names exactly the public names imported above.
__all__ = [
    "Checkpoint", "CheckpointManager", "CheckpointReader", "atomic_update",
    "get_or_create_global_step", "latest_checkpoint", "list_variables", "load_checkpoint",
    "load_variable",
]


__getattr__ = _absent.namespace_getattr(__name__, "tf.train")
