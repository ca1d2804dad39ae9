"""Export traced functions with their weights to one HDF5 file, and load them back.

`save(obj, path)` writes the traced graphs of `obj` (an `ef.function`, a concrete
function, or any object with `ef.function` methods) and the variables they use to a
single HDF5 file. `load(path)` returns a callable that runs those graphs without the
Python code that defined them: graphs are data (op names from eagerflow's registry,
attributes, shapes), so loading never unpickles or executes anything from the file, and
an unknown op or a malformed file is rejected with an error naming what is wrong.

The file is written by the one HDF5 writer every eagerflow file goes through
(`eagerflow.saving.h5format.write`: atomic, HDF5 1.10's checksummed format, a checksum
manifest sealed by a SHA-256 root attribute) and read back only through its reader
(`h5format.Reader`, over `h5safe`), so an export has the guarantees of a checkpoint.
Layout (format version 3 of the export, readable with plain ``h5py``)::

    /                  attrs: format="eagerflow-checkpoint", kind="saved_model", ...
    /arrays/<k>        constants and array attributes (numeric dtypes only)
    /variables/<k>     variable values
    /.eagerflow/saved_model          the index (JSON): format="eagerflow.graph.saved_model",
                                     version=3, each function's name, key and graph count,
                                     each variable's name and trainable flag, the arrays
    /.eagerflow/functions/<key>/<k>  the UTF-8 JSON of one traced graph
    /.eagerflow/manifest             the checksum manifest (see `h5format`)

Every dataset and graph is checked against the manifest before anything is built: a
flipped bit, a dataset or graph copied from another file, a file cut short or stripped of
its checksums does not load, and nothing half-loads (variables are created only once
everything is verified). Files of format version 2 (eagerflow before the one writer)
still load through `eagerflow.graph.function_file_v2`, with the checks they were written
with; version 1 files (no checksums) are refused with a message saying so.

Examples:
    >>> import os, tempfile
    >>> import eagerflow as ef
    >>> class Scale:
    ...     def __init__(self):
    ...         self.w = ef.Variable([2.0, 3.0], name="w")
    ...     @ef.function(input_signature=[ef.TensorSpec([None, 2], ef.float32)])
    ...     def __call__(self, x):
    ...         return x * self.w
    >>> path = os.path.join(tempfile.mkdtemp(), "scale.h5")
    >>> ef.saved_model.save(Scale(), path)
    >>> loaded = ef.saved_model.load(path)
    >>> loaded(ef.ones([1, 2]))
    ef.Tensor([[2. 3.]], shape=(1, 2), dtype=float32)
"""

from __future__ import annotations

import json
import os

import numpy as np

from eagerflow import absent as _absent
from eagerflow.core import errors, nest, spec, tensor
from eagerflow.core import variable as variable_lib
from eagerflow.graph import concrete, function, function_file_v2, graph_codec, replay
from eagerflow.saving import fileio, h5format, h5safe, load_budget

FORMAT = function_file_v2.FORMAT
"""The format name of every export (in the index; the root attribute of version 2 files)."""
VERSION = 3
"""The version of the export format this eagerflow writes (3: a file of the one HDF5
writer); it reads version 2 too (`function_file_v2`)."""
KIND = "saved_model"
"""The ``kind`` root attribute of an export (see `eagerflow.saving.h5format`)."""
INDEX = "saved_model"
"""The metadata name of an export's index document."""
DEFAULT = "serving_default"
"""The signature name used when `save` is given a single function, as in TensorFlow."""


def _concrete_functions(fn, name) -> list:
    if isinstance(fn, concrete.ConcreteFunction):
        return [fn]
    if isinstance(fn, function.Function):
        if fn.input_signature is not None:
            fn.get_concrete_function()
        functions = fn.list_concrete_functions()
        if not functions:
            raise errors.InvalidArgumentError(
                f"saved_model.save: ef.function {name!r} has not been traced yet: call it once "
                "with example arguments, or give it an input_signature"
            )
        return functions
    raise TypeError(
        f"saved_model.save: {name!r} must be an ef.function or a ConcreteFunction, got "
        f"{type(fn).__name__}"
    )


