"""Math ops (`ef.math`): elementwise functions, reductions, products and norms.

Example:
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
from eagerflow.ops.math import (
    abs,
    add,
    cast,
    ceil,
    clip_by_value,
    cos,
    divide,
    equal,
    exp,
    expm1,
    floor,
    floordiv,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,
    reciprocal,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    squared_difference,
    subtract,
    tan,
    tanh,
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

# Each name is declared once, by its import above.
__all__ = sorted(name for name in dir() if not name.startswith("_"))
