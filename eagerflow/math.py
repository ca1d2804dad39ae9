"""Math ops (`ef.math`): elementwise functions, reductions, products and norms.

Examples:
    >>> import eagerflow as ef
    >>> ef.math.reduce_logsumexp([0.0, 0.0])
    ef.Tensor(0.6931, shape=(), dtype=float32)
"""

from eagerflow import absent as _absent
from eagerflow.ops.einsum_ops import einsum
from eagerflow.ops.linalg_ops import (
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
    add_n,
    atan2,
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
from eagerflow.ops.special import erf, erfc, log_sigmoid, softplus
from eagerflow.ops.unary import (
    abs,
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atanh,
    ceil,
    cos,
    cosh,
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
    sinh,
    sqrt,
    square,
    tan,
    tanh,
)

# Written out so that documentation tools can read it; tests/test_api.py checks that it
# names exactly the public names imported above.
__all__ = [
    "abs", "acos", "acosh", "add", "add_n", "argmax", "argmin", "asin", "asinh", "atan",
    "atan2", "atanh", "cast", "ceil", "clip_by_global_norm", "clip_by_norm", "clip_by_value",
    "cos", "cosh", "cumprod", "cumsum", "divide", "einsum", "equal", "erf", "erfc", "exp",
    "expm1", "floor", "floordiv", "global_norm", "greater", "greater_equal", "less",
    "less_equal", "log", "log1p", "log_sigmoid", "logical_and", "logical_not", "logical_or",
    "logical_xor", "matmul", "maximum", "minimum", "mod", "multiply", "negative", "norm",
    "not_equal", "pow", "reciprocal", "reduce_all", "reduce_any", "reduce_euclidean_norm",
    "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod", "reduce_std",
    "reduce_sum", "reduce_variance", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh",
    "softplus", "sqrt", "square", "squared_difference", "subtract", "tan", "tanh", "tensordot",
    "top_k", "truediv", "where",
]


__getattr__ = _absent.namespace_getattr(__name__, "tf.math")
