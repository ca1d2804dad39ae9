"""The eager engine: tensors, ops, variables, tapes, tracing hooks.

Nothing in `eagerflow.core` imports the high-level packages (layers, models, optim, ...).
"""

from eagerflow.core import memory

memory.pin_malloc_thresholds()

from eagerflow.core import (  # noqa: E402, F401
    autodiff,
    context,
    debugging,
    device,
    dispatch,
    dtypes,
    errors,
    operators,  # binds Tensor/Variable operators
    ops,
    random,
    spec,
    tape,
    tensor,
    variable,
)
