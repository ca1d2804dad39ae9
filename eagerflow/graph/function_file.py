"""Export traced functions with their weights to one HDF5 file, and load them back.

`save(obj, path)` writes the traced graphs of `obj` (an `ef.function`, a concrete
function, or any object with `ef.function` methods) and the variables they use to a
single HDF5 file. `load(path)` returns a callable that runs those graphs without the
Python code that defined them: graphs are data (op names from eagerflow's registry,
attributes, shapes), so loading never unpickles or executes anything from the file, and
an unknown op or a malformed file is rejected with an error naming what is wrong.

File layout (readable with plain ``h5py``)::

    /                  attrs: format="eagerflow.graph.saved_model", version=2,
                              manifest_sha256=<hex SHA-256 of /manifest>
    /functions/<name>/<k>   uint8 dataset: the UTF-8 JSON of one traced graph
    /arrays/<k>        constants and array attributes (numeric dtypes only)
    /variables/<k>     variable values; attrs: name, trainable
    /manifest          uint8 dataset: the checksum manifest (JSON)

The manifest records everything `load` reads: each function's group and name with the
CRC-32 of each graph, and each array's and variable's dtype (with byte order), shape and
CRC-32 (and a variable's name and trainable flag), all by position. Its SHA-256 is a root
attribute. `load` describes what it read in the same form and refuses the file, naming it,
unless the description equals the manifest and the manifest its digest: a flipped bit, a
dataset or graph copied from another export, or a file stripped of its checksums does
not load. Version 1 files (no checksums) are refused with a message saying so.

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

import hashlib
import json
import os
import zlib

import h5py
import numpy as np

from eagerflow import absent as _absent
from eagerflow.core import errors, nest, spec, tensor
from eagerflow.core import variable as variable_lib
from eagerflow.graph import concrete, function, graph_codec, replay
from eagerflow.saving import fileio, h5format, h5safe, load_budget

FORMAT = "eagerflow.graph.saved_model"
"""The format name written into every export, checked when loading."""
VERSION = 2
"""The version of the export format this eagerflow writes and reads (2: checksummed)."""
DEFAULT = "serving_default"
"""The signature name used when `save` is given a single function, as in TensorFlow."""
MANIFEST = "manifest"
"""The name of the dataset that holds an export's checksum manifest."""
# What reading a malformed or corrupted file can raise from h5py or the decoders.
_READ_ERRORS = (OSError, RuntimeError, KeyError, ValueError, TypeError, AttributeError,
                IndexError, UnicodeDecodeError)


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

    def write(temporary):
        contents = _Contents()
        with h5py.File(temporary, "w", libver=h5format.LIBVER) as f:  # (checksummed HDF5)
            f.attrs["format"] = h5format.text_attr(FORMAT)
            f.attrs["version"] = VERSION
            for name, items in encoded.items():
                group = f.create_group(f"functions/{_safe(name)}")
                group.attrs["name"] = h5format.text_attr(name)
                blobs = [json.dumps(item).encode("utf-8") for item in items]
                for k, blob in enumerate(blobs):
                    group.create_dataset(str(k), data=np.frombuffer(blob, np.uint8))
                contents.function(group.name, name, blobs)
            arrays = f.create_group("arrays")
            for k, array in enumerate(writer.arrays):
                arrays.create_dataset(str(k), data=array)
                contents.array(array)
            variables = f.create_group("variables")
            for k, var in enumerate(writer.variables):
                value = np.array(var.numpy(), order="C")  # (ascontiguousarray makes 0-d 1-d)
                dataset = variables.create_dataset(str(k), data=value)
                dataset.attrs["name"] = h5format.text_attr(var.name)
                dataset.attrs["trainable"] = bool(var.trainable)
                contents.variable(value, var.name, bool(var.trainable))
            blob, digest = h5format.encode_manifest(contents.manifest)
            f.create_dataset(MANIFEST, data=np.frombuffer(blob, np.uint8))
            f.attrs[h5format.MANIFEST_DIGEST] = h5format.text_attr(digest)

    fileio.atomic_write(path, write)


class _Contents:
    """The checksum manifest of an export: what `save` wrote, or what `load` read."""

    def __init__(self):
        self.manifest: dict = {"format": FORMAT, "version": VERSION, "functions": {},
                               "arrays": [], "variables": []}

    def function(self, group: str, name: str, blobs: list) -> None:
        self.manifest["functions"][group] = [name, [zlib.crc32(blob) for blob in blobs]]

    def _record(self, value: np.ndarray) -> list:
        return [value.dtype.str, list(value.shape), h5format.crc32(value)]

    def array(self, value: np.ndarray) -> None:
        self.manifest["arrays"].append(self._record(value))

    def variable(self, value: np.ndarray, name: str, trainable: bool) -> None:
        self.manifest["variables"].append([*self._record(value), name, trainable])


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
    try:
        problem = h5format.superblock_problem(path)  # before HDF5 walks a damaged file
    except FileNotFoundError:  # deleted since the check above
        raise errors.NotFoundError(f"saved model file not found: {path}") from None
    if problem is not None:
        raise h5format.InvalidCheckpointError(f"saved model {path!r} {problem}.")
    try:  # refuses links, external/virtual storage, filters, non-numeric data, bad sizes
        f = h5safe.open_file(path, "saved model file", errors.InvalidArgumentError)
    except FileNotFoundError:
        raise errors.NotFoundError(f"saved model file not found: {path}") from None
    with f:
        try:
            arrays, variables, blobs = _read_verified(f, path)
        except _READ_ERRORS as e:
            if isinstance(e, errors.OpError):
                raise
            raise h5format.InvalidCheckpointError(
                f"saved model {path!r} cannot be read; the file is corrupted "
                f"({type(e).__name__}: {e})") from None
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


