"""`Model.export`: the model's inference function as a SavedModel with a ``serve`` endpoint."""

from __future__ import annotations

import os
from typing import Any

from eagerflow.core import dtypes, spec
from eagerflow.graph import function, function_file
from eagerflow.layers import layer_info

FORMATS = ("tf_saved_model",)


def _signature(model) -> list:
    inputs = getattr(model, "inputs", None)
    if inputs:
        return [spec.TensorSpec(tuple(t.shape), t.dtype) for t in inputs]
    shape = layer_info.build_input_shape(model) if model.built else None
    if shape is None or not all(isinstance(d, int) or d is None for d in shape):
        raise ValueError(
            f"{type(model).__name__} has not yet been built (or was built for nested inputs): "
            "it must be built before export. Call it on a batch first, or pass "
            "input_signature=[ef.TensorSpec((None, ...), ef.float32)].")
    return [spec.TensorSpec((None, *tuple(shape)[1:]), dtypes.as_dtype(model.dtype))]


def export(model: Any, filepath: str | os.PathLike[str], format: str = "tf_saved_model",  # noqa: A002
           verbose: bool | None = None, input_signature: Any = None) -> str:
    """Writes `model`'s inference call (``training=False``) as a SavedModel directory whose
    loaded object has a ``serve`` endpoint, as Keras 3's ``model.export`` does.

    Raises:
        ValueError: for a format other than ``"tf_saved_model"`` (eagerflow has no ONNX,
            OpenVINO, LiteRT or torch exporters), or a model that is not built and gets
            no `input_signature`.
    """
    if format not in FORMATS:
        raise ValueError(
            f"Unrecognized format={format!r}. eagerflow exports only 'tf_saved_model' (its own "
            "SavedModel, read back with ef.saved_model.load); it has no ONNX, OpenVINO, "
            "LiteRT or torch exporter.")
    specs = list(input_signature) if input_signature is not None else _signature(model)
    def serve_one(inputs):
        return model(inputs, training=False)

    def serve_many(*inputs):
        return model(list(inputs), training=False)

    endpoint = function.function(serve_one if len(specs) == 1 else serve_many,
                                 input_signature=specs)
    function_file.save(model, os.fspath(filepath), signatures={"serve": endpoint})
    if verbose:
        print(f"Saved artifact at {os.fspath(filepath)!r}. Endpoint: serve({specs})")
    return os.fspath(filepath)
