"""eagerflow: a lean eager autodiff core on NumPy with a Keras-style high level.

Examples:
    >>> import eagerflow as ef
    >>> ef.matmul([[2.0]], [[2.0]])
    ef.Tensor([[4.]], shape=(1, 1), dtype=float32)

TensorFlow and Keras names eagerflow lacks say so, with what to write instead (an
`AttributeError` subclass, see `eagerflow.absent`):

    >>> ef.sparse.SparseTensor(indices=[[0, 0]], values=[1], dense_shape=[2, 2])
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    eagerflow.absent.AbsentNameError: module 'eagerflow' has no attribute 'sparse': ...
"""

__version__ = "0.1.0"

import typing as _typing

# The eager engine and the ops every program uses. ef.nn, ef.function and the high-level
# packages load on first use (`_LAZY` below): `import eagerflow.core` runs this file, and
# must load neither the compiler, the convolutions nor layers, models or optimizers.
from eagerflow import absent as _absent
from eagerflow import data_structures as _data_structures  # (fills core's container seam)
from eagerflow import autodiff, config, dtypes, linalg, math, strings, testing
from eagerflow.autodiff import hessian_vector_product, jvp
from eagerflow.core import errors
from eagerflow.backprop import (
    gradients_function,
    implicit_gradients,
    implicit_value_and_gradients,
    value_and_gradients_function,
)
from eagerflow.core.autodiff import custom_gradient
from eagerflow.core.context import executing_eagerly, init_scope
from eagerflow.core.device import device, num_gpus
from eagerflow.core.dtypes import bool, float16, float32, float64, int32, int64, string, uint8
from eagerflow.core.spec import TensorSpec
from eagerflow.tensor_shape import TensorShape
from eagerflow.core.tape import GradientTape, UnconnectedGradients
from eagerflow.core.tensor import Tensor
from eagerflow.core.trackable import Module
from eagerflow.core.variable import Variable
from eagerflow.ops import debugging
from eagerflow.ops.gradient_shaping import grad_pass_through, recompute_grad
from eagerflow.math import (
    abs,
    acos,
    acosh,
    add,
    add_n,
    argmax,
    argmin,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    cast,
    ceil,
    clip_by_global_norm,
    clip_by_norm,
    clip_by_value,
    cos,
    cosh,
    cumsum,
    divide,
    einsum,
    equal,
    erf,
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
    matmul,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    norm,
    not_equal,
    pow,
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
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    softplus,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    tensordot,
    top_k,
    where,
)
from eagerflow.ops import random
from eagerflow.ops.array_ops import (
    broadcast_to,
    concat,
    expand_dims,
    identity,
    rank,
    reshape,
    shape,
    size,
    split,
    squeeze,
    stack,
    stop_gradient,
    tile,
    transpose,
    unstack,
)
from eagerflow.ops.creation import (
    constant,
    convert_to_tensor,
    eye,
    fill,
    from_dlpack,
    linspace,
    ones,
    ones_like,
    range,
    zeros,
    zeros_like,
)
from eagerflow.ops.indexing import (
    boolean_mask,
    gather,
    gather_nd,
    one_hot,
    pad,
    scatter_nd,
    sequence_mask,
)

# Public names that load on first use (PEP 562), as "module" or "module:attribute".
_LAZY: dict[str, str] = {
    # the rest of the op surface and the compiler
    "nn": "eagerflow.nn",
    "image": "eagerflow.image",
    "function": "eagerflow.graph.function:function",
    "cond": "eagerflow.graph.control_flow:cond",
    "while_loop": "eagerflow.graph.control_flow:while_loop",
    "print": "eagerflow.graph.python_ops:print",
    "py_function": "eagerflow.graph.python_ops:py_function",
    "numpy_function": "eagerflow.graph.python_ops:numpy_function",
    "case": "eagerflow.graph.control_flow:case",
    "gradients": "eagerflow.graph.function:gradients",
    "get_static_value": "eagerflow.graph.function:get_static_value",
    "variable_creator_scope": "eagerflow.graph.function:variable_creator_scope",
    "name_scope": "eagerflow.graph.function:name_scope",
    "autograph": "eagerflow.autograph",
    "TensorArray": "eagerflow.graph.tensor_array:TensorArray",
    "map_fn": "eagerflow.graph.tensor_array:map_fn",
    "saved_model": "eagerflow.graph.function_file",  # imports h5py: only when used
    # layers and models
    "layers": "eagerflow.layers",
    "models": "eagerflow.models",
    "Model": "eagerflow.models:Model",
    "Sequential": "eagerflow.models:Sequential",
    "Input": "eagerflow.layers:Input",  # keras.Input
    "initializers": "eagerflow.layers.initializers",
    "regularizers": "eagerflow.layers.regularizers",
    "constraints": "eagerflow.layers.constraints",
    "activations": "eagerflow.layers.activations",
    # training
    "optim": "eagerflow.optim",
    "optimizers": "eagerflow.optim",  # Keras's name
    "losses": "eagerflow.losses",
    "metrics": "eagerflow.metrics",
    "callbacks": "eagerflow.callbacks",
    "train": "eagerflow.train",
    "summary": "eagerflow.summary",
    # data and saving
    "data": "eagerflow.data",
    "datasets": "eagerflow.datasets",
    "saving": "eagerflow.saving",
    "checkpoint": "eagerflow.saving",  # list_variables, load_variable, ... as in tf.train
    "Checkpoint": "eagerflow.saving:Checkpoint",
    "CheckpointManager": "eagerflow.saving:CheckpointManager",
    "utils": "eagerflow.utils",
    "distribute": "eagerflow.distribute",
    "backend": "eagerflow.backend",  # Keras's settings (epsilon, floatx, clear_session)
}

if _typing.TYPE_CHECKING:  # what `_LAZY` loads, spelled out for type checkers
    from eagerflow import (
        backend,
        callbacks,
        data,
        datasets,
        distribute,
        image,
        layers,
        losses,
        metrics,
        models,
        nn,
        optim,
        saving,
        summary,
        train,
        utils,
    )
    from eagerflow import optim as optimizers
    from eagerflow import saving as checkpoint
    from eagerflow.graph import function_file as saved_model
    from eagerflow import autograph
    from eagerflow.graph.control_flow import case, cond, while_loop
    from eagerflow.graph.function import (
        function,
        get_static_value,
        gradients,
        name_scope,
        variable_creator_scope,
    )
    from eagerflow.graph.python_ops import numpy_function, print, py_function
    from eagerflow.graph.tensor_array import TensorArray, map_fn
    from eagerflow.layers import Input, activations, constraints, initializers, regularizers
    from eagerflow.models import Model, Sequential
    from eagerflow.saving import Checkpoint, CheckpointManager

# Each public name is declared once, by its import above or its entry in `_LAZY`; the
# package `core` and the modules `absent` and `tensor_shape` are bound here by importing
# them, but are not API namespaces. `ops` is: Keras 3's ops API (`ef.ops.sum`), its op
# families submodules.
__all__ = sorted(({n for n in globals() if not n.startswith("_")}
                  - {"absent", "core", "tensor_shape"}) | set(_LAZY))

_absent_getattr = _absent.namespace_getattr(__name__, "tf", "keras")


def __getattr__(name: str):
    target = _LAZY.get(name)
    if target is None:  # a TensorFlow/Keras name says what to write instead (ef.absent)
        _absent_getattr(name)
    import importlib

    module_name, _, attribute = target.partition(":")
    value = importlib.import_module(module_name)
    if attribute:
        value = getattr(value, attribute)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_LAZY))