def _collect(obj, signatures) -> dict:
    if signatures is not None:
        if isinstance(signatures, dict):
            return {str(k): _concrete_functions(v, k) for k, v in signatures.items()}
        return {DEFAULT: _concrete_functions(signatures, DEFAULT)}
    if isinstance(obj, (function.Function, concrete.ConcreteFunction)):
        return {DEFAULT: _concrete_functions(obj, DEFAULT)}
    found = {}
    for name in sorted(set(dir(type(obj)))):
        if isinstance(getattr(type(obj), name, None), function.Function):
            bound = getattr(obj, name)
            if bound._tracing_count or bound.input_signature is not None:
                found[DEFAULT if name == "__call__" else name] = _concrete_functions(bound, name)
    for name, value in vars(obj).items() if hasattr(obj, "__dict__") else ():
        if isinstance(value, (function.Function, concrete.ConcreteFunction)):
            found[name] = _concrete_functions(value, name)
    if not found:
        raise errors.InvalidArgumentError(
            f"saved_model.save: found no traced functions on {type(obj).__name__}: decorate "
            "methods with @ef.function(input_signature=[...]) (or call them once), or pass "
            "signatures=<ef.function or {name: ef.function}>"
        )
    return found


class SaveOptions:
    """Options for `save`, as in TensorFlow (only the option eagerflow acts on).

    Args:
        experimental_custom_gradients: whether the gradient functions of
            `@ef.custom_gradient` calls in the traced graphs should be saved (TensorFlow's
            default, True). eagerflow files hold forward graphs only, so `save` refuses a
            graph with a custom gradient either way rather than let the loaded function
            differentiate its forward ops instead (a silently different gradient).

    Raises:
        TypeError: if `experimental_custom_gradients` is not a bool.

    Examples:
        >>> import eagerflow as ef
        >>> ef.saved_model.SaveOptions(experimental_custom_gradients=True)
        SaveOptions(experimental_custom_gradients=True)
    """

    def __init__(self, experimental_custom_gradients: bool = True) -> None:  # noqa: D107
        if not isinstance(experimental_custom_gradients, bool):
            raise TypeError(
                "`experimental_custom_gradients` must be a bool. Received: "
                f"experimental_custom_gradients={experimental_custom_gradients!r}"
            )
        self.experimental_custom_gradients = experimental_custom_gradients

    def __repr__(self) -> str:
        return f"SaveOptions(experimental_custom_gradients={self.experimental_custom_gradients})"


def _refuse_custom_gradients(functions: dict) -> None:
    """Raises if a traced graph's gradient comes from an `@ef.custom_gradient` function."""
    for name, cfs in functions.items():
        custom = sorted({n for cf in cfs for n in concrete.custom_gradient_names(cf.graph)})
        if custom:
            raise errors.InvalidArgumentError(
                f"saved_model.save: function {name!r} uses the @custom_gradient function(s) "
                f"{custom}; eagerflow does not export gradient functions (TensorFlow's "
                "SaveOptions(experimental_custom_gradients=True)), and the loaded graph would "
                "differentiate the forward ops instead. Save the variables with "
                "ef.train.Checkpoint and rebuild the function in Python."
            )


