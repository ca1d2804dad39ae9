"""`Model.summary()`: a table of layers, output shapes and parameter counts.

Shapes come from where they are known: the graph of a functional or Sequential model
(None for the batch axis), or, for subclassed and deferred-build models, the log of
real shapes made during the first call or a ``build(input_shape)`` dry run. A layer
called several times shows each distinct output shape.

The rows, names, shapes, parameter counts (``16,448``) and totals are Keras 3's, checked
against Keras 3.15 on a Sequential, a branching functional and a subclassed model
(tests/models/test_summary_table.py). What differs on purpose: the table is plain text,
not Keras's box-drawn `rich` table (it reads the same in a log file, and needs no `rich`);
a functional model lists its Input layers first, as its `layers` do (Keras lists each
just before its first consumer); and the inbound layers of a merge stand one per line.

Examples:
    >>> import eagerflow as ef
    >>> x = ef.layers.Input(shape=(3,), name="x")
    >>> model = ef.models.Model(x, ef.layers.Dense(2, name="d")(x), name="net")
    >>> model.summary(line_length=60)
    Model: "net"
    ____________________________________________________________
     Layer (type)            Output Shape              Param #
    ============================================================
     x (InputLayer)          (None, 3)                       0
     d (Dense)               (None, 2)                       8
    ============================================================
    Total params: 8 (32.00 B)
    Trainable params: 8 (32.00 B)
    Non-trainable params: 0 (0.00 B)
    ____________________________________________________________
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.layers import layer_info, ownership, symbolic


def _format_shape(shape) -> str:
    if shape is None:
        return "?"
    if isinstance(shape, dict):
        return "{" + ", ".join(f"{k}: {_format_shape(v)}" for k, v in shape.items()) + "}"
    if isinstance(shape, list) or (isinstance(shape, tuple) and shape and all(
            isinstance(s, (tuple, list)) or s is None for s in shape) and any(
            isinstance(s, (tuple, list)) for s in shape)):  # (None, None) is one shape
        return "[" + ", ".join(_format_shape(s) for s in shape) + "]"
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ")"


def _shapes_text(shapes: list) -> str:
    if not shapes:
        return "?"
    distinct = []
    for shape in shapes:
        if shape not in distinct:
            distinct.append(shape)
    text = " | ".join(_format_shape(s) for s in distinct)
    return text + (f" x{len(shapes)}" if len(shapes) > 1 and len(distinct) == 1 else "")


def _byte_size(variables) -> str:
    size = float(sum(int(np.prod(v.shape)) * v.dtype.itemsize for v in variables))
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} GB"


def _param_text(layer) -> str:
    if not layer.built:
        return "(unbuilt)"
    return f"{sum(int(np.prod(v.shape)) for v in layer.variables):,}"  # 16,448 as in Keras


def _graph_rows(model) -> list:
    """Rows of a functional model: one per layer, shapes and inbound layers from nodes."""
    from eagerflow.models import functional_config

    node_set = set(map(id, model._nodes))
    indices = functional_config._node_indices(model)
    rows = []
    for layer in model._functional_layers:
        nodes = [n for n in layer_info.inbound_nodes(layer) if id(n) in node_set]
        if isinstance(layer, symbolic.InputLayer):
            shapes, connected = [layer.output.shape], []
        else:
            shapes = [_output_shape(n.outputs) for n in nodes]
            origins = [t.origin for n in nodes for t in n.inputs]
            connected = [f"{o.layer.name}[{indices[(id(o.layer), o.node_index)]}]"
                         f"[{o.tensor_index}]" for o in origins]
        rows.append((layer, _shapes_text(shapes), connected))
    return rows


def _output_shape(outputs):
    if getattr(outputs, "_is_symbolic", False):
        return outputs.shape
    if isinstance(outputs, dict):
        return {k: v.shape for k, v in outputs.items()}
    return [t.shape if t is not None else None for t in outputs]


def _logged_rows(model, layers) -> list:
    log = layer_info.call_shapes(model) or []
    rows: list[Any] = []
    for layer in layers:
        shapes = [entry[2] for entry in log if entry[0] is layer]
        rows.append((layer, _shapes_text(shapes), []))
    return rows


def _rows(model) -> list:
    if hasattr(model, "_functional_layers"):
        return _graph_rows(model)
    graph_outputs = getattr(model, "_graph_outputs", None)
    if graph_outputs and len(graph_outputs) == len(model._layers):
        return [(layer, _format_shape(out.shape), [])
                for layer, out in zip(model._layers, graph_outputs, strict=True)]
    return _logged_rows(model, model.layers)


def _sequential_like(model, rows) -> bool:
    if not hasattr(model, "_functional_layers"):
        return True
    if len(model._flat_inputs) > 1 or len(model._flat_outputs) > 1:
        return False
    return all(len(connected) <= 1 for _, _, connected in rows)


def _table(model, rows, with_connections, show_trainable, expand_nested, indent="") -> list:
    """The table's cell texts, one list per printed line."""
    lines = []
    for layer, shape_text, connected in rows:
        fields = [f"{indent}{layer.name} ({_type_name(layer)})", shape_text, _param_text(layer)]
        if with_connections:
            fields.append(connected[0] if connected else "-")
        if show_trainable:
            fields.append("Y" if layer.trainable else "N")
        lines.append(fields)
        for extra in connected[1:]:
            lines.append(["", "", "", extra] + ([""] if show_trainable else []))
        if expand_nested and _is_model(layer) and layer.built:
            lines.extend(_table(layer, _rows(layer), with_connections, show_trainable, True,
                                indent + "  "))
    return lines


