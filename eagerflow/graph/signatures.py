"""Arguments of `ef.function`: binding, cache keys, input signatures.

A call's cache key encodes each argument: tensors (and NumPy arrays) by shape and dtype,
variables by identity, Python values by value, and lists, tuples and dicts by structure.
With an input signature the key is fixed and arguments are checked against it.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.graph import signatures
    >>> tensors = []
    >>> signatures.encode([ef.zeros([2, 3]), 4], tensors, allow_specs=False)
    ('list', (((2, 3), dtype('float32')), ('python', <class 'int'>, 4)))
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import dispatch, errors, nest, spec, tensor
from eagerflow.graph import graph

_Tensor = tensor.Tensor


def bind(signature, name, args, kwargs):
    """The arguments as a flat list (``*args`` spread out, defaults applied), their
    names, and the layout `rebuild_call` needs to call the function with them."""
    if signature is None:
        names = [f"arg{i}" for i in range(len(args))] + sorted(kwargs)
        return list(args) + [kwargs[k] for k in sorted(kwargs)], names, len(args)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{name}(): {e}") from None
    bound.apply_defaults()
    values, names, layout = [], [], []
    for param_name, value in bound.arguments.items():
        param = signature.parameters[param_name]
        if param.kind == param.VAR_POSITIONAL:
            values.extend(value)
            names.extend(f"{param_name}_{i}" for i in range(len(value)))
            layout.append((param, len(value)))
        else:
            values.append(value)
            names.append(param_name)
            layout.append((param, 1))
    return values, names, layout


def signature_key(name, signature, values, names, allow_specs):
    """Checks `values` against the input `signature`; returns the (fixed) key and the
    tensors (converted to the signature's dtypes) or TensorSpecs for the placeholders."""
    if len(values) < len(signature):
        raise TypeError(
            f"{name}() takes {len(values)} arguments but its input_signature has "
            f"{len(signature)} entries"
        )
    tensors = []
    for value, expected, arg in zip(values, signature, names, strict=False):
        try:
            leaves = nest.flatten(value) if nest.is_nested(expected) else [value]
            specs = nest.flatten(expected)
            nest.map_structure(lambda a, b: None, expected, value)
        except ValueError:
            raise TypeError(
                f"{name}(): argument {arg!r} must have the structure of its "
                f"input_signature entry {expected!r}, got {value!r}"
            ) from None
        for leaf, want in zip(leaves, specs, strict=False):
            if isinstance(leaf, spec.TensorSpec) and allow_specs:
                leaf = spec.TensorSpec(leaf.shape, leaf.dtype)
                compatible = want.is_compatible_with(leaf)
                tensors.append(leaf)
            else:
                try:
                    leaf = dispatch.convert_input(leaf, dtype=want.dtype) if not isinstance(
                        leaf, _Tensor) else leaf
                except errors.OpError:
                    leaf = None
                compatible = leaf is not None and want.is_compatible_with(leaf)
                tensors.append(leaf)
            if not compatible:
                got = (graph.format_spec(leaf.shape, leaf.dtype) if leaf is not None
                       and leaf.shape is not None else repr(leaf))
                raise TypeError(  # TensorFlow's error type for a call its signature refuses
                    f"{name}(): argument {arg!r} does not match its input_signature: "
                    f"expected {graph.format_spec(want.shape, want.dtype)}, got {got}"
                )
    return ("signature",), tensors


def rebuild_call(values, layout, names):
    """Positional and keyword arguments from `bind`'s flat values."""
    if isinstance(layout, int):  # no signature: `layout` positional values, then keywords
        return values[:layout], dict(zip(names[layout:], values[layout:], strict=True))
    call_args, call_kwargs = [], {}
    position = 0
    for param, count in layout:
        items = values[position:position + count]
        position += count
        if param.kind == param.VAR_POSITIONAL:
            call_args.extend(items)
        elif param.kind == param.VAR_KEYWORD:
            call_kwargs.update(items[0])
        elif param.kind == param.KEYWORD_ONLY:
            call_kwargs[param.name] = items[0]
        else:
            call_args.append(items[0])
    return call_args, call_kwargs


def check_signature(signature, name):
    """Validates an `input_signature` argument; returns it as a tuple (or None)."""
    if signature is None:
        return None
    if not isinstance(signature, (list, tuple)):
        raise TypeError(
            f"ef.function({name}): input_signature must be a list or tuple of ef.TensorSpec, "
            f"got {type(signature).__name__}: {signature!r}"
        )
    for leaf in nest.flatten(list(signature)):
        if not isinstance(leaf, spec.TensorSpec):
            raise TypeError(
                f"ef.function({name}): input_signature entries must be ef.TensorSpec, got "
                f"{type(leaf).__name__}: {leaf!r}"
            )
        if leaf.shape is None:
            raise errors.InvalidArgumentError(
                f"ef.function({name}): {leaf!r} has an unknown rank; give its shape as a list "
                "with None for unknown dimensions"
            )
    return tuple(signature)


def is_tensor_leaf(value, allow_specs=False) -> bool:
    if isinstance(value, (_Tensor, np.ndarray, np.generic)):
        return True
    return allow_specs and isinstance(value, spec.TensorSpec)


def encode(value, tensors, allow_specs):
    """The cache-key part of one argument; appends its tensors to `tensors`."""
    if type(value) is _Tensor or isinstance(value, (np.ndarray, np.generic)):
        if not isinstance(value, _Tensor):
            value = dispatch.convert_input(value)
        tensors.append(value)
        array = value._value
        return (array.shape, array.dtype)
    if isinstance(value, _Tensor):  # a symbolic tensor of a finished trace
        raise errors.InvalidArgumentError(
            f"{value!r} is a symbolic tensor from another traced function; it cannot be "
            "passed to an ef.function outside that function's trace"
        )
    if allow_specs and isinstance(value, spec.TensorSpec):
        if value.shape is None:
            raise errors.InvalidArgumentError(f"{value!r} needs a known rank")
        tensors.append(value)
        return (value.shape, value.dtype)
    if hasattr(value, "_read") and hasattr(value, "assign"):  # a Variable: by identity
        return ("variable", id(value))
    if isinstance(value, dict):
        keys = nest.sorted_keys(value)
        return ("dict", tuple(keys), tuple(encode(value[k], tensors, allow_specs) for k in keys))
    if isinstance(value, (list, tuple)):
        kind = type(value).__name__
        return (kind, tuple(encode(v, tensors, allow_specs) for v in value))
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return ("python", type(value), value)


def generic(key):
    """`key` with tensor shapes reduced to their ranks (for reduce_retracing)."""
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], np.dtype):
        return (len(key[0]), key[1])
    if isinstance(key, tuple):
        return tuple(generic(k) for k in key)
    return key