def save(obj: object, path: str | os.PathLike, signatures: object = None,
         options: SaveOptions | None = None) -> None:
    """Writes the traced functions of `obj` and the variables they use to an HDF5 file.

    Args:
        obj: an `ef.function`, a `ConcreteFunction`, or an object whose methods (or
            attributes) are `ef.function`s; ``__call__`` becomes ``"serving_default"``.
        path: the file to write (replaced atomically).
        signatures: an `ef.function` / `ConcreteFunction`, or a dict of name to one, to
            export instead of what is found on `obj`.
        options: a `SaveOptions` (or None for the defaults).

    Raises:
        InvalidArgumentError: if nothing is traced, or a graph holds something that is not
            data (an `ef.py_function`, a non-PCG64 random generator, ...), or its gradient
            comes from an `@ef.custom_gradient` function (see `SaveOptions`).
        TypeError: if `options` is not a `SaveOptions`.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> f = ef.function(lambda x: ef.exp(x), input_signature=[ef.TensorSpec([None])])
        >>> path = os.path.join(tempfile.mkdtemp(), "exp.h5")
        >>> ef.saved_model.save(f, path)
        >>> float(ef.saved_model.load(path)(ef.constant([0.0]))[0])
        1.0
    """
    if options is not None and not isinstance(options, SaveOptions):
        raise TypeError(
            "saved_model.save: `options` must be an ef.saved_model.SaveOptions. Received: "
            f"options={options!r}"
        )
    functions = _collect(obj, signatures)
    _refuse_custom_gradients(functions)
    writer = graph_codec.Writer()
    encoded = {name: [writer.function(cf, name) for cf in cfs] for name, cfs in functions.items()}

    index: dict = {"format": FORMAT, "version": VERSION, "functions": [],
                   "arrays": len(writer.arrays),
                   "variables": [[var.name, bool(var.trainable)] for var in writer.variables]}
    metadata: dict[str, bytes] = {}
    for name, items in encoded.items():
        key = _safe(name)
        if any(key == used for _, used, _ in index["functions"]):
            key = f"{key}_{len(index['functions'])}"
        index["functions"].append([name, key, len(items)])
        for k, item in enumerate(items):
            metadata[f"functions/{key}/{k}"] = json.dumps(item).encode("utf-8")
    metadata[INDEX] = json.dumps(index).encode("utf-8")
    arrays = {f"arrays/{k}": np.array(array, order="C")  # (ascontiguousarray makes 0-d 1-d)
              for k, array in enumerate(writer.arrays)}
    arrays.update({f"variables/{k}": np.array(var.numpy(), order="C")
                   for k, var in enumerate(writer.variables)})
    h5format.write(path, arrays, kind=KIND, metadata=metadata)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "_-." else "_" for c in name) or "_"


class LoadedFunction:
    """One exported function: calls the first of its traced graphs the arguments fit.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> f = ef.function(lambda x: x + 1)
        >>> _ = f(ef.constant(1)), f(ef.constant([1.0, 2.0]))  # two signatures
        >>> path = os.path.join(tempfile.mkdtemp(), "f.h5")
        >>> ef.saved_model.save(f, path)
        >>> loaded = ef.saved_model.load(path).signatures["serving_default"]
        >>> len(loaded.concrete_functions), loaded(ef.constant(5))
        (2, ef.Tensor(6, shape=(), dtype=int32))
    """

    def __init__(self, name, functions, structures):  # noqa: D107
        self.name = name
        self._functions = functions
        self._structures = structures

    @property
    def concrete_functions(self) -> list:
        """The traced graphs this function runs, one per input signature it was exported with."""
        return list(self._functions)

    def __call__(self, *args, **kwargs):
        flat = [x for x in nest.flatten((args, kwargs)) if concrete._is_tensor_like(x)]
        for cf, structure in zip(self._functions, self._structures, strict=False):
            specs = cf._specs
            if len(flat) != len(specs):
                continue
            tensors = [tensor.Tensor(x) if not isinstance(x, tensor.Tensor) else x for x in flat]
            if all(t.dtype == d and t.ndim == len(s) and all(a is None or a == n for a, n in
                                                             zip(s, t.shape, strict=False))
                   for t, (s, d) in zip(tensors, specs, strict=False)):
                outputs = cf.call_flat(tensors)
                return _pack(structure, outputs)
        accepted = "; ".join(cf._describe_inputs() for cf in self._functions)
        got = ", ".join(f"{np.asarray(x).dtype}{list(np.shape(x))}" for x in flat)
        raise errors.InvalidArgumentError(
            f"loaded function {self.name!r} accepts ({accepted}); got ({got})"
        )

    def __repr__(self) -> str:
        return f"<loaded function {self.name!r} ({len(self._functions)} signatures)>"


