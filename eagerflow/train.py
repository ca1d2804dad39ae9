"""Training utilities (`ef.train`): checkpoints and the global step, TF-1 style names.

Examples:
    >>> import eagerflow as ef
    >>> step = ef.train.get_or_create_global_step()
    >>> step.dtype
    dtype('int64')
"""

from eagerflow.optim.global_step import get_or_create_global_step
from eagerflow.saving.checkpoint import Checkpoint
from eagerflow.saving.index import latest_checkpoint
from eagerflow.saving.listing import CheckpointReader, load_checkpoint, load_variable
from eagerflow.saving.listing import list_variables_tf as list_variables
from eagerflow.saving.manager import CheckpointManager

# Each name is declared once, by its import above.
__all__ = sorted(name for name in dir() if not name.startswith("_"))
