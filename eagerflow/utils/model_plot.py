"""`plot_model`: a picture of a model's graph of layers (Keras's ``keras.utils.plot_model``).

Keras draws through pydot and a system Graphviz; eagerflow lays the graph out itself and
draws it with matplotlib (``pip install 'eagerflow[plot]'``), so no system package is
needed. Layers are placed in ranks by their longest path from the inputs, top to bottom
(``rankdir="TB"``) or left to right (``"LR"``); each box names the layer and its class and
can show its input/output shapes, dtype, activation and trainability.

The boxes and arrows are Keras 3's (checked against `keras.utils.model_to_dot` on a
Sequential, a branching functional and a subclassed model): a Sequential model has no
Input box, a functional one has one per Input, a subclassed one is a single box.

Examples:
    >>> import eagerflow as ef, os, tempfile
    >>> x = ef.Input((4,), name="features")
    >>> model = ef.Model(x, ef.layers.Dense(2, name="out")(x))
    >>> path = os.path.join(tempfile.mkdtemp(), "model.png")
    >>> _ = ef.utils.plot_model(model, path, show_shapes=True)
    >>> open(path, "rb").read(4)
    b'\\x89PNG'
"""

from __future__ import annotations

import os
from typing import Any

from eagerflow.saving import fileio

_FORMATS = ("png", "pdf", "svg", "jpg", "jpeg")


def _import_matplotlib():
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
    except ImportError as e:
        raise ImportError(
            "ef.utils.plot_model needs matplotlib, which is not installed. Install it with: "
            "pip install 'eagerflow[plot]' (no system Graphviz is needed)."
        ) from e
    return Figure, FigureCanvasAgg, FancyBboxPatch, FancyArrowPatch


def _graph(model):
    """``(layers, edges, shapes)``: the boxes in topological order, ``(source, target)``
    index pairs, and per layer the ``(input shapes, output shapes, dtype)`` it was called
    with (None when unknown)."""
    from eagerflow.layers import symbolic
    from eagerflow.models import functional, sequential

    def shapes_of(structure):
        from eagerflow.core import nest
        flat = [t for t in nest.flatten(structure) if hasattr(t, "shape")]
        if not flat:
            return None
        return flat[0].shape if len(flat) == 1 else [t.shape for t in flat]

    def dtype_of(structure):
        from eagerflow.core import nest
        flat = [t for t in nest.flatten(structure) if hasattr(t, "dtype")]
        return flat[0].dtype.name if flat else None

    graph_model = model
    if isinstance(model, sequential.Sequential):
        try:
            inputs, outputs = model.inputs, model.outputs
        except AttributeError:  # built by a call, without symbolic inputs: a plain chain
            layers = model.layers
            edges = [(i, i + 1) for i in range(len(layers) - 1)]
            return layers, edges, [None] * len(layers)
        graph_model = functional.Functional(inputs, outputs, name=model.name)
    elif not isinstance(model, functional.Functional):
        return [model], [], [None]  # a subclassed model is one box, as in Keras
    layers = graph_model.layers
    index = {id(layer): i for i, layer in enumerate(layers)}
    edges = []
    calls: dict[Any, Any] = {}
    for t in graph_model.inputs:
        calls.setdefault(id(t.origin.layer), []).append((None, t.shape, t.dtype.name))
    for node in functional.graph_nodes(graph_model):
        target = index[id(node.layer)]
        for tensor in node.inputs:
            edge = (index[id(tensor.origin.layer)], target)
            if edge not in edges:
                edges.append(edge)
        calls.setdefault(id(node.layer), []).append(
            (shapes_of(node.inputs), shapes_of(node.outputs), dtype_of(node.outputs)))
    shapes = []
    for layer in layers:
        found = calls.get(id(layer), [])
        if len(found) == 1:
            shapes.append(found[0])
        elif found:  # a shared layer: one box, several calls
            shapes.append(("multiple", "multiple", found[0][2]))
        else:
            shapes.append(None)
    if graph_model is not model:  # a Sequential model: no Input box, as in Keras (and as
        # its summary lists no InputLayer row)
        kept = [i for i, layer in enumerate(layers) if not isinstance(layer, symbolic.InputLayer)]
        renumber = {old: new for new, old in enumerate(kept)}
        edges = [(renumber[a], renumber[b]) for a, b in edges if a in renumber and b in renumber]
        layers, shapes = [layers[i] for i in kept], [shapes[i] for i in kept]
    return layers, edges, shapes


