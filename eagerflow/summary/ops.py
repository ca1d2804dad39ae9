"""Summary ops: `scalar`, `histogram`, `image`, `text`, written to the default writer.

Each op returns True when it wrote a summary and False when nothing was recorded (no
default writer, or a `record_if` condition said no), like TensorFlow's. The protobufs are
TensorBoard's classic forms, which every TensorBoard version reads: a simple value for
scalars, a histogram proto, PNG-encoded images, and a string tensor for the text plugin.

Examples:
    >>> import eagerflow as ef, numpy as np, tempfile
    >>> with ef.summary.create_file_writer(tempfile.mkdtemp()).as_default(step=0):
    ...     ef.summary.histogram("weights", np.arange(10.0))
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.core import context, errors, tensor
from eagerflow.core.variable import Variable
from eagerflow.summary import png, records, writer

DEFAULT_BUCKET_COUNT = 30  # TensorFlow 2's default for tf.summary.histogram


def _check_name(name, op_name: str) -> str:
    if not isinstance(name, str) or not name:
        raise errors.InvalidArgumentError(
            f"ef.summary.{op_name}: name must be a non-empty string. Received: name={name!r}"
        )
    return name


def _write(op_name: str, name, step, build) -> bool:
    """Resolves writer, step and recording condition, then writes `build()` if due."""
    _check_name(name, op_name)
    target = writer.default_writer()
    if target is None:
        return False
    step = writer.resolve_step(step, op_name)
    if not writer.should_record_summaries(step):
        return False
    target.write_summary(build(), step)
    return True


def _traced(op, name, data, step, **kwargs):
    """Inside `ef.function`: the summary becomes an effect of the graph, ordered with the
    others, that writes on every call with the values of that call (the default writer,
    default step and recording condition are those in force when the graph runs).
    Returns the bool tensor "written"."""
    from eagerflow.graph import python_ops

    _check_name(name, op.__name__)
    inputs: list[Any] = []
    slots: dict[Any, Any] = {}
    for key, value in (("data", data), ("step", step)):
        if isinstance(value, (tensor.Tensor, Variable)):
            slots[key] = len(inputs)
            inputs.append(value)

    def write(*values):
        data_now = values[slots["data"]] if "data" in slots else data
        step_now = int(values[slots["step"]]) if "step" in slots else step
        return op(name, data_now, step=step_now, **kwargs)

    return python_ops.py_function(write, inputs, "bool")


def _numeric(data, op_name: str, name: str) -> np.ndarray:
    values = np.asarray(data)
    if values.dtype.kind not in "biuf":
        raise errors.InvalidArgumentError(
            f"ef.summary.{op_name} {name!r}: data must be numeric. "
            f"Received dtype {values.dtype}"
        )
    return values


def scalar(name: str, data: Any, step: Any = None, description: str | None = None) -> bool:
    """Writes one scalar value (a point of a TensorBoard curve).

    Args:
        name: the series name, e.g. ``"loss"`` or ``"train/loss"``.
        data: a number, or a tensor/variable/array with exactly one element.
        step: the step (x coordinate); defaults to the default step.
        description: optional longer description shown in TensorBoard.

    Returns:
        True if written, False if nothing was recorded.

    Raises:
        InvalidArgumentError: if `data` has more than one element or is not numeric, or no
            step is known.

    Examples:
        >>> import eagerflow as ef, tempfile
        >>> with ef.summary.create_file_writer(tempfile.mkdtemp()).as_default():
        ...     ef.summary.scalar("loss", ef.constant(0.5), step=1)
        True
    """
    if context.thread.tracer is not None:
        return _traced(scalar, name, data, step, description=description)
    values = _numeric(data, "scalar", name)
    if values.size != 1:
        raise errors.InvalidArgumentError(
            f"ef.summary.scalar {name!r}: data must be a scalar (one element). "
            f"Received shape {values.shape}"
        )

    def build():
        value = float(values.reshape(()))
        return records.summary(
            [records.value(name, simple_value=value, metadata=records.metadata(description))]
        )

    return _write("scalar", name, step, build)


def histogram(name: str, data: Any, step: Any = None, buckets: Any = None,
              description: str | None = None) -> bool:
    """Writes a histogram of all elements of `data` (TensorBoard's histogram and
    distribution dashboards).

    Args:
        name: the series name.
        data: numeric values of any shape.
        step: the step; defaults to the default step.
        buckets: number of equal-width buckets between the minimum and maximum (default 30).
        description: optional longer description.

    Returns:
        True if written, False if nothing was recorded.

    Raises:
        InvalidArgumentError: for non-numeric data, NaN or infinite values, or a bucket
            count that is not a positive int.

    Examples:
        >>> import eagerflow as ef, tempfile
        >>> with ef.summary.create_file_writer(tempfile.mkdtemp()).as_default():
        ...     ef.summary.histogram("w", ef.random.normal([100]), step=0, buckets=10)
        True
    """
    if context.thread.tracer is not None:
        return _traced(histogram, name, data, step, buckets=buckets, description=description)
    bucket_count = DEFAULT_BUCKET_COUNT if buckets is None else buckets
    if isinstance(bucket_count, bool) or not isinstance(bucket_count, (int, np.integer)) \
            or bucket_count <= 0:
        raise errors.InvalidArgumentError(
            f"ef.summary.histogram {name!r}: buckets must be a positive int. "
            f"Received: buckets={buckets!r}"
        )
    values = _numeric(data, "histogram", name).astype(np.float64).reshape(-1)
    if not np.isfinite(values).all():
        raise errors.InvalidArgumentError(
            f"ef.summary.histogram {name!r}: data contains NaN or infinite values "
            f"({int((~np.isfinite(values)).sum())} of {values.size})"
        )

    def build():
        if values.size == 0:
            histo = records.histogram(0.0, 0.0, 0.0, 0.0, 0.0, [], [])
        else:
            low, high = float(values.min()), float(values.max())
            # Equal edges would make a zero-width range: widen it by one unit, as TF does.
            if low == high:
                low, high = low - 0.5, high + 0.5
            counts, edges = np.histogram(values, bins=int(bucket_count), range=(low, high))
            # The proto stores right edges only; the left edge of the first bucket is `min`.
            histo = records.histogram(
                float(edges[0]), float(edges[-1]), float(values.size), float(values.sum()),
                float(values @ values), edges[1:].tolist(), counts.astype(float).tolist())
        meta = records.metadata(description)
        return records.summary([records.value(name, histo=histo, metadata=meta)])

    return _write("histogram", name, step, build)


def _to_uint8(images: np.ndarray) -> np.ndarray:
    if images.dtype == np.uint8:
        return images
    # Floats are taken to be in [0, 1], like tf.summary.image.
    scaled = np.clip(np.nan_to_num(images.astype(np.float64)), 0.0, 1.0) * 255.0
    return np.round(scaled).astype(np.uint8)


def image(name: str, data: Any, step: Any = None, max_outputs: int = 3,
          description: str | None = None) -> bool:
    """Writes up to `max_outputs` images (TensorBoard's image dashboard).

    Args:
        name: the series name. One image is written under `name`; several under
            ``name/image/0``, ``name/image/1``, ...
        data: a batch of images of shape (k, height, width, channels), channels 1
            (greyscale), 3 (RGB) or 4 (RGBA); uint8 in [0, 255] or floats in [0, 1].
        step: the step; defaults to the default step.
        max_outputs: write at most this many images of the batch.
        description: optional longer description.

    Returns:
        True if written, False if nothing was recorded.

    Raises:
        InvalidArgumentError: for a shape that is not (k, h, w, 1|3|4), or a
            `max_outputs` that is not a positive int.

    Examples:
        >>> import eagerflow as ef, numpy as np, tempfile
        >>> with ef.summary.create_file_writer(tempfile.mkdtemp()).as_default():
        ...     ef.summary.image("digit", np.random.rand(1, 8, 8, 1), step=0)
        True
    """
    if context.thread.tracer is not None:
        return _traced(image, name, data, step, max_outputs=max_outputs, description=description)
    images = _numeric(data, "image", name)
    if images.ndim != 4 or images.shape[-1] not in (1, 3, 4):
        raise errors.InvalidArgumentError(
            f"ef.summary.image {name!r}: data must have shape (k, height, width, channels) "
            f"with channels 1, 3 or 4. Received shape {images.shape}"
        )
    if isinstance(max_outputs, bool) or not isinstance(max_outputs, (int, np.integer)) \
            or max_outputs <= 0:
        raise errors.InvalidArgumentError(
            f"ef.summary.image {name!r}: max_outputs must be a positive int. "
            f"Received: max_outputs={max_outputs!r}"
        )

    def build():
        batch = _to_uint8(images[:max_outputs])
        meta = records.metadata(description)
        values = []
        for index, pixels in enumerate(batch):
            tag = name if len(batch) == 1 else f"{name}/image/{index}"
            picture = records.image(pixels.shape[0], pixels.shape[1], pixels.shape[2],
                                    png.encode_png(np.ascontiguousarray(pixels)))
            values.append(records.value(tag, image=picture, metadata=meta))
        return records.summary(values)

    return _write("image", name, step, build)


def text(name: str, data: Any, step: Any = None, description: str | None = None) -> bool:
    """Writes text (Markdown) for TensorBoard's text dashboard.

    Args:
        name: the series name.
        data: a string, or an array/list of strings (rank 1 or 2 renders as a table).
        step: the step; defaults to the default step.
        description: optional longer description.

    Returns:
        True if written, False if nothing was recorded.

    Raises:
        InvalidArgumentError: if `data` is not made of strings.

    Examples:
        >>> import eagerflow as ef, tempfile
        >>> with ef.summary.create_file_writer(tempfile.mkdtemp()).as_default():
        ...     ef.summary.text("notes", "**lr** = 0.1", step=0)
        True
    """
    if context.thread.tracer is not None:
        return _traced(text, name, data, step, description=description)
    strings = np.asarray(data, dtype=object) if not isinstance(data, (str, bytes)) \
        else np.asarray(data, dtype=object).reshape(())
    flat = strings.reshape(-1)
    if not all(isinstance(item, (str, bytes)) for item in flat):
        raise errors.InvalidArgumentError(
            f"ef.summary.text {name!r}: data must be a string or an array of strings. "
            f"Received {type(data).__name__} with elements of type "
            f"{sorted({type(item).__name__ for item in flat})}"
        )
    encoded = [item.encode("utf-8") if isinstance(item, str) else item for item in flat]

    def build():
        # The text plugin's TextPluginData(version=0) encodes as no bytes.
        meta = records.metadata(description, "text")
        tensor = records.string_tensor(encoded, strings.shape)
        return records.summary([records.value(name, tensor=tensor, metadata=meta)])

    return _write("text", name, step, build)


def graph(graph_data: Any) -> bool:
    """Writes a traced graph for TensorBoard's Graphs tab (TensorFlow's `tf.summary.graph`).

    Each operation becomes a node with its name, op type, inputs, the dtype of its first
    output (attribute ``T``) and its output shapes (``_output_shapes``, shown on the
    edges; an unknown size is -1). Every variable the graph reads or writes becomes a
    ``VarHandleOp`` node named after the variable, an input of its reads and writes.
    Python numbers that an op takes as inputs are left out, and a `cond` or `while_loop`
    shows as one node (its branches and body are not expanded).

    Args:
        graph_data: an `ef.Graph` (``concrete_function.graph``), or a `ConcreteFunction`.

    Returns:
        True if written, False if there is no default writer or recording is off.

    Raises:
        TypeError: if `graph_data` is neither.

    Examples:
        >>> import eagerflow as ef, tempfile
        >>> square = ef.function(lambda x: x * x).get_concrete_function(ef.TensorSpec([2]))
        >>> with ef.summary.create_file_writer(tempfile.mkdtemp()).as_default():
        ...     ef.summary.graph(square.graph)
        True
    """
    from eagerflow.graph import graph as graph_module

    traced = getattr(graph_data, "graph", graph_data)
    if not isinstance(traced, graph_module.Graph):
        raise TypeError(
            "ef.summary.graph expects an ef.Graph (concrete_function.graph) or a "
            f"ConcreteFunction. Received: an object of type {type(graph_data).__name__}"
        )
    target = writer.default_writer()
    if target is None or not writer.should_record_summaries(0):
        return False
    target.write_graph(records.graph_def(_graph_nodes(traced)))
    return True


def _graph_nodes(traced) -> list[bytes]:
    """The encoded NodeDefs of `traced`: its variables first, then its operations."""
    handles: dict[int, str] = {}
    nodes = []
    for variable in traced.variable_list:
        name = str(variable.name).replace(":", "_")
        while name in handles.values():  # two variables with one name: two nodes
            name += "_"
        handles[id(variable)] = name
        nodes.append(records.node_def(name, "VarHandleOp", attrs={
            "dtype": records.attr_type(variable.dtype),
            "shape": records.attr_shape(variable.shape)}))
    for node in traced.operations:
        inputs = [t.name[:-2] if t.name.endswith(":0") else t.name
                  for t in node.tensor_inputs()]
        variable = node.attrs.get("variable")
        if id(variable) in handles:
            inputs.insert(0, handles[id(variable)])
        attrs = {"_output_shapes": records.attr_shapes(out.shape for out in node.outputs)}
        if node.outputs:
            attrs["T"] = records.attr_type(node.outputs[0].dtype)
        nodes.append(records.node_def(node.name, node.type, inputs, attrs))
    return nodes