def _pack(structure, outputs):
    kind, content = next(iter(structure.items()))
    if kind == "output":
        return outputs[content]
    if kind == "constant":
        return content
    if kind == "python":
        return content
    if kind == "dict":
        return {k: _pack(v, outputs) for k, v in content}
    items = [_pack(v, outputs) for v in content]
    return items if kind == "list" else tuple(items)


class LoadedModel:
    """What `load` returns: the exported functions (as attributes and in `signatures`) and
    the restored variables. Calling it calls ``"serving_default"``.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> double = ef.function(lambda x: x * 2.0, input_signature=[ef.TensorSpec([])])
        >>> path = os.path.join(tempfile.mkdtemp(), "m.h5")
        >>> ef.saved_model.save(object(), path, signatures={"double": double})
        >>> model = ef.saved_model.load(path)
        >>> model.double(ef.constant(4.0)), sorted(model.signatures)
        (ef.Tensor(8.0, shape=(), dtype=float32), ['double'])
    """

    def __init__(self, functions, variables):  # noqa: D107
        self.signatures = functions
        self.variables = variables
        for name, fn in functions.items():
            if name.isidentifier() and not hasattr(type(self), name):
                setattr(self, name, fn)

    @property
    def trainable_variables(self) -> list:
        """The loaded variables marked trainable (a subset of `variables`)."""
        return [v for v in self.variables if v.trainable]

    def __call__(self, *args, **kwargs):
        if DEFAULT not in self.signatures:
            raise TypeError(
                f"this saved model has no {DEFAULT!r} function to call; use one of "
                f"{sorted(self.signatures)}"
            )
        return self.signatures[DEFAULT](*args, **kwargs)

    def __repr__(self) -> str:
        return f"<ef.saved_model {sorted(self.signatures)} with {len(self.variables)} variables>"


