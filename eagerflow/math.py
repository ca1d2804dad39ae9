"""Math ops (`ef.math`): elementwise functions, reductions, products and norms.

Examples:
    >>> import eagerflow as ef
    >>> ef.math.reduce_logsumexp([0.0, 0.0])
    ef.Tensor(0.6931, shape=(), dtype=float32)
"""

from eagerflow import absent as _absent
from eagerflow.ops.activations import softsign
from eagerflow.ops.bessel import bessel_i0, bessel_i0e, bessel_i1, bessel_i1e
from eagerflow.ops.einsum_ops import einsum
from eagerflow.ops.gamma import digamma, lbeta, lgamma, polygamma
from eagerflow.ops.inverse_erf import erfcinv, erfinv, ndtri
from eagerflow.ops.keras_numbers import nextafter
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
from eagerflow.ops.math import mod as floormod
from eagerflow.ops.nn_ops import log_softmax, softmax
from eagerflow.ops.normalization import l2_normalize
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
from eagerflow.ops.safe_math import (
    divide_no_nan,
    multiply_no_nan,
    reciprocal_no_nan,
    xdivy,
    xlog1py,
    xlogy,
)
from eagerflow.ops.segment_ops import (
    bincount,
    confusion_matrix,
    segment_max,
    segment_mean,
    segment_min,
    segment_prod,
    segment_sum,
    unsorted_segment_max,
    unsorted_segment_mean,
    unsorted_segment_min,
    unsorted_segment_prod,
    unsorted_segment_sqrt_n,
    unsorted_segment_sum,
)
from eagerflow.ops.special import erf, erfc, log_sigmoid, softplus
from eagerflow.ops.tf_math import (
    accumulate_n,
    conj,
    imag,
    is_non_decreasing,
    is_strictly_increasing,
    real,
    scalar_mul,
    count_nonzero,
    cumulative_logsumexp,
    in_top_k,
    invert_permutation,
    is_finite,
    is_inf,
    is_nan,
    polyval,
    rint,
    zero_fraction,
)
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
    "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e",
    "nextafter",
    "accumulate_n", "conj", "erfcinv", "imag", "is_non_decreasing", "is_strictly_increasing",
    "lbeta", "real", "scalar_mul",
    "erfinv", "ndtri",
    "digamma", "lgamma", "polygamma",
    "abs", "acos", "acosh", "add", "add_n", "argmax", "argmin", "asin", "asinh", "atan", "atan2",
    "atanh", "bincount", "cast", "ceil", "clip_by_global_norm", "clip_by_norm", "clip_by_value",
    "confusion_matrix", "cos", "cosh", "count_nonzero", "cumprod", "cumsum",
    "cumulative_logsumexp", "divide", "divide_no_nan", "einsum", "equal", "erf", "erfc", "exp",
    "expm1", "floor", "floordiv", "floormod", "global_norm", "greater", "greater_equal",
    "in_top_k", "invert_permutation", "is_finite", "is_inf", "is_nan", "l2_normalize", "less",
    "less_equal", "log", "log1p", "log_sigmoid", "log_softmax", "logical_and", "logical_not",
    "logical_or", "logical_xor", "matmul", "maximum", "minimum", "mod", "multiply",
    "multiply_no_nan", "negative", "norm", "not_equal", "polyval", "pow", "reciprocal",
    "reciprocal_no_nan", "reduce_all", "reduce_any", "reduce_euclidean_norm", "reduce_logsumexp",
    "reduce_max", "reduce_mean", "reduce_min", "reduce_prod", "reduce_std", "reduce_sum",
    "reduce_variance", "rint", "round", "rsqrt", "segment_max", "segment_mean", "segment_min",
    "segment_prod", "segment_sum", "sigmoid", "sign", "sin", "sinh", "softmax", "softplus",
    "softsign", "sqrt", "square", "squared_difference", "subtract", "tan", "tanh", "tensordot",
    "top_k", "truediv", "unsorted_segment_max", "unsorted_segment_mean", "unsorted_segment_min",
    "unsorted_segment_prod", "unsorted_segment_sqrt_n", "unsorted_segment_sum", "where", "xdivy",
    "xlog1py", "xlogy", "zero_fraction",
]


__getattr__ = _absent.namespace_getattr(__name__, "tf.math")