def fits(spec_, tensor_) -> bool:
    shape, dtype = spec_
    return tensor_.dtype == dtype and len(tensor_.shape) == len(shape) and all(
        a is None or a == b for a, b in zip(shape, tensor_.shape, strict=False))


def map_leaves(value, fn, name):
    """`value` with `fn(leaf, name)` applied to every leaf, in `nest.flatten` order."""
    if isinstance(value, dict):
        mapped = {k: map_leaves(value[k], fn, f"{name}_{k}") for k in nest.sorted_keys(value)}
        return {k: mapped[k] for k in value}
    if isinstance(value, (list, tuple)):
        items = [map_leaves(v, fn, f"{name}_{i}") for i, v in enumerate(value)]
        if isinstance(value, list):
            return items
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return fn(value, name)


def describe(value) -> str:
    if isinstance(value, (_Tensor, np.ndarray)):
        return graph.format_spec(value.shape, value.dtype)
    if hasattr(value, "_read") and hasattr(value, "assign"):
        return f"variable {value.name!r} at {id(value):#x}"
    if isinstance(value, (list, tuple, dict)):  # tensors inside as specs, not values
        leaves = ", ".join(describe(v) for v in nest.flatten(value))
        text = f"{type(value).__name__} [{leaves}]"
        return text if len(text) <= 120 else text[:117] + "..."
    return f"{type(value).__name__} {value!r}"[:60]
