"""The functional API's building blocks: `Input`, symbolic tensors and the nodes between them.

``x = ef.layers.Input(shape=(784,))`` returns a `SymbolicTensor`: a shape (None for sizes
not known yet, such as the batch) and a dtype, with no value. Calling a layer on
symbolic tensors builds the layer, adds a `Node` (layer, arguments, outputs) and
returns symbolic outputs; `ef.models.Model(inputs, outputs)` then walks the nodes back
from the outputs.

There is no symbolic execution engine: the output shape of a layer call is found by
running the layer on small dummy inputs, twice, with different sizes in place of each
unknown dimension; an output dimension that changes with them is unknown (None). This is
the tracer's mechanism too (`eagerflow/graph/shape_probe.py`), at sizes fit for layers.
The probes run with the training flag off and without updating any state, and they exercise
exactly the code that later runs on real data, so shapes can never disagree with `call`.

Examples:
    >>> import eagerflow as ef
    >>> x = ef.layers.Input(shape=(784,), name="pixels")
    >>> x
    <SymbolicTensor name=pixels, shape=(None, 784), dtype=float32>
    >>> ef.layers.Dense(10)(x).shape
    (None, 10)
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from eagerflow import backend
from eagerflow.core import context, dtypes, nest, tensor
from eagerflow.graph import shape_probe
from eagerflow.layers import base, call_context, masking
from eagerflow.ops.typing import DTypeLike
from eagerflow.saving import load_budget

class Origin(NamedTuple):
    """Where a `SymbolicTensor` comes from: output `tensor_index` of call `node_index` of
    `layer` (Keras's ``KerasHistory``)."""

    layer: Any
    node_index: int
    tensor_index: int


class SymbolicTensor:
    """A placeholder for a tensor in a functional model: shape and dtype, no value.

    Attributes:
        shape: tuple of ints, None for unknown sizes (the batch axis, usually).
        dtype: a NumPy dtype.
        name: the name of the layer that produced it.
        origin: where it comes from, an `Origin` ``(layer, node_index, tensor_index)``:
            the layer whose call produced it, which call of that layer (an index into
            its `Node` list, `layer_info.inbound_nodes`) and which of that call's
            outputs it is (Keras's ``_keras_history``); None for a bare placeholder.
        ndim: the rank.
    """

    _is_symbolic = True
    __slots__ = ("_mask_shape", "dtype", "name", "origin", "shape")

    def __init__(self, shape: Sequence[int | None], dtype: DTypeLike = dtypes.float32,
                 name: str | None = None, origin: Origin | None = None,
                 mask_shape: Any = None) -> None:
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name
        self.origin = origin
        self._mask_shape = mask_shape

    @property
    def ndim(self) -> int:
        """The number of dimensions (the rank), batch axis included."""
        return len(self.shape)

    @property
    def _keras_mask(self):
        """The mask the layers attach at this point of the graph, as a symbolic boolean
        placeholder (Keras's attribute), or None when no mask reaches here."""
        if self._mask_shape is None:
            return None
        return SymbolicTensor(self._mask_shape, dtypes.bool, name=f"{self.name}_mask")

    def __repr__(self) -> str:
        return f"<SymbolicTensor name={self.name}, shape={self.shape}, dtype={self.dtype.name}>"

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            f"{self!r} is a symbolic placeholder of a functional model and has no value, so "
            "it cannot be passed to eagerflow or NumPy functions. Call layers on it, and "
            "wrap other computations in a layer: ef.layers.Lambda(lambda t: ...)(x).")

    def __bool__(self) -> bool:
        raise TypeError(
            f"{self!r} has no value, so it cannot be used as a Python bool (in `if` or "
            "`while`). Use data-independent control flow in functional models, or write a "
            "subclassed Model.")

    def __iter__(self):
        raise TypeError(f"{self!r} has no value and cannot be iterated over.")

    __hash__ = object.__hash__


class Node:
    """One call of a layer on symbolic tensors.

    Attributes:
        layer: the layer called.
        args: positional arguments (symbolic tensors in place), first the inputs.
        kwargs: keyword arguments (may hold symbolic tensors too).
        outputs: the symbolic outputs (a tensor or a structure).
        inputs: the symbolic tensors among the arguments, flattened.
    """

    __slots__ = ("args", "inputs", "kwargs", "layer", "outputs")

    def __init__(self, layer, args, kwargs, outputs):
        self.layer = layer
        self.args = args
        self.kwargs = kwargs
        self.outputs = outputs
        self.inputs = symbolic_leaves([list(args), kwargs])

    @property
    def flat_outputs(self) -> list:
        return nest.flatten(self.outputs)

    @property
    def inbound_layers(self) -> list:
        return [t.origin.layer for t in self.inputs]


def symbolic_leaves(structure) -> list:
    """The SymbolicTensors inside `structure` (dicts in insertion order), each once."""
    found, seen = [], set()
    stack = [structure]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        elif getattr(item, "_is_symbolic", False) and id(item) not in seen:
            seen.add(id(item))
            found.append(item)
    return found