def load(path, max_bytes: int | None = None) -> LoadedModel:
    """Loads a file written by `save`; returns a `LoadedModel`.

    Args:
        path: the file.
        max_bytes: the most this load may allocate, in bytes: the values read and what
            rebuilding the graphs allocates (see `eagerflow.saving.load_budget`); default
            ``ef.config.get_load_budget()``, or else twice the file's size plus 1 GiB.

    Raises:
        NotFoundError: if `path` does not exist.
        InvalidArgumentError: if the file is not an eagerflow saved model or is malformed
            (unknown op names, dangling references, non-numeric data, ...).
        ResourceExhaustedError: if the load would allocate more than `max_bytes`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.saved_model.load("/nonexistent/model.h5")
        Traceback (most recent call last):
          ...
        eagerflow.core.errors.NotFoundError: saved model file not found: /nonexistent/model.h5
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise errors.NotFoundError(f"saved model file not found: {path}")
    with load_budget.scope("saved_model.load", path, max_bytes):
        return _load(path)


def _load(path) -> LoadedModel:
    fmt = _root_format(path)
    if fmt == function_file_v2.FORMAT:
        arrays, variables, blobs = _read_v2(path)
    elif fmt == h5format.FORMAT:
        arrays, variables, blobs = _read(path)
    else:
        raise errors.InvalidArgumentError(
            f"{path} is not an eagerflow saved model (root attribute 'format' is {fmt!r}; "
            f"expected {h5format.FORMAT!r} with kind {KIND!r}, or {function_file_v2.FORMAT!r} "
            "for files of format version 2)")
    encoded: dict[str, list] = {}
    for name, items in blobs.items():
        encoded[name] = []
        for k, blob in enumerate(items):
            where = f"{path}: function {name!r} #{k}"
            encoded[name].append(fileio.loads_json(blob.decode("utf-8", "replace"), where,
                                                   errors.InvalidArgumentError))
    reader = graph_codec.Reader(arrays, variables, path)
    functions = {name: _rebuild(name, items, reader) for name, items in encoded.items()}
    return LoadedModel(functions, variables)


def _root_format(path) -> str:
    """The root ``format`` attribute (which tells a version 2 file from the others), read
    after the superblock check and through `h5safe` like every read."""
    try:
        problem = h5format.superblock_problem(path)  # before HDF5 walks a damaged file
    except FileNotFoundError:  # deleted since the check in `load`
        raise errors.NotFoundError(f"saved model file not found: {path}") from None
    if problem is not None:
        raise h5format.InvalidCheckpointError(f"saved model {path!r} {problem}.")
    try:  # refuses links, external/virtual storage, filters, non-numeric data, bad sizes
        f = h5safe.open_file(path, "saved model file", errors.InvalidArgumentError)
    except FileNotFoundError:
        raise errors.NotFoundError(f"saved model file not found: {path}") from None
    with f:
        try:
            fmt = function_file_v2._text(f.attrs.get("format"))
        except (OSError, TypeError, ValueError, UnicodeDecodeError) as e:
            raise h5format.InvalidCheckpointError(
                f"saved model {path!r}: its root attribute 'format' cannot be read; the file "
                f"is corrupted ({type(e).__name__}: {e})") from None
    if not isinstance(fmt, str):
        raise h5format.InvalidCheckpointError(
            f"saved model {path!r}: attribute 'format' of the root group must be a string; "
            f"it holds {type(fmt).__name__} data, which is never loaded.")
    return fmt


def _read_v2(path):
    """Arrays, variables and graph blobs of a format version 2 file (see
    `function_file_v2`), verified against its own manifest."""
    try:
        f = h5safe.open_file(path, "saved model file", errors.InvalidArgumentError)
    except FileNotFoundError:
        raise errors.NotFoundError(f"saved model file not found: {path}") from None
    with f:
        try:
            return function_file_v2.read(f, path)
        except function_file_v2.READ_ERRORS as e:
            if isinstance(e, errors.OpError):
                raise
            raise h5format.InvalidCheckpointError(
                f"saved model {path!r} cannot be read; the file is corrupted "
                f"({type(e).__name__}: {e})") from None


def _read(path):
    """Arrays, variables and graph blobs of an export, every byte verified by
    `h5format.Reader` before any variable is created."""
    with h5format.Reader(path, describe="Saved model file") as reader:
        if reader.kind != KIND:
            raise h5format.InvalidCheckpointError(
                f"{path!r} is an eagerflow {reader.kind} file, not a saved model (kind "
                f"{KIND!r}): load it with ef.saving (load_weights, load_model or "
                "Checkpoint.restore).")
        index = _index(reader, path)
        names = [f"arrays/{k}" for k in range(index["arrays"])]
        names += [f"variables/{k}" for k in range(len(index["variables"]))]
        unknown = sorted(set(reader.entries) - set(names))
        missing = [key for key in names if key not in reader.entries]
        if unknown or missing:
            raise h5format.InvalidCheckpointError(
                f"saved model {path!r}: its index lists {len(names)} datasets, but the file "
                + (f"lacks {missing[0]!r}" if missing else f"also holds {unknown[0]!r}")
                + ". It was not loaded.")
        values = reader.read_all(names)
        blobs: dict[str, list[bytes]] = {}
        for name, key, count in index["functions"]:
            blobs[name] = []
            for k in range(count):
                blob = reader.metadata(f"functions/{key}/{k}")
                if blob is None:
                    raise h5format.InvalidCheckpointError(
                        f"saved model {path!r}: graph #{k} of function {name!r} "
                        f"('{h5format.META}/functions/{key}/{k}') is missing. It was not "
                        "loaded.")
                blobs[name].append(blob)
    arrays = [values[f"arrays/{k}"] for k in range(index["arrays"])]
    # Variables are created only once everything is verified.
    variables = [variable_lib.Variable(values[f"variables/{k}"], trainable=trainable, name=name)
                 for k, (name, trainable) in enumerate(index["variables"])]
    return arrays, variables, blobs


def _index(reader, path) -> dict:
    """The export's index document, checked for shape (its bytes were checked by the
    reader against the manifest)."""
    blob = reader.metadata(INDEX)
    if blob is None:
        raise h5format.InvalidCheckpointError(
            f"saved model {path!r} has no index ('{h5format.META}/{INDEX}'). It was not "
            "loaded.")
    index = fileio.loads_json(blob.decode("utf-8", "replace"),
                              f"saved model {path!r}: the index",
                              h5format.InvalidCheckpointError)
    if not isinstance(index, dict) or index.get("format") != FORMAT:
        raise h5format.InvalidCheckpointError(
            f"saved model {path!r}: the index is not an {FORMAT!r} document.")
    if index.get("version") != VERSION:
        raise h5format.InvalidCheckpointError(
            f"saved model {path!r}: index version {index.get('version')!r} is not supported "
            f"(this eagerflow reads version {VERSION}, and version 2 files).")
    functions, variables, arrays = (index.get("functions"), index.get("variables"),
                                    index.get("arrays"))
    if not (isinstance(functions, list) and all(
            isinstance(f, list) and len(f) == 3 and isinstance(f[0], str)
            and isinstance(f[1], str) and type(f[2]) is int and f[2] >= 0
            for f in functions)
            and isinstance(variables, list) and all(
                isinstance(v, list) and len(v) == 2 and isinstance(v[0], str)
                and isinstance(v[1], bool) for v in variables)
            and type(arrays) is int and arrays >= 0):
        raise h5format.InvalidCheckpointError(
            f"saved model {path!r}: the index is malformed. It was not loaded.")
    return index


def _rebuild(name, items, reader) -> LoadedFunction:
    functions, structures = [], []
    for k, item in enumerate(items):
        context = f"function {name!r} #{k}"
        if not isinstance(item, dict) or not isinstance(item.get("structure"), dict):
            raise reader._fail(context, "missing graph or output structure")
        raw, inputs, outputs = reader.graph(item.get("graph"), context)
        structure = _decode_structure(item["structure"], reader, context, len(outputs))
        signature = [spec.TensorSpec(p.shape, p.dtype) for p in inputs]

        # Tracing a replay of the decoded graph re-derives every shape from the ops
        # themselves (validating the file) and records gradients for the loaded function.
        def replayed(args, raw=raw, inputs=inputs, outputs=outputs):
            return replay.replay_with(raw, inputs, list(args), outputs)

        traced = function.Function(replayed, input_signature=[signature], name=name)
        try:
            functions.append(traced.get_concrete_function())
        except errors.ResourceExhaustedError:
            raise  # the load's budget (it names the op and the sizes): not a malformed file
        except (errors.OpError, TypeError, ValueError, KeyError, IndexError) as e:
            raise reader._fail(context, f"its graph does not run ({e})") from None
        structures.append(structure)
    return LoadedFunction(name, functions, structures)


def _decode_structure(value, reader, context, count):
    if not isinstance(value, dict) or len(value) != 1:
        raise reader._fail(context, "malformed output structure")
    kind, content = next(iter(value.items()))
    if kind == "output" and type(content) is int and 0 <= content < count:
        return value
    if kind == "constant" and type(content) is int and 0 <= content < len(reader.arrays):
        return {"constant": tensor.new_tensor(reader.arrays[content])}
    if kind == "python":
        return {"python": reader.value(content, [], context)}
    if kind in ("list", "tuple") and isinstance(content, list):
        return {kind: [_decode_structure(v, reader, context, count) for v in content]}
    if kind == "dict" and isinstance(content, list) and all(
            isinstance(p, list) and len(p) == 2 for p in content):
        return {"dict": [[str(k), _decode_structure(v, reader, context, count)]
                         for k, v in content]}
    raise reader._fail(context, f"malformed output structure {kind!r}")


__getattr__ = _absent.namespace_getattr(__name__, "tf.saved_model")
