"""Training utilities (`ef.train`): checkpoints and the global step, TF-1 style names.

Example:
    >>> import eagerflow as ef
    >>> step = ef.train.get_or_create_global_step()
    >>> step.dtype
    dtype('int64')
"""

from eagerflow.checkpoint.checkpoint import Checkpoint
from eagerflow.checkpoint.index import latest_checkpoint
from eagerflow.checkpoint.manager import CheckpointManager
from eagerflow.optim.global_step import get_or_create_global_step

__all__ = ["Checkpoint", "CheckpointManager", "get_or_create_global_step", "latest_checkpoint"]
