"""Math ops (`ef.math`): elementwise functions, reductions, products and norms.

Examples:
    >>> import eagerflow as ef
    >>> ef.math.reduce_logsumexp([0.0, 0.0])
    ef.Tensor(0.6931, shape=(), dtype=float32)
"""

from eagerflow.ops.einsum import einsum
from eagerflow.ops.linalg import (
    clip_by_global_norm,
    clip_by_norm,
    global_norm,
    matmul,
    norm,
    tensordot,
)
from eagerflow.ops.logic import (
    equal,
    greater,
    greater_equal,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    not_equal,
)
from eagerflow.ops.math import (
    add,
    cast,
    clip_by_value,
    divide,
    floordiv,
    maximum,
    minimum,
    mod,
    multiply,
    pow,
    squared_difference,
    subtract,
    truediv,
    where,
)
from eagerflow.ops.reduce import (
    argmax,
    argmin,
    cumprod,
    cumsum,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_std,
    reduce_sum,
    reduce_variance,
    top_k,
)
from eagerflow.ops.reduce import reduce_euclidean as reduce_euclidean_norm
from eagerflow.ops.special import erf, log_sigmoid, softplus
from eagerflow.ops.unary import (
    abs,
    ceil,
    cos,
    exp,
    expm1,
    floor,
    log,
    log1p,
    negative,
    reciprocal,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    tan,
    tanh,
)

# Each name is declared once, by its import above.
__all__ = sorted(name for name in dir() if not name.startswith("_"))