def _ranks(count: int, edges: list) -> list:
    rank = [0] * count
    for _ in range(count):  # longest path; edges follow the topological order
        changed = False
        for source, target in edges:
            if rank[target] < rank[source] + 1:
                rank[target] = rank[source] + 1
                changed = True
        if not changed:
            break
    # Then pull each layer down to just above its nearest consumer, so that an input used
    # late (a side input of a merge) sits beside it instead of drawing a long edge.
    for i in reversed(range(count)):
        consumers = [rank[t] for s, t in edges if s == i]
        if consumers and min(consumers) - 1 > rank[i]:
            rank[i] = min(consumers) - 1
    return rank


def _label(layer, shapes, show_shapes, show_dtype, show_layer_names, show_layer_activations,
           show_trainable) -> list:
    class_name = type(layer).__name__
    lines = [f"{layer.name} ({class_name})" if show_layer_names else class_name]
    activation = getattr(layer, "activation", None)
    if show_layer_activations and activation is not None:
        name = getattr(activation, "__name__", type(activation).__name__)
        lines.append(f"Activation: {name}")
    if show_shapes:
        inputs, outputs = (shapes[0], shapes[1]) if shapes else ("?", "?")
        if class_name != "InputLayer":
            lines.append(f"Input shape: {'?' if inputs is None else inputs}")
        lines.append(f"Output shape: {'?' if outputs is None else outputs}")
    if show_dtype:
        lines.append(f"Output dtype: {(shapes[2] if shapes else None) or '?'}")
    if show_trainable and getattr(layer, "weights", None):
        lines.append("Trainable" if layer.trainable else "Non-trainable")
    return lines