def replace_symbolic(structure, mapping):
    """`structure` with every SymbolicTensor replaced by ``mapping[id(tensor)]``."""
    if isinstance(structure, dict):
        return {k: replace_symbolic(v, mapping) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        items = [replace_symbolic(v, mapping) for v in structure]
        return items if isinstance(structure, list) else type(structure)(items)
    if getattr(structure, "_is_symbolic", False):
        return mapping[id(structure)]
    return structure


def _probe_shape(shape, which: int) -> tuple:
    batch, other = shape_probe.LAYER_SIZES[which]
    return shape_probe.concrete(shape, other, batch_size=batch)


def _dummy(symbolic: SymbolicTensor, which: int):
    shape = _probe_shape(symbolic.shape, which)
    load_budget.charge(shape, symbolic.dtype, f"a dummy input of shape {shape}",
                       transient=True)
    value = tensor.new_tensor(shape_probe.dummy(shape, symbolic.dtype, fill="ones"))
    if symbolic._mask_shape is not None:
        mask = np.ones(_probe_shape(symbolic._mask_shape, which), bool)
        masking.set_mask(value, tensor.new_tensor(mask))
    return value


def infer(layer, args, kwargs, shape_logs=None):
    """Runs the probes; returns the output structure and one ``(shape, dtype, mask_shape)``
    per output leaf (None for leaves that are not tensors).

    With a `shape_logs` list, each probe also logs the shapes of every layer call inside it
    (see `merge_shape_logs`)."""
    # During a load, budget errors of the build and the probes name the layer.
    with load_budget.site(f"layer {layer.name!r} (finding its output shape)"):
        return _infer(layer, args, kwargs, shape_logs)


def _infer(layer, args, kwargs, shape_logs):
    leaves = symbolic_leaves([list(args), kwargs])
    if not layer.built:
        inputs = args[0]
        shapes = nest.map_structure(
            lambda t: t.shape if getattr(t, "_is_symbolic", False) else None, inputs)
        if layer._input_spec is not None:
            from eagerflow.layers import input_spec

            input_spec.assert_input_compatibility(layer._input_spec, inputs, layer.name)
        layer._build_from_shape(shapes)
    known = all(shape_probe.is_known(t.shape) for t in leaves)
    runs = []
    for which in ((0,) if known else (0, 1)):
        mapping = {id(t): _dummy(t, which) for t in leaves}
        try:
            with call_context.probing(), np.errstate(all="ignore"), _maybe_logging(
                    shape_logs) as log:
                outputs = layer(*replace_symbolic(list(args), mapping),
                                **replace_symbolic(kwargs, mapping))
            if shape_logs is not None:
                shape_logs.append(log)
        except Exception as e:
            if hasattr(e, "add_note"):
                e.add_note(
                    f"(raised while calling layer '{layer.name}' on symbolic inputs of shapes "
                    f"{[t.shape for t in leaves]}: their output shape is found by running the "
                    f"layer on dummy inputs of shapes "
                    f"{[_probe_shape(t.shape, which) for t in leaves]})")
            raise
        runs.append(outputs)
    specs: list[Any] = []
    for a, b in zip(nest.flatten(runs[0]), nest.flatten(runs[-1]), strict=False):
        if a is None or not hasattr(a, "shape"):
            specs.append(None)
            continue
        mask_a, mask_b = masking.get_mask(a), masking.get_mask(b)
        mask_shape = None if mask_a is None else shape_probe.merge(mask_a.shape, mask_b.shape)
        specs.append((shape_probe.merge(a.shape, b.shape), a.dtype, mask_shape))
    return runs[0], specs


@contextlib.contextmanager
def _maybe_logging(shape_logs):
    if shape_logs is None:
        yield None
        return
    with call_context.logging_shapes() as log:
        yield log


def merge_shape_logs(shape_logs: list) -> list:
    """One shape log from the probes' logs: sizes that differ become None."""
    if not shape_logs:
        return []
    first, last = shape_logs[0], shape_logs[-1]
    if len(first) != len(last):  # data-dependent control flow: keep the first probe's
        return first

    def merge(a, b):
        if isinstance(a, tuple) and all(isinstance(d, int) or d is None for d in a):
            return shape_probe.merge(a, b) if isinstance(b, tuple) and len(a) == len(b) else a
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
            return type(a)(merge(x, y) for x, y in zip(a, b, strict=True))
        if isinstance(a, dict) and isinstance(b, dict):
            return {k: merge(a[k], b.get(k, a[k])) for k in a}
        return a

    return [(a[0], merge(a[1], b[1]), merge(a[2], b[2])) for a, b in zip(first, last, strict=True)]


def call_symbolic(layer, inputs, args, kwargs):
    """Calls `layer` on symbolic tensors: adds a Node and returns symbolic outputs."""
    call_args = (inputs, *args)
    template, specs = infer(layer, call_args, kwargs)
    index = len(layer._inbound_nodes)
    flat = [None if spec is None else SymbolicTensor(
        spec[0], spec[1], layer.name, Origin(layer, index, position), spec[2])
        for position, spec in enumerate(specs)]
    outputs = nest.pack_sequence_as(template, flat)
    layer._inbound_nodes.append(Node(layer, call_args, kwargs, outputs))
    return outputs


def probe_output_shapes(layer, input_shape):
    """Output shape(s) of `layer` for input shape(s) with None for unknown sizes."""
    def to_symbolic(shape):
        return SymbolicTensor(shape, layer.dtype if layer.dtype.kind == "f" else dtypes.float32)

    if isinstance(input_shape, (list, tuple)) and input_shape and all(
            isinstance(s, (list, tuple)) for s in input_shape):
        inputs = [to_symbolic(s) for s in input_shape]
    else:
        inputs = to_symbolic(tuple(input_shape))
    template, specs = infer(layer, (inputs,), {})
    shapes = [None if s is None else s[0] for s in specs]
    if not nest.is_nested(template):
        return shapes[0]
    return nest.pack_sequence_as(nest.map_structure(lambda _: 0, template), shapes)


class InputLayer(base.Layer):
    """The layer behind `Input`: it produces the model's input placeholder.

    Args:
        shape: shape of one example (without the batch axis).
        batch_size: optional fixed batch size.
        dtype: dtype of the input (default float32).
        sparse: must be falsy (sparse inputs are not supported).
        batch_shape: full shape including the batch axis (instead of shape/batch_size).
        name: the layer's name.

    Raises:
        ValueError: when no shape is given, or for sparse inputs.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.InputLayer(shape=(3,), name="features")
        >>> layer.output
        <SymbolicTensor name=features, shape=(None, 3), dtype=float32>
    """

    def __init__(self, shape: int | Sequence[int | None] | None = None, batch_size: Any = None,
                 dtype: DTypeLike = None, sparse: Any = None, batch_shape: Any = None,
                 name: str | None = None, input_tensor: Any = None, **kwargs: Any) -> None:
        shape = kwargs.pop("input_shape", shape)
        batch_shape = kwargs.pop("batch_input_shape", batch_shape)
        if isinstance(dtype, str) and dtype == "string":  # Keras's name for text inputs
            dtype = dtypes.string
        super().__init__(name=name, dtype=dtype, **kwargs)
        if sparse:
            raise ValueError("Sparse inputs are not supported by eagerflow; pass dense data.")
        if batch_shape is None:
            if shape is None:
                raise ValueError(
                    "An Input needs a shape: ef.layers.Input(shape=(features,)) (without the "
                    "batch axis), or batch_shape=(batch, features).")
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            batch_shape = (batch_size, *shape)
        self.built = True
        self._input_dtype = dtypes.as_dtype(backend.floatx() if dtype is None else dtype)
        self.batch_shape = tuple(None if d is None else int(d) for d in batch_shape)
        tensor = SymbolicTensor(self.batch_shape, self._input_dtype, self.name,
                                Origin(self, 0, 0))
        self._inbound_nodes.append(Node(self, (), {}, tensor))

    @property
    def input(self) -> Any:
        """The placeholder this layer produces (its input and its output)."""
        return self.output

    def call(self, inputs: Any) -> Any:
        return inputs

    def get_config(self) -> dict:
        return {"batch_shape": list(self.batch_shape), "dtype": self._input_dtype.name,
                "sparse": False, "name": self.name}


def Input(shape: int | Sequence[int | None] | None = None, batch_size: Any = None,
          dtype: DTypeLike = None, sparse: Any = None, batch_shape: Any = None,
          name: str | None = None, tensor: Any = None) -> Any:
    """Creates the input placeholder of a functional model.

    Args:
        shape: shape of one example, without the batch axis (None entries: variable
            sizes, e.g. sequence length).
        batch_size: optional fixed batch size.
        dtype: input dtype (default float32; ``"int32"`` for token ids, ``"string"`` for
            text: arrays of str or bytes).
        sparse: must be falsy.
        batch_shape: full shape including the batch axis, instead of shape/batch_size.
        name: name of the input (keys of dict inputs).
        tensor: unsupported; must be None.

    Returns:
        A `SymbolicTensor` to call layers on.

    Raises:
        ValueError: without a shape, or for sparse inputs or an existing tensor.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.layers.Input(shape=(4,))
        >>> y = ef.layers.Dense(2)(x)
        >>> model = ef.models.Model(x, y)
        >>> model(ef.ones([3, 4])).shape
        (3, 2)
    """
    if tensor is not None:
        raise ValueError("Input(tensor=...) is not supported; call the model on the tensor.")
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse,
                       batch_shape=batch_shape, name=name)
    return layer.output
