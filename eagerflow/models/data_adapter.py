"""Everything `fit`/`evaluate`/`predict` accept as data, turned into batches: ``x``,
``(x, y)`` or ``(x, y, sample_weight)``, which is what `train_step` receives.

Three kinds of input, one interface (`adapt` returns an object whose `epoch()` yields the
batches of one epoch and whose `steps` is the number of batches per epoch, or None):

* NumPy arrays, tensors, Python lists, and lists/dicts of them (several inputs or
  outputs): sliced into batches of `batch_size`, in a new random order every epoch when
  `shuffle` is true (drawn from eagerflow's global generator, so `ef.random.set_seed`
  makes it repeatable and `BackupAndRestore` can replay it);
* an `ef.data.Dataset` yielding batches (as given, never re-batched): one pass is one
  epoch, and a dataset with a `shuffle` reshuffles at every pass;
* a Python generator or iterator of batches: an epoch lasts until it is exhausted, or
  `steps_per_epoch` batches.

With `steps_per_epoch`, one iterator is read across epochs, as Keras 3's epoch iterator:
epoch 2 goes on where epoch 1 stopped. When a pass runs out in the middle of an epoch,
that epoch ends early with Keras's "ran out of data" warning and the next epoch starts a
new pass (reshuffled); a pass that ends exactly at an epoch's end starts the next one
silently. A generator cannot start again: once it is exhausted, training stops. `class_weight` becomes
per-sample weights for every kind of input and for each output of a multi-output model;
arguments that do not apply to a kind of input are errors, never ignored.

Examples:
    >>> import numpy as np
    >>> from eagerflow.models import data_adapter
    >>> data = data_adapter.adapt(np.zeros((5, 2)), np.arange(5), batch_size=2,
    ...                           shuffle=False)
    >>> [tuple(x.shape) for x, y in data.epoch()]
    [(2, 2), (2, 2), (1, 2)]
"""

from __future__ import annotations

import inspect
import math
import warnings
from typing import Any

import numpy as np

from eagerflow.core import buffers, errors, nest, tensor
from eagerflow.core.variable import Variable
from eagerflow.ops import random as random_lib
from eagerflow.utils import dataframes

DEFAULT_BATCH_SIZE = 32


