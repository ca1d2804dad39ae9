"""Every op: forward on ndarrays and gradient in eagerflow ops, one module per family; and,
as this package's public names, Keras 3's ops API (`ef.ops`, as `keras.ops`).

Importing this package registers the op families the engine and the Tensor operators
need (math, arrays, reductions); the others (convolutions, pooling, decompositions, ...)
register when their module is first imported. NumPy-level helpers and the compiled (numba)
kernels live in `ops/kernels/`; `ops/kernels/kernel_sets.py` says which set runs.

`ef.ops.<name>` is Keras 3's `keras.ops.<name>` with its signature and semantics (NumPy
names and dtype rules, `axis`/`keepdims`, `ops.shape` a tuple), and `ef.ops.numpy`, `nn`,
`linalg` and `image` are Keras's sub-namespaces; they load on first use (PEP 562), so
importing the engine stays light. The TF-named functions (`ef.reduce_sum`, `ef.nn.*`) stay
the primary surface. A Keras name eagerflow lacks raises `MissingOpError` (an
`AttributeError`) saying so. The op families are submodules under TF's module names
(`array_ops`, `nn_ops`, `linalg_ops`, ...) where Keras uses the plain name.

Examples:
    >>> import eagerflow as ef
    >>> x = ef.constant([[1.0, 2.0], [3.0, 4.0]])
    >>> ef.ops.sum(x, axis=-1, keepdims=True).shape
    (2, 1)
    >>> ef.ops.shape(x)
    (2, 2)
"""

import importlib as _importlib
import typing as _typing

# The families the engine and the Tensor operators need register their ops on import.
from eagerflow.ops import (  # noqa: F401
    array_ops,
    creation,
    indexing,
    linalg_ops,
    math,
    operators,
    reduce,
)
from eagerflow.ops import keras_missing as _keras_missing
from eagerflow.ops.kernels import kernel_sets, memory

memory.pin_if_requested()  # opt-in only: EAGERFLOW_PIN_MALLOC=1
kernel_sets.active()  # the kernel set, chosen once from EAGERFLOW_KERNELS (raises if unusable)

# Keras's names by the module that defines them (loaded on first use).
_KERAS_FROM: dict[str, str] = {
    "eagerflow.ops.keras_core": """
        cast convert_to_numpy convert_to_tensor dtype erf erfc erfinv extract_sequences
        in_top_k is_tensor logdet logsumexp map rsqrt saturate_cast scan scatter
        scatter_update segment_max segment_min segment_prod segment_sum shape slice
        slice_update stop_gradient switch top_k unstack vectorized_map
    """,
    "eagerflow.ops.numpy": """
        abs absolute add all allclose amax amin any append arange arccos arccosh arcsin
        arcsinh arctan arctan2 arctanh argmax argmin argpartition argsort array
        array_split average bartlett bincount bitwise_and bitwise_invert
        bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor
        blackman broadcast_to cbrt ceil clip concatenate conj conjugate copy corrcoef
        correlate cos cosh count_nonzero cross cumprod cumsum deg2rad diag diagflat
        diagonal diff digitize divide divide_no_nan dot dsplit dstack einsum empty
        empty_like equal exp exp2 expand_dims expm1 eye fabs flip fliplr flipud floor
        floor_divide fmax fmin fmod full full_like gcd geomspace get_item greater
        greater_equal hamming hanning heaviside histogram hsplit hstack hypot i0 identity
        imag inner isclose isfinite isin isinf isnan isneginf isposinf isreal kaiser
        kron lcm ldexp left_shift less less_equal linspace log log10 log1p log2
        logaddexp logaddexp2 logical_and logical_not logical_or logical_xor logspace
        matmul max maximum mean median meshgrid min minimum mod moveaxis multiply
        nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian
        nanmin nanpercentile nanprod nanquantile nanstd nansum nanvar ndim negative
        nextafter nonzero not_equal ones ones_like outer pad percentile power prod ptp
        quantile rad2deg ravel real reciprocal repeat reshape right_shift roll rot90
        round searchsorted select sign signbit sin sinc sinh size slogdet sort split
        sqrt square squeeze stack std subtract sum swapaxes take take_along_axis tan
        tanh tensordot tile trace transpose trapezoid tri tril triu true_divide trunc
        unique unravel_index vander var vdot vsplit vstack where zeros zeros_like
    """,
    "eagerflow.ops.nn": """
        average_pool batch_normalization binary_crossentropy categorical_crossentropy
        celu conv conv_transpose depth_to_space depthwise_conv dot_product_attention elu
        gelu glu hard_shrink hard_sigmoid hard_silu hard_swish hard_tanh
        layer_normalization leaky_relu log_sigmoid log_softmax max_pool moments
        multi_hot normalize one_hot psnr relu relu6 rms_normalization selu sigmoid silu
        soft_shrink softmax softplus softsign space_to_depth
        sparse_categorical_crossentropy sparse_plus sparse_sigmoid squareplus swish
        tanh_shrink threshold
    """,
    "eagerflow.ops.linalg": """
        cholesky cholesky_inverse det eigh inv lstsq lu_factor matrix_rank norm pinv qr solve
        solve_triangular svd
    """,
    "eagerflow.ops.keras_products": """
        cdist
    """,
    "eagerflow.graph.keras_flow": """
        cond fori_loop while_loop
    """,
    "eagerflow.core.autodiff": """
        custom_gradient
    """,
}
_KERAS: dict[str, str] = {name: module for module, names in _KERAS_FROM.items()
                          for name in names.split()}