def plot_model(model: Any, to_file: str | os.PathLike[str] = "model.png",
               show_shapes: bool = False, show_dtype: bool = False,
               show_layer_names: bool = True, rankdir: str = "TB",
               expand_nested: bool = False, dpi: int = 200, show_layer_activations: bool = False,
               show_trainable: bool = False, **kwargs: Any) -> Any:
    """Draws `model`'s graph of layers to an image file (written atomically).

    Args:
        model: a built model: functional and Sequential models are drawn layer by layer
            (nested models as one box each); a subclassed model is one box, as in Keras.
        to_file: the file; its extension picks the format (png, pdf, svg, jpg; no
            extension means png).
        show_shapes: show each layer's input and output shapes.
        show_dtype: show each layer's output dtype.
        show_layer_names: label boxes ``name (Class)`` rather than ``Class``.
        rankdir: ``"TB"`` (top to bottom) or ``"LR"`` (left to right).
        expand_nested: must be False: nested models are drawn as one box (eagerflow does
            not draw their insides).
        dpi: the resolution of raster formats.
        show_layer_activations: show the activation of layers that have one.
        show_trainable: mark layers with weights as trainable or not.

    Returns:
        An ``IPython.display.Image`` of the file when IPython is installed (so that a
        notebook shows it), else None.

    Raises:
        ValueError: for a model that is not built, an unknown `rankdir` or format,
            ``expand_nested=True`` or unknown keyword arguments.
        ImportError: if matplotlib is not installed (``pip install 'eagerflow[plot]'``).

    Examples:
        >>> import eagerflow as ef, os, tempfile
        >>> model = ef.Sequential([ef.Input((3,)), ef.layers.Dense(2, activation="relu")])
        >>> path = os.path.join(tempfile.mkdtemp(), "m.svg")
        >>> _ = ef.utils.plot_model(model, path, show_layer_activations=True)
        >>> "Activation: relu" in open(path).read()
        True
    """
    if kwargs:
        raise ValueError(f"plot_model: unrecognized keyword arguments {sorted(kwargs)}.")
    if rankdir not in ("TB", "LR"):
        raise ValueError(f"plot_model: rankdir must be 'TB' or 'LR', got {rankdir!r}.")
    if expand_nested:
        raise ValueError("plot_model: expand_nested=True is not supported; eagerflow draws "
                         "each nested model as one box. Plot a nested model on its own to "
                         "see its layers.")
    if not getattr(model, "built", False):
        raise ValueError(f"plot_model: model '{model.name}' has not been built yet. Build "
                         "it first: give it an input shape, call build(), or call it on a "
                         "batch of data.")
    to_file = os.fspath(to_file)
    extension = os.path.splitext(to_file)[1][1:].lower() or "png"
    if extension not in _FORMATS:
        raise ValueError(f"plot_model: cannot write {extension!r} files ({to_file!r}); use "
                         f"one of {', '.join(_FORMATS)}.")
    figure_class, canvas_class, box_patch, arrow_patch = _import_matplotlib()
    layers, edges, shapes = _graph(model)
    labels = [_label(layer, shape, show_shapes, show_dtype, show_layer_names,
                     show_layer_activations, show_trainable)
              for layer, shape in zip(layers, shapes, strict=True)]
    rank = _ranks(len(layers), edges)

    # Sizes in inches: 0.09 in per character, 0.22 in per line.
    widths = [0.4 + 0.09 * max(len(line) for line in lines) for lines in labels]
    heights = [0.25 + 0.22 * len(lines) for lines in labels]
    gap = 0.6
    rows: dict[Any, Any] = {}
    for i, r in enumerate(rank):
        rows.setdefault(r, []).append(i)
    centres: list[Any] = [None] * len(layers)
    if rankdir == "TB":
        row_size = [max(heights[i] for i in rows[r]) for r in sorted(rows)]
        row_span = [sum(widths[i] for i in rows[r]) + gap * (len(rows[r]) - 1)
                    for r in sorted(rows)]
        total_w, total_h = max(row_span) + 2 * gap, sum(row_size) + gap * (len(rows) + 1)
        y = total_h - gap
        for r, size, span in zip(sorted(rows), row_size, row_span, strict=True):
            x = (total_w - span) / 2
            for i in rows[r]:
                centres[i] = (x + widths[i] / 2, y - size / 2)
                x += widths[i] + gap
            y -= size + gap
    else:
        col_size = [max(widths[i] for i in rows[r]) for r in sorted(rows)]
        col_span = [sum(heights[i] for i in rows[r]) + gap * (len(rows[r]) - 1)
                    for r in sorted(rows)]
        total_w, total_h = sum(col_size) + gap * (len(rows) + 1), max(col_span) + 2 * gap
        x = gap
        for r, size, span in zip(sorted(rows), col_size, col_span, strict=True):
            y = total_h - (total_h - span) / 2
            for i in rows[r]:
                centres[i] = (x + size / 2, y - heights[i] / 2)
                y -= heights[i] + gap
            x += size + gap

    figure = figure_class(figsize=(max(total_w, 1.0), max(total_h, 1.0)), dpi=dpi)
    canvas_class(figure)
    axes = figure.add_axes([0, 0, 1, 1])
    axes.set_xlim(0, max(total_w, 1.0))
    axes.set_ylim(0, max(total_h, 1.0))
    axes.axis("off")
    for i, lines in enumerate(labels):
        cx, cy = centres[i]
        axes.add_patch(box_patch((cx - widths[i] / 2, cy - heights[i] / 2), widths[i],
                                 heights[i], boxstyle="round,pad=0.02", linewidth=1.0,
                                 edgecolor="black", facecolor="#f2f2f2"))
        axes.add_patch(box_patch((cx - widths[i] / 2, cy + heights[i] / 2 - 0.33),
                                 widths[i], 0.33, boxstyle="round,pad=0.02", linewidth=0,
                                 facecolor="black"))
        axes.text(cx, cy + heights[i] / 2 - 0.165, lines[0], ha="center", va="center",
                  color="white", fontsize=9, fontweight="bold", family="monospace")
        for k, line in enumerate(lines[1:]):
            axes.text(cx, cy + heights[i] / 2 - 0.33 - 0.22 * (k + 0.6), line,
                      ha="center", va="center", fontsize=8, family="monospace")
    for source, target in edges:
        (sx, sy), (tx, ty) = centres[source], centres[target]
        if rankdir == "TB":
            start, end = (sx, sy - heights[source] / 2), (tx, ty + heights[target] / 2)
        else:
            start, end = (sx + widths[source] / 2, sy), (tx - widths[target] / 2, ty)
        axes.add_patch(arrow_patch(start, end, arrowstyle="-|>", mutation_scale=12,
                                   linewidth=1.0, color="black", shrinkA=2, shrinkB=2))

    def write(temporary):
        with open(temporary, "wb") as f:
            figure.savefig(f, format="jpeg" if extension == "jpg" else extension, dpi=dpi)

    fileio.atomic_write(to_file, write)
    try:
        from IPython import display
    except ImportError:
        return None
    return display.Image(filename=to_file) if extension in ("png", "jpg", "jpeg") else None


