"""The eager engine: tensors, variables, op dispatch and registry, tapes, the tracer protocol.

The engine knows no op: ops register themselves with `dispatch.primitive` (in
`eagerflow.ops`) or `dispatch.register` (the graph-only ops of `eagerflow.graph`), and the
few the engine runs itself (summing a broadcast gradient back to its input's shape, for
one) it finds in that registry by name. Nothing in
`eagerflow.core` imports `eagerflow.ops`, `eagerflow.graph` or the high-level packages.
"""

from eagerflow.core import (autodiff, buffers, context, device, dispatch, dtypes, errors,
                            logits, nest, spec, tape, tensor, trackable, variable)

__all__ = [
    "autodiff", "buffers", "context", "device", "dispatch", "dtypes", "errors", "logits", "nest",
    "spec", "tape", "tensor", "trackable", "variable",
]