def unpack_x_y_sample_weight(data):
    """Splits one batch into ``(x, y, sample_weight)`` (missing parts are None).

    A tuple (or list) of length 1, 2 or 3 is ``(x,)``, ``(x, y)`` or ``(x, y, weights)``;
    anything else is ``x`` alone.

    Raises:
        ValueError: for a tuple of another length.

    Examples:
        >>> from eagerflow.models import data_adapter
        >>> data_adapter.unpack_x_y_sample_weight(([1.0], [2.0]))
        ([1.0], [2.0], None)
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError(
        "Data is expected to be (x,), (x, y) or (x, y, sample_weight). Received a tuple of "
        f"length {len(data)}"
    )


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """One batch as `train_step` receives it: ``x``, ``(x, y)`` or ``(x, y, weights)``.

    Examples:
        >>> from eagerflow.models import data_adapter
        >>> data_adapter.pack_x_y_sample_weight([1.0], [2.0])
        ([1.0], [2.0])
    """
    if y is None and sample_weight is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return x, y
    return x, y, sample_weight


def _as_array(value, what: str) -> np.ndarray:
    if isinstance(value, tensor.Tensor):
        return buffers.read(value)
    if isinstance(value, Variable):
        return value.numpy()
    if dataframes.is_pandas(value):  # Keras 3: a Series is a column (n,), a DataFrame (n, cols)
        value = value.to_numpy()
    try:
        array = np.asarray(value)
    except ValueError:
        array = np.asarray(None, dtype=object)
    if array.dtype == object:
        raise errors.InvalidArgumentError(
            f"{what} could not be converted to a numeric array (ragged or mixed values)")
    return array


def _is_array_like(value) -> bool:
    return isinstance(value, (np.ndarray, tensor.Tensor, Variable)) or dataframes.is_pandas(value)


def _standardize(value, what: str):
    """Arrays in a nested structure; a plain list of numbers is one array, a list of arrays
    is several inputs."""
    if value is None:
        return None
    if isinstance(value, dict):
        return {key: _standardize(item, f"{what}[{key!r}]") for key, item in value.items()}
    if isinstance(value, (list, tuple)) and value and all(
            _is_array_like(item) or isinstance(item, dict) for item in value):
        return [_standardize(item, f"{what}[{i}]") for i, item in enumerate(value)]
    return _as_array(value, what)


def _leaves_with_paths(value, what: str) -> list:
    if value is None:
        return []
    if isinstance(value, dict):
        return [leaf for key in sorted(value)
                for leaf in _leaves_with_paths(value[key], f"{what}[{key!r}]")]
    if isinstance(value, (list, tuple)):
        return [leaf for i, item in enumerate(value)
                for leaf in _leaves_with_paths(item, f"{what}[{i}]")]
    return [(what, value)]


def _num_samples(parts: dict, function: str) -> int:
    sizes = []
    for name, value in parts.items():
        for path, array in _leaves_with_paths(value, name):
            if array.ndim == 0:
                raise errors.InvalidArgumentError(
                    f"{function}: {path} is a scalar; it needs a leading sample axis")
            sizes.append((path, array.shape[0]))
    if not sizes:
        raise ValueError(f"{function}: no data given (x is None)")
    if len({size for _, size in sizes}) > 1:
        raise errors.InvalidArgumentError(
            f"{function}: x, y and sample_weight must have the same number of samples "
            f"(first dimension). Received {_summarise(sizes)}{_list_hint(parts)}"
        )
    return sizes[0][1]


def _summarise(sizes) -> str:
    """``path: size`` pairs, with runs of one size folded (``x[0]..x[1436]: 64``), and at
    most a dozen entries shown."""
    groups: list[Any] = []  # [first path, last path, size, count]
    for path, size in sizes:
        if groups and groups[-1][2] == size and path.split("[")[0] == groups[-1][0].split("[")[0]:
            groups[-1][1] = path
            groups[-1][3] += 1
        else:
            groups.append([path, path, size, 1])
    shown = [f"{first}: {size}" if count == 1 else f"{first}..{last}: {size} ({count} arrays)"
             for first, last, size, count in groups]
    if len(shown) > 12:
        shown = shown[:12] + [f"... ({len(shown) - 12} more)"]
    return ", ".join(shown)


def _list_hint(parts) -> str:
    x = parts.get("x")
    if isinstance(x, list) and len(x) > 8 and all(hasattr(v, "shape") for v in x):
        return (f". x is a Python list of {len(x)} arrays, which fit reads as {len(x)} "
                "separate model inputs; for one input, stack them first: np.stack(x)")
    return ""


def _take(value, index):
    """The rows `index` (a slice or an index array) of every array in `value`, as tensors."""
    if value is None:
        return None
    if isinstance(value, dict):
        return {key: _take(item, index) for key, item in value.items()}
    if isinstance(value, list):
        return [_take(item, index) for item in value]
    return tensor.new_tensor(value[index])


def split_arrays(x, y, sample_weight, validation_split: float):
    """Splits off the last `validation_split` fraction (before any shuffling, like Keras).

    Returns:
        ``((x, y, sample_weight), (x_val, y_val, sample_weight_val))``.

    Raises:
        ValueError: for a fraction outside (0, 1) or one leaving either part empty.

    Examples:
        >>> import numpy as np
        >>> from eagerflow.models import data_adapter
        >>> train, val = data_adapter.split_arrays(np.arange(10), None, None, 0.2)
        >>> train[0].tolist(), val[0].tolist()
        ([0, 1, 2, 3, 4, 5, 6, 7], [8, 9])
    """
    if not 0.0 < validation_split < 1.0:
        raise ValueError(
            f"fit: validation_split must be in [0, 1). Received: {validation_split!r}")
    x, y, sample_weight = (_standardize(v, n) for v, n in
                           ((x, "x"), (y, "y"), (sample_weight, "sample_weight")))
    count = _num_samples({"x": x, "y": y, "sample_weight": sample_weight}, "fit")
    split_at = int(math.floor(count * (1.0 - validation_split)))
    if split_at == 0 or split_at == count:
        raise ValueError(
            f"fit: validation_split={validation_split} of {count} samples leaves "
            f"{split_at} for training and {count - split_at} for validation; both need at "
            "least one"
        )

    def part(value, index):
        return nest.map_structure(lambda a: a[index], value) if value is not None else None

    head, tail = slice(0, split_at), slice(split_at, None)
    return ((part(x, head), part(y, head), part(sample_weight, head)),
            (part(x, tail), part(y, tail), part(sample_weight, tail)))


def _class_weight_table(class_weight: dict, where: str) -> dict:
    table = {}
    for key, weight in class_weight.items():
        try:
            label = int(key)
        except (TypeError, ValueError):
            label = None
        if label is None or label != key:
            raise ValueError(
                f"class_weight{where} keys must be integer class indices. Received key {key!r}")
        if isinstance(weight, bool) or not isinstance(weight, (int, float, np.number)):
            raise ValueError(
                f"class_weight{where} values must be numbers. Received {weight!r} for class "
                f"{key}")
        table[label] = float(weight)
    return table


def class_weight_to_sample_weight(y, class_weight: dict, where: str = ""):
    """Per-sample weights ``class_weight[class of y]`` for one batch of targets.

    The class of a target is the label itself (integer labels), its argmax (one-hot or
    probability rows), or its rounded value (one binary unit). Integer targets of shape
    ``(batch, steps)`` holding a class index above 1 are per-step class indices (sparse
    sequence labels) and get one weight per step; Keras would take their argmax over the
    steps.

    Raises:
        ValueError: for bad keys or values, or a class with no weight.

    Examples:
        >>> import numpy as np
        >>> from eagerflow.models import data_adapter
        >>> data_adapter.class_weight_to_sample_weight(np.array([0, 1, 1]), {0: 1.0, 1: 3.0})
        array([1., 3., 3.], dtype=float32)
    """
    table = _class_weight_table(class_weight, where)
    labels = _as_array(y, "y")
    sparse_steps = labels.dtype.kind in "iu" and labels.size and (
        labels.min() < 0 or labels.max() > 1)  # class indices, not one-hot rows
    if labels.ndim >= 2 and labels.shape[-1] > 1 and not sparse_steps:
        labels = np.argmax(labels, axis=-1)
    elif labels.ndim >= 2 and labels.shape[-1] == 1:
        labels = labels[..., 0]
    if labels.dtype.kind == "f":
        labels = np.rint(labels)
    labels = labels.astype(np.int64)
    lookup = np.full(max(max(table, default=0), int(labels.max(initial=0))) + 1, np.nan,
                     np.float32)
    for label, weight in table.items():
        if label >= 0:
            lookup[label] = weight
    negative = labels < 0
    missing = np.unique(labels[negative | np.isnan(lookup[np.maximum(labels, 0)])])
    if missing.size:
        raise ValueError(
            f"class_weight{where} has no weight for class(es) {missing.tolist()}; classes "
            f"with a weight: {sorted(table)}"
        )
    return lookup[labels]


def _times(class_weights: np.ndarray, sample_weight) -> np.ndarray:
    """Class weights times sample weights, aligned on the leading (batch) axes."""
    weights = _as_array(sample_weight, "sample_weight")
    if weights.ndim == class_weights.ndim + 1 and weights.shape[-1] == 1:
        weights = weights[..., 0]
    if weights.ndim < class_weights.ndim:
        weights = weights.reshape(weights.shape + (1,) * (class_weights.ndim - weights.ndim))
    elif class_weights.ndim < weights.ndim:
        class_weights = class_weights.reshape(
            class_weights.shape + (1,) * (weights.ndim - class_weights.ndim))
    return class_weights * weights


def _combine_class_weight(y, sample_weight, class_weight, output_names):
    """sample_weight with class weights multiplied in, per output."""
    if class_weight is None:
        return sample_weight
    if not isinstance(class_weight, dict):
        raise ValueError(f"class_weight must be a dict. Received: {class_weight!r}")
    if y is None:
        raise ValueError("class_weight needs targets (y) to weight")
    if not isinstance(y, (list, tuple, dict)):
        weights = class_weight_to_sample_weight(y, class_weight)
        return weights if sample_weight is None else _times(weights, sample_weight)
    names = sorted(y) if isinstance(y, dict) else (output_names or [])
    if set(class_weight) - set(names) or not all(isinstance(v, dict)
                                                 for v in class_weight.values()):
        raise ValueError(
            "class_weight for a model with several outputs must be a dict keyed by output "
            f"name, each value a dict {{class: weight}}. Output names: {names}. Received "
            f"keys: {list(class_weight)}"
        )
    flat_y = [y[n] for n in names] if isinstance(y, dict) else list(y)
    if isinstance(sample_weight, dict):
        flat_w = [sample_weight.get(n) for n in names]
    elif isinstance(sample_weight, (list, tuple)):
        flat_w = list(sample_weight)
    else:
        flat_w = [sample_weight] * len(flat_y)
    combined = []
    for name, target, weight in zip(names, flat_y, flat_w, strict=True):
        if name in class_weight:
            cw = class_weight_to_sample_weight(target, class_weight[name], f"[{name!r}]")
            weight = cw if weight is None else _times(cw, weight)
        combined.append(weight)
    return dict(zip(names, combined, strict=True)) if isinstance(y, dict) else combined


class _ArrayData:
    """In-memory arrays, batched by slicing (see the module docstring)."""

    def __init__(self, x, y, sample_weight, batch_size, shuffle, steps, class_weight,
                 output_names, function):
        self.x = _standardize(x, "x")
        self.y = _standardize(y, "y")
        self.sample_weight = _standardize(sample_weight, "sample_weight")
        self.num_samples = _num_samples(
            {"x": self.x, "y": self.y, "sample_weight": self.sample_weight}, function)
        if shuffle not in (True, False):
            raise ValueError(f"{function}: shuffle must be True or False. Received {shuffle!r}")
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.class_weight = class_weight
        self.output_names = output_names
        self.batches_per_pass = max(1, math.ceil(self.num_samples / batch_size))
        self.steps = steps if steps is not None else self.batches_per_pass
        self._stream = None if steps is None else _Stream(self._one_pass, function)
        if class_weight is not None:  # check the classes once, up front
            _combine_class_weight(self.y, None, class_weight, output_names)

    def _one_pass(self):
        count, size = self.num_samples, self.batch_size
        order = None
        if self.shuffle:
            order = self._draw_order(count)
        for start in range(0, count, size):
            index = slice(start, start + size) if order is None else order[start:start + size]
            y = _take(self.y, index)
            weights = _take(self.sample_weight, index)
            if self.class_weight is not None:
                weights = _combine_class_weight(y, weights, self.class_weight,
                                                self.output_names)
            yield pack_x_y_sample_weight(_take(self.x, index), y, weights)

    def _draw_order(self, count: int) -> np.ndarray:
        """This epoch's order (replaced under a strategy: drawn on rank 0 only)."""
        return random_lib.get_global_generator().numpy_generator.permutation(count)

    def epoch(self):
        if self._stream is None:
            return self._one_pass()
        return self._stream.epoch(self.steps, self.batches_per_pass)

    def peek_x(self):
        """The inputs of a first batch, without drawing random numbers or consuming data."""
        return _take(self.x, slice(0, self.batch_size))


