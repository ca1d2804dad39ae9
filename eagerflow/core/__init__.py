"""The eager engine: tensors, ops, variables, tapes, tracing hooks.

Nothing in `eagerflow.core` imports the high-level packages (layers, models, optim, ...).
"""

from eagerflow.core import (  # noqa: F401  # noqa: F401
    autodiff,
    context,
    debugging,
    device,
    dispatch,  # noqa: F401
    dtypes,
    errors,
    operators,  # noqa: F401 - binds Tensor/Variable operators
    ops,  # noqa: F401
    random,
    spec,
    tape,
    tensor,
    variable,  # noqa: F401
)