_SUBMODULES = ("image", "linalg", "nn", "numpy")  # keras.ops.image, ... (modules here)

if _typing.TYPE_CHECKING:  # what `_KERAS_FROM` loads, spelled out for type checkers (not
    # cond, fori_loop, while_loop: ops never import the compiler, even for types)
    from eagerflow.ops import image, linalg, nn, numpy
    from eagerflow.ops.keras_core import (
        cast,
        convert_to_numpy,
        convert_to_tensor,
        dtype,
        erf,
        erfc,
        erfinv,
        extract_sequences,
        in_top_k,
        is_tensor,
        logdet,
        logsumexp,
        map,
        rsqrt,
        saturate_cast,
        scan,
        scatter,
        scatter_update,
        segment_max,
        segment_min,
        segment_prod,
        segment_sum,
        shape,
        slice,
        slice_update,
        stop_gradient,
        switch,
        top_k,
        unstack,
        vectorized_map,
    )
    from eagerflow.ops.numpy import (
        abs,
        absolute,
        add,
        all,
        allclose,
        amax,
        amin,
        any,
        append,
        arange,
        arccos,
        arccosh,
        arcsin,
        arcsinh,
        arctan,
        arctan2,
        arctanh,
        argmax,
        argmin,
        argpartition,
        argsort,
        array,
        array_split,
        average,
        bartlett,
        bincount,
        bitwise_and,
        bitwise_invert,
        bitwise_left_shift,
        bitwise_not,
        bitwise_or,
        bitwise_right_shift,
        bitwise_xor,
        blackman,
        broadcast_to,
        cbrt,
        ceil,
        clip,
        concatenate,
        conj,
        conjugate,
        copy,
        corrcoef,
        correlate,
        cos,
        cosh,
        count_nonzero,
        cross,
        cumprod,
        cumsum,
        deg2rad,
        diag,
        diagflat,
        diagonal,
        diff,
        digitize,
        divide,
        divide_no_nan,
        dot,
        dsplit,
        dstack,
        einsum,
        empty,
        empty_like,
        equal,
        exp,
        exp2,
        expand_dims,
        expm1,
        eye,
        fabs,
        flip,
        fliplr,
        flipud,
        floor,
        floor_divide,
        fmax,
        fmin,
        fmod,
        full,
        full_like,
        gcd,
        geomspace,
        get_item,
        greater,
        greater_equal,
        hamming,
        hanning,
        heaviside,
        histogram,
        hsplit,
        hstack,
        hypot,
        i0,
        identity,
        imag,
        inner,
        isclose,
        isfinite,
        isin,
        isinf,
        isnan,
        isneginf,
        isposinf,
        isreal,
        kaiser,
        kron,
        lcm,
        ldexp,
        left_shift,
        less,
        less_equal,
        linspace,
        log,
        log10,
        log1p,
        log2,
        logaddexp,
        logaddexp2,
        logical_and,
        logical_not,
        logical_or,
        logical_xor,
        logspace,
        matmul,
        max,
        maximum,
        mean,
        median,
        meshgrid,
        min,
        minimum,
        mod,
        moveaxis,
        multiply,
        nan_to_num,
        nanargmax,
        nanargmin,
        nancumprod,
        nancumsum,
        nanmax,
        nanmean,
        nanmedian,
        nanmin,
        nanpercentile,
        nanprod,
        nanquantile,
        nanstd,
        nansum,
        nanvar,
        ndim,
        negative,
        nextafter,
        nonzero,
        not_equal,
        ones,
        ones_like,
        outer,
        pad,
        percentile,
        power,
        prod,
        ptp,
        quantile,
        rad2deg,
        ravel,
        real,
        reciprocal,
        repeat,
        reshape,
        right_shift,
        roll,
        rot90,
        round,
        searchsorted,
        select,
        sign,
        signbit,
        sin,
        sinc,
        sinh,
        size,
        slogdet,
        sort,
        split,
        sqrt,
        square,
        squeeze,
        stack,
        std,
        subtract,
        sum,
        swapaxes,
        take,
        take_along_axis,
        tan,
        tanh,
        tensordot,
        tile,
        trace,
        transpose,
        trapezoid,
        tri,
        tril,
        triu,
        true_divide,
        trunc,
        unique,
        unravel_index,
        vander,
        var,
        vdot,
        vsplit,
        vstack,
        where,
        zeros,
        zeros_like,
    )
    from eagerflow.ops.nn import (
        average_pool,
        batch_normalization,
        binary_crossentropy,
        categorical_crossentropy,
        celu,
        conv,
        conv_transpose,
        depth_to_space,
        depthwise_conv,
        dot_product_attention,
        elu,
        gelu,
        glu,
        hard_shrink,
        hard_sigmoid,
        hard_silu,
        hard_swish,
        hard_tanh,
        layer_normalization,
        leaky_relu,
        log_sigmoid,
        log_softmax,
        max_pool,
        moments,
        multi_hot,
        normalize,
        one_hot,
        psnr,
        relu,
        relu6,
        rms_normalization,
        selu,
        sigmoid,
        silu,
        soft_shrink,
        softmax,
        softplus,
        softsign,
        space_to_depth,
        sparse_categorical_crossentropy,
        sparse_plus,
        sparse_sigmoid,
        squareplus,
        swish,
        tanh_shrink,
        threshold,
    )
    from eagerflow.ops.linalg import (
        cholesky,
        cholesky_inverse,
        det,
        eigh,
        inv,
        lstsq,
        lu_factor,
        matrix_rank,
        norm,
        pinv,
        qr,
        solve,
        solve_triangular,
        svd,
    )
    from eagerflow.ops.keras_products import cdist
    from eagerflow.core.autodiff import (
        custom_gradient,
    )

__all__ = sorted([*_KERAS, *_SUBMODULES])


def __getattr__(name: str) -> _typing.Any:
    if name in _SUBMODULES:
        return _importlib.import_module(f"eagerflow.ops.{name}")  # binds the attribute
    module = _KERAS.get(name)
    if module is None:
        raise _keras_missing.missing("", name)
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))