class _IterableData:
    """A Dataset (one pass per epoch) or a generator (consumed across epochs)."""

    def __init__(self, source, steps, class_weight, output_names, function, is_dataset):
        self.source = source
        self.is_dataset = is_dataset
        self.class_weight = class_weight
        self.output_names = output_names
        self.function = function
        self.num_samples = None
        self._exhausted = False
        self._stream = None
        if is_dataset:
            size = int(source.cardinality())
            if size == -1 and steps is None:
                raise ValueError(
                    f"{function}: the dataset is infinite (it repeats); pass "
                    f"{'steps_per_epoch' if function == 'fit' else 'steps'} to say how many "
                    "batches make an epoch"
                )
            self.steps = steps if steps is not None else (size if size >= 0 else None)
            self._size = size if size >= 0 else None
            if steps is not None:
                # One iterator across epochs, like Keras (see the module docstring).
                self._stream = _Stream(lambda: iter(source), function)
        else:
            self.steps = steps
            self._iterator = source

    def unbatched_hint(self):
        """A "did you forget .batch()?" note for an error of the first step, when the
        Dataset has no batching stage and its elements have no batch axis; else None."""
        if not self.is_dataset or _has_batching(self.source):
            return None
        try:
            shapes = [tuple(spec.shape) for spec in nest.flatten(self.source.element_spec)]
        except Exception:  # noqa: BLE001 - a spec that needs running user code: no hint
            return None
        if any(shape and shape[0] is None for shape in shapes):
            return None
        shown = ", ".join(str(shape) for shape in shapes)
        return (f"The {self.function} data is an ef.data.Dataset with no batching stage, whose "
                f"elements have shapes {shown}: if these are single samples, batch them "
                "first: dataset.batch(32).")

    def _convert(self, element):
        if self.class_weight is None:
            return element  # train_step gets the dataset's element as it is, like Keras
        x, y, weights = unpack_x_y_sample_weight(element)
        weights = _combine_class_weight(y, weights, self.class_weight, self.output_names)
        return pack_x_y_sample_weight(x, y, weights)

    def ran_out(self) -> bool:
        """Whether a generator read with `steps_per_epoch` is exhausted: `fit` stops."""
        return self._exhausted and self.steps is not None and not self.is_dataset

    def _generator_epoch(self):
        if self._exhausted:
            raise ValueError(
                f"{self.function}: the generator was exhausted in an earlier epoch. Pass "
                "steps_per_epoch with a generator that never ends, or an ef.data.Dataset "
                "(which restarts every epoch)"
            )
        produced = 0
        while self.steps is None or produced < self.steps:
            try:
                element = next(self._iterator)
            except StopIteration:
                self._exhausted = True
                if self.steps is not None and produced < self.steps:
                    _ran_out_warning()
                return
            produced += 1
            yield self._convert(element)

    def peek_x(self):
        """The inputs of a Dataset's first element (None for a generator, which cannot be
        read ahead), leaving its shuffle stages where they were."""
        if not self.is_dataset:
            return None
        from eagerflow.data import iterator

        shuffles = iterator.shuffle_stages(self.source)
        passes = [stage.next_iteration for stage in shuffles]
        try:
            element = iterator.probe(self.source)
        finally:
            for stage, number in zip(shuffles, passes, strict=True):
                stage.next_iteration = number
        if element is None:
            return None
        return unpack_x_y_sample_weight(element)[0]

    def epoch(self):
        if not self.is_dataset:
            return self._generator_epoch()
        if self._stream is not None:
            return (self._convert(e) for e in self._stream.epoch(self.steps, self._size))
        return (self._convert(e) for e in iter(self.source))


