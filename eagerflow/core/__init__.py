"""The eager engine: tensors, ops, variables, tapes, tracing hooks.

Nothing in `eagerflow.core` imports the high-level packages (layers, models, optim, ...).
"""

from eagerflow.core import context, dtypes, errors, tensor  # noqa: F401
from eagerflow.core import dispatch  # noqa: F401
from eagerflow.core import ops  # noqa: F401
from eagerflow.core import variable  # noqa: F401
from eagerflow.core import operators  # noqa: F401 - binds Tensor/Variable operators
from eagerflow.core import autodiff, debugging, device, random, spec, tape  # noqa: F401