def _read_verified(f, path):
    """Reads everything `load` uses (arrays, variables, graphs as bytes) and checks it
    against the file's checksum manifest (see the module docstring)."""
    fmt, version = _text(f.attrs.get("format")), f.attrs.get("version")
    if fmt != FORMAT or version not in (1, VERSION):
        raise errors.InvalidArgumentError(
            f"{path} is not an eagerflow saved model (format {fmt!r}, version {version!r}); "
            f"expected {FORMAT!r} version {VERSION}"
        )
    if version == 1:
        raise h5format.InvalidCheckpointError(
            f"saved model {path!r} has format version 1 (eagerflow before export checksums), "
            "which is no longer loaded: nothing in it can be verified. Export the functions "
            "again with this eagerflow.")
    contents = _Contents()
    arrays = _read_numbered(f, "arrays", path)
    for value in arrays:
        contents.array(value)
    variables = []
    for k, value in enumerate(_read_numbered(f, "variables", path)):
        attrs = f["variables"][str(k)].attrs
        name, trainable = _text(attrs.get("name", f"variable_{k}")), attrs.get("trainable")
        if not isinstance(name, str) or not isinstance(trainable, (bool, np.bool_)):
            raise errors.InvalidArgumentError(
                f"{path}: variables/{k} has a malformed 'name' or 'trainable' attribute")
        contents.variable(value, name, bool(trainable))
        variables.append((value, name, bool(trainable)))
    blobs = {}
    for group in f.get("functions", {}).values():
        name = _text(group.attrs.get("name", group.name))
        if not isinstance(group, h5py.Group) or not isinstance(name, str):
            raise errors.InvalidArgumentError(f"{path}: malformed function {group.name}")
        items = []
        for k in range(len(group)):
            data = group.get(str(k))
            if not isinstance(data, h5py.Dataset) or data.dtype != np.uint8 or data.ndim != 1:
                raise errors.InvalidArgumentError(f"{path}: malformed function {group.name}")
            load_budget.charge(data.shape, np.uint8, f"function {group.name}/{k}")
            items.append(np.asarray(data[()]).tobytes())
        contents.function(group.name, name, items)
        blobs[name] = items
    _check_manifest(f, path, contents.manifest)
    # Variables are created only once everything is verified.
    made = [variable_lib.Variable(value, trainable=trainable, name=name)
            for value, name, trainable in variables]
    return arrays, made, blobs


def _text(value):
    """A string attribute as `str` (files store them as UTF-8 bytes, see
    `h5format.text_attr`); anything else unchanged, for the caller to refuse."""
    if isinstance(value, bytes):
        return value.decode("utf-8")  # (a UnicodeDecodeError is a corrupted file)
    return value


def _check_manifest(f, path, found: dict) -> None:
    lost = ("; eagerflow always writes one, so its checksums were removed or it was written "
            "by another tool. It was not loaded.")
    digest = _text(f.attrs.get(h5format.MANIFEST_DIGEST))
    if not isinstance(digest, str):
        raise h5format.InvalidCheckpointError(
            f"saved model {path!r}: the root attribute {h5format.MANIFEST_DIGEST!r} (the "
            f"checksum manifest's digest) is missing{lost}")
    stored = f.get(MANIFEST)
    if not isinstance(stored, h5py.Dataset) or stored.dtype != np.uint8 or stored.ndim != 1:
        raise h5format.InvalidCheckpointError(
            f"saved model {path!r}: the checksum manifest (dataset {MANIFEST!r}) is "
            f"missing{lost}")
    blob = np.asarray(stored[()]).tobytes()
    expected, described = h5format.encode_manifest(found)[0], hashlib.sha256(blob).hexdigest()
    if described != digest:
        raise h5format.InvalidCheckpointError(
            f"saved model {path!r}: the checksum manifest does not match its SHA-256 digest: "
            "the file is corrupted (a changed byte, a bad disk or transfer). It was not loaded.")
    if blob != expected:
        raise h5format.InvalidCheckpointError(
            f"saved model {path!r}: {_first_difference(blob, found)} does not match the "
            "checksum manifest: the file is corrupted, or mixes parts of different exports. "
            "It was not loaded.")


def _first_difference(blob: bytes, found: dict) -> str:
    """Names the first function, array or variable whose description differs."""
    try:
        recorded = json.loads(blob)
    except ValueError:
        return "its contents"
    if not isinstance(recorded, dict):
        return "its contents"
    ours, theirs = found["functions"], recorded.get("functions")
    theirs = theirs if isinstance(theirs, dict) else {}
    for group in sorted(set(ours) | set(theirs)):
        if ours.get(group) != theirs.get(group):
            return f"function group {group!r}"
    for part in ("arrays", "variables"):
        ours, theirs = found[part], recorded.get(part)
        theirs = theirs if isinstance(theirs, list) else []
        for k in range(max(len(ours), len(theirs))):
            if k >= len(ours) or k >= len(theirs) or ours[k] != theirs[k]:
                return f"{part}/{k}"
    return "its header"


def _read_numbered(f, key, path) -> list:
    group = f.get(key)
    if group is None:
        return []
    values = []
    for k in range(len(group)):
        dataset = group.get(str(k))
        if not isinstance(dataset, h5py.Dataset) or dataset.dtype.kind not in "biufc":
            raise errors.InvalidArgumentError(
                f"{path}: {key}/{k} is missing or not numeric data; the file is malformed"
            )
        load_budget.charge(dataset.shape, dataset.dtype, f"{key}/{k} of shape "
                           f"{dataset.shape} in the file")
        values.append(np.array(dataset[()], order="C"))  # (ascontiguousarray makes 0-d 1-d)
    return values


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
