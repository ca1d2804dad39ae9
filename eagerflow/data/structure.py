"""Dataset elements: nested tuples/dicts whose leaves are ndarrays.

Inside a pipeline an element is a structure of tuples, namedtuples and dicts with
NumPy arrays as leaves (never lists: a list given by the user is one tensor, as in
tf.data). Arrays are wrapped into Tensors, without copying, only where user code sees
them: the map/filter/reduce functions and the elements a Python loop receives.

Examples:
    >>> import numpy as np
    >>> from eagerflow.data import structure
    >>> element = structure.from_user((np.zeros(3, np.float32), 1), "example")
    >>> structure.describe(element)
    '(float32[3], int32[])'
    >>> structure.to_tensors(element)[1]
    ef.Tensor(1, shape=(), dtype=int32)
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import buffers, dispatch, dtypes, errors, nest
from eagerflow.core import tensor as tensor_lib
from eagerflow.core.spec import TensorSpec

_ndarray = np.ndarray
_Tensor = tensor_lib.Tensor
_new_tensor = tensor_lib.new_tensor
_read = buffers.read


def map_leaves(fn, element):
    """Applies `fn` to every leaf, keeping the structure (faster than nest for tuples).
    A None component (``(x, None)`` from a map function, as tf.data allows) stays None."""
    if element is None:
        return None
    kind = type(element)
    if kind is tuple:
        return tuple([map_leaves(fn, item) for item in element])
    if kind is dict:
        return {key: map_leaves(fn, value) for key, value in element.items()}
    if isinstance(element, tuple):  # namedtuple
        return kind(*[map_leaves(fn, item) for item in element])
    if isinstance(element, dict):
        return kind((key, map_leaves(fn, value)) for key, value in element.items())
    return fn(element)


def to_tensors(element):
    """Wraps every leaf in a Tensor without copying (elements are never mutated)."""
    # hot path: one call per element a loop receives.
    kind = type(element)
    if kind is _ndarray:
        return _new_tensor(element)
    if kind is tuple:
        return tuple([_new_tensor(x) if type(x) is _ndarray else to_tensors(x) for x in element])
    if element is None:
        return None
    return map_leaves(_new_tensor, element)


def _numpy_leaf(array):
    if array.ndim == 0:
        return array[()]  # a NumPy scalar, as tf.data's as_numpy_iterator gives
    view = array.view()
    view.flags.writeable = False  # the array may be shared with the dataset's source
    return view


def to_numpy(element):
    """Read-only NumPy views of the leaves; scalars become NumPy scalars."""
    return map_leaves(_numpy_leaf, element)


def _convert_leaf(value, what):
    kind = type(value)
    if kind is _Tensor:
        return _read(value)
    if kind is _ndarray:
        if value.dtype.kind in "SUO":  # text is stored as bytes objects (core/dtypes.py)
            return dtypes.to_array(value)
        # A writeable array may be a buffer its owner refills (a generator yielding
        # the same array each time): copy it so that batches hold distinct values.
        return value.copy() if value.flags.writeable else value
    if value is None:
        raise errors.InvalidArgumentError(
            f"{what} produced None, which is not a tensor. Did the function forget to "
            "`return` its result?"
        )
    try:
        return _read(dispatch.convert_input(value))
    except errors.OpError as e:
        raise errors.InvalidArgumentError(f"{what}: {e.message}") from None


def from_user(value, what: str, allow_none: bool = False):
    """Converts a user-given structure (tensors, arrays, Python data) to an element.

    Tuples, namedtuples and dicts are structure; a list is one tensor, as in tf.data.
    `what` names the source in error messages; `allow_none` keeps None components (what
    a map function returns may hold them, as in tf.data).
    """
    if value is None or (not allow_none and any(v is None for v in nest.flatten(value))):
        _convert_leaf(None, what)  # raises
    return map_leaves(lambda leaf: _convert_leaf(leaf, what), value)


def from_function(value, what: str):
    """Converts what a user function returned; a top-level list is read as a tuple."""
    # hot path: one call per mapped element; tensors and tuples of tensors go straight.
    kind = type(value)
    if kind is _Tensor:
        return _read(value)
    if kind is tuple or kind is list:
        leaves = [_read(item) if type(item) is _Tensor else
                  None if item is None else from_user(item, what, True) for item in value]
        return tuple(leaves)
    return from_user(value, what, allow_none=True)


def _dtype_key(dtype):
    # Strings of any kind and length are one type, ef.string.
    return dtypes.string if dtype.kind in "SUO" else dtype


def signature(element):
    """A hashable summary of the structure and leaf dtypes (not the shapes, nor the order
    of dict keys)."""
    kind = type(element)
    if kind is _ndarray:
        return _dtype_key(element.dtype)
    if kind is tuple:
        return (tuple, tuple([_dtype_key(item.dtype) if type(item) is _ndarray
                              else signature(item) for item in element]))
    if isinstance(element, tuple):
        return (kind, tuple([signature(item) for item in element]))
    if isinstance(element, dict):  # in nest.flatten's key order: insertion order is no part
        return (kind, tuple((key, signature(element[key])) for key in nest.sorted_keys(element)))
    return kind


def spec_dtype(dtype: np.dtype) -> dtypes.DType:
    """The dtype a spec shows: `ef.string` for text."""
    return dtypes.public(dtype)


def spec_of(element):
    """The nested `TensorSpec` of one element."""
    return map_leaves(lambda a: TensorSpec(a.shape, spec_dtype(a.dtype)), element)


def _describe_leaf(array) -> str:
    dims = ", ".join(str(d) for d in array.shape)
    return f"{spec_dtype(array.dtype).name}[{dims}]"


def describe(element) -> str:
    """A short text for error messages, e.g. ``(float32[3], int64[])``."""
    kind = type(element)
    if kind is _ndarray:
        return _describe_leaf(element)
    if isinstance(element, tuple):
        inner = ", ".join(describe(item) for item in element)
        if kind is tuple:
            return f"({inner},)" if len(element) == 1 else f"({inner})"
        return f"{kind.__name__}({inner})"
    if isinstance(element, dict):
        return "{" + ", ".join(f"{key!r}: {describe(v)}" for key, v in element.items()) + "}"
    return repr(element)


def leaf_paths(element, prefix: str = "") -> list:
    """Names of the leaves in `nest.flatten` order, e.g. ``["[0]", "['label']"]``."""
    if isinstance(element, dict):
        keys = nest.sorted_keys(element)
        return [p for k in keys for p in leaf_paths(element[k], f"{prefix}[{k!r}]")]
    if isinstance(element, tuple):
        return [p for i, item in enumerate(element) for p in leaf_paths(item, f"{prefix}[{i}]")]
    return [prefix or "element"]


def flattener(example):
    """A function flattening elements shaped like `example` into a list of leaves."""
    if type(example) is _ndarray:
        return lambda element: [element]
    if type(example) is tuple and all(type(x) is _ndarray for x in example):
        return list
    return nest.flatten


def packer(example):
    """The inverse of `flattener(example)`: a list of leaves to an element."""
    if type(example) is _ndarray:
        return lambda leaves: leaves[0]
    if type(example) is tuple and all(type(x) is _ndarray for x in example):
        return tuple
    return lambda leaves: nest.pack_sequence_as(example, leaves)


def call(fn, element):
    """Calls a user function on an element: a tuple is unpacked into arguments (tf.data)."""
    tensors = to_tensors(element)
    if type(tensors) is tuple:
        return fn(*tensors)
    return fn(tensors)


def is_string(dtype) -> bool:
    """Whether `dtype` holds strings (bytes, str, or an object array of them)."""
    return dtypes.as_dtype(dtype).kind in "SUO"