def _ran_out_warning() -> None:
    warnings.warn(  # Keras 3's words
        "Your input ran out of data; interrupting training. Make sure that your dataset or "
        "generator can generate at least `steps_per_epoch * epochs` batches. You may need to "
        "use the `.repeat()` function when building your dataset.", UserWarning, stacklevel=4)


class _Stream:
    """One iterator read across epochs, `steps` batches at a time (Keras's EpochIterator):
    a pass that runs out mid-epoch ends the epoch with a warning; the next epoch starts a
    new pass from `start()`."""

    def __init__(self, start, function: str) -> None:
        self._start = start
        self._function = function
        self._iterator: Any = None
        self._seen = 0

    def epoch(self, steps: Any, batches_per_pass: int | None):
        if self._iterator is None:
            self._iterator, self._seen = self._start(), 0
        produced = 0
        while produced < steps:
            try:
                element = next(self._iterator)
            except StopIteration:
                self._iterator = None
                if produced == 0 and self._seen == 0:
                    raise ValueError(f"{self._function}: the dataset is empty") from None
                if produced == 0:  # ended exactly at the last epoch's end: a new pass
                    yield from self.epoch(steps, batches_per_pass)
                    return
                _ran_out_warning()
                return
            produced += 1
            self._seen += 1
            yield element
        if batches_per_pass is not None and self._seen >= batches_per_pass:
            self._iterator = None  # a known-size pass read to its end starts again