def print_summary(model, line_length=None, positions=None, print_fn=None,
                  expand_nested=False, show_trainable=False) -> None:
    """Prints `model`'s summary table; see `Model.summary`."""
    if not model.built:
        raise ValueError(
            f"Model '{model.name}' has not been built yet, so it has no weights or shapes to "
            "show. Call it on a batch of data, call `model.build(input_shape)`, or use "
            "`model.summary(input_shape=...)`.")
    print_fn = print_fn or print
    rows = _rows(model)
    headers = ["Layer (type)", "Output Shape", "Param #"]
    with_connections = not _sequential_like(model, rows)
    if with_connections:
        headers.append("Connected to")
    if show_trainable:
        headers.append("Trainable")
    lines = _table(model, rows, with_connections, show_trainable, expand_nested)
    if positions is None and line_length is None:
        # Wide enough for every cell: nothing is cut.
        widths = [max(len(str(line[i])) for line in [headers, *lines]) + 3
                  for i in range(len(headers))]
        line_length = sum(widths)
    else:
        line_length = line_length or 72
        if positions is None:
            positions = [0.4, 0.75, 1.0] if not with_connections else [0.3, 0.55, 0.67, 1.0]
            if show_trainable:
                positions = [p * 0.9 for p in positions] + [1.0]
        if positions[-1] <= 1:
            positions = [int(line_length * p) for p in positions]
        widths = [b - a for a, b in zip([0, *positions[:-1]], positions, strict=True)]

    def emit(fields, align_right=(2,)):
        line = ""
        for index, (field, width) in enumerate(zip(fields, widths, strict=False)):
            text = str(field)
            if index in align_right:
                text = text.rjust(width - 2) + "  "
            else:
                text = (" " + text).ljust(width)
            line += text if index == len(widths) - 1 else text[:width]
        print_fn(line.rstrip())

    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    emit(headers)
    print_fn("=" * line_length)
    for fields in lines:
        emit(fields, align_right=(2,) if fields[0] else ())
    variables = model.variables
    trainable = model.trainable_variables
    frozen = model.non_trainable_variables
    print_fn("=" * line_length)
    print_fn(f"Total params: {_count(variables):,} ({_byte_size(variables)})")
    print_fn(f"Trainable params: {_count(trainable):,} ({_byte_size(trainable)})")
    print_fn(f"Non-trainable params: {_count(frozen):,} ({_byte_size(frozen)})")
    print_fn("_" * line_length)


def _count(variables) -> int:
    return sum(int(np.prod(v.shape)) for v in variables)


def _is_model(layer) -> bool:
    return hasattr(layer, "get_layer") and bool(ownership.sublayers(layer))


def _type_name(layer) -> str:
    return type(layer).__name__