def _has_batching(source) -> bool:
    """Whether a Dataset pipeline has a batch stage (batch, padded_batch) anywhere."""
    from eagerflow.data import batching

    return batching.is_batched(source)


def _is_py_dataset(value) -> bool:
    from eagerflow.utils import py_dataset

    return isinstance(value, py_dataset.PyDataset)


class _PyDatasetData:
    """An `ef.utils.PyDataset`: ``len()`` batches by index, one pass per epoch."""

    is_dataset = False
    num_samples = None

    def __init__(self, source, shuffle, steps, class_weight, output_names, function):
        count = len(source)
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
            raise ValueError(f"{function}: len() of the PyDataset must be an int >= 0. "
                             f"Received: {count!r}")
        if count == 0:
            raise ValueError(f"{function}: the PyDataset is empty (len() is 0)")
        self.source, self.count, self.shuffle = source, int(count), bool(shuffle)
        self.steps = min(steps, self.count) if steps is not None else self.count
        self.class_weight, self.output_names = class_weight, output_names

    def _convert(self, element):
        if self.class_weight is None:
            return element
        x, y, weights = unpack_x_y_sample_weight(element)
        weights = _combine_class_weight(y, weights, self.class_weight, self.output_names)
        return pack_x_y_sample_weight(x, y, weights)

    def _draw_order(self, count: int) -> list:
        """This epoch's batch order (replaced under a strategy: drawn on rank 0 only)."""
        return random_lib.get_global_generator().numpy_generator.permutation(count).tolist()

    def epoch(self):
        from eagerflow.utils import py_dataset

        order = self._draw_order(self.count) if self.shuffle else list(range(self.count))
        batches = py_dataset.read_batches(self.source, list(order)[:self.steps])
        for index, batch in enumerate(batches):
            yield self._convert(batch)
            if index + 1 == self.steps:
                break
        self.source.on_epoch_end()

    def peek_x(self):
        """The inputs of batch 0 (reading a batch by index consumes nothing)."""
        return unpack_x_y_sample_weight(self.source[0])[0]


def _is_dataset(value) -> bool:
    from eagerflow.data import dataset

    return isinstance(value, dataset.Dataset)


def _is_generator(value) -> bool:
    return inspect.isgenerator(value) or (hasattr(value, "__next__") and
                                          not _is_array_like(value))


def adapt(x, y=None, sample_weight=None, batch_size=None, shuffle=False, steps=None,
          class_weight=None, output_names=None, function="fit"):
    """Returns the batch source for `x` (see the module docstring).

    Args:
        x, y, sample_weight: the data as given to `fit`/`evaluate`/`predict`.
        batch_size: samples per batch for arrays (default 32); an error for a Dataset or
            a generator, which are already batched.
        shuffle: reshuffle arrays every epoch.
        steps: batches per epoch (None: one pass over the data).
        class_weight: ``{class: weight}`` (or per output name) turned into sample weights.
        output_names: the model's output names (for per-output class weights).
        function: "fit", "evaluate" or "predict", for error messages.

    Raises:
        ValueError: for `y`, `sample_weight` or `batch_size` given with a Dataset or
            generator, bad `steps`/`batch_size`, or an infinite dataset without steps.
        InvalidArgumentError: when arrays differ in their number of samples.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.models import data_adapter
        >>> data_adapter.adapt(ef.data.Dataset.range(10).batch(4)).steps
        3
    """
    if steps is not None and (isinstance(steps, bool) or not isinstance(steps, (int, np.integer))
                              or steps <= 0):
        raise ValueError(f"{function}: steps must be a positive int. Received: {steps!r}")
    if _is_py_dataset(x):
        for name, value in (("y", y), ("sample_weight", sample_weight),
                            ("batch_size", batch_size)):
            if value is not None:
                raise ValueError(
                    f"{function}: {name} must not be given when x is a PyDataset: its "
                    "batches are (x, y) or (x, y, sample_weight)")
        return _PyDatasetData(x, shuffle, steps, class_weight, output_names, function)
    if _is_dataset(x) or _is_generator(x):
        kind = "an ef.data.Dataset" if _is_dataset(x) else "a generator"
        for name, value in (("y", y), ("sample_weight", sample_weight),
                            ("batch_size", batch_size)):
            if value is not None:
                raise ValueError(
                    f"{function}: {name} must not be given when x is {kind}: the "
                    f"{'dataset' if _is_dataset(x) else 'generator'} yields batches of "
                    "(x, y) or (x, y, sample_weight)"
                )
        return _IterableData(x, steps, class_weight, output_names, function, _is_dataset(x))
    if x is None:
        raise ValueError(f"{function}: x is None; pass the input data")
    if batch_size is None:
        batch_size = DEFAULT_BATCH_SIZE
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) \
            or batch_size <= 0:
        raise ValueError(f"{function}: batch_size must be a positive int. Received: "
                         f"{batch_size!r}")
    return _ArrayData(x, y, sample_weight, int(batch_size), shuffle, steps, class_weight,
                      output_names, function)
