"""`split_dataset` (Keras's ``keras.utils`` function, also `ef.utils`): one dataset or
tuple of arrays split in two.

Examples:
    >>> import numpy as np, eagerflow as ef
    >>> left, right = ef.utils.split_dataset(np.arange(10), left_size=0.8)
    >>> int(left.cardinality()), int(right.cardinality())
    (8, 2)
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from eagerflow.core import nest
from eagerflow.core import tensor as tensor_lib
from eagerflow.data import batching, dataset


def _size_error(side: str, size, total: int) -> ValueError:
    return ValueError(f"`{side}_size` should be either a positive integer smaller than {total}, "
                      f"or a float within the range `[0, 1]`. Received: {side}_size={size}")


def _split_sizes(left_size, right_size, total: int) -> tuple[int, int]:
    """Keras 3's rules: fractions round to counts, a missing side takes the rest."""
    for side, size in (("left", left_size), ("right", right_size)):
        if size is not None and type(size) not in (int, float):
            raise TypeError(f"Invalid `{side}_size` Type. Expected: int or float or None, "
                            f"Received: type({side}_size)={type(size)}.")
    if left_size == 0 and right_size == 0:
        raise ValueError("Both `left_size` and `right_size` are zero. At least one of the "
                         "split sizes must be non-zero.")
    for side, size in (("left", left_size), ("right", right_size)):
        if (type(size) is int and (size <= 0 or size >= total)) or (
                type(size) is float and (size <= 0 or size >= 1)):
            raise _size_error(side, size, total)
    if type(left_size) is float and type(right_size) is float and left_size + right_size > 1:
        raise ValueError("The sum of `left_size` and `right_size` is greater than 1. It must "
                         "be less than or equal to 1.")
    left = round(left_size * total) if type(left_size) is float else left_size
    right = round(right_size * total) if type(right_size) is float else right_size
    if left is None:
        left = total - right
    elif right is None:
        right = total - left
    if left + right > total:
        raise ValueError(f"The sum of `left_size` and `right_size` should be smaller than the "
                         f"{total}. Received: left_size + right_size = {left + right} and "
                         f"total_length = {total}")
    for side, size in (("left", left), ("right", right)):
        if size == 0:
            raise ValueError(f"With `dataset` of length={total}, `left_size`={left} and "
                             f"`right_size`={right}. Resulting {side} side dataset split will "
                             "be empty. Adjust any of the aforementioned parameters")
    return int(left), int(right)


def _samples(data) -> tuple[list, Any, int | None]:
    """The samples of `data` as a list of flat NumPy lists, its structure, its batch size."""
    if isinstance(data, dataset.Dataset):
        batch_size = None
        if isinstance(data, batching.BatchDataset):
            batch_size = data._batch_size  # (same package) the splits are batched alike
            data = data.unbatch()
        elements = list(data.as_numpy_iterator())
        if not elements:
            raise ValueError("split_dataset: the dataset is empty")
        return [nest.flatten(e) for e in elements], elements[0], batch_size
    if isinstance(data, (tuple, list)):
        arrays = [np.asarray(a.numpy() if isinstance(a, tensor_lib.Tensor) else a) for a in data]
        lengths = {len(a) for a in arrays}
        if len(lengths) != 1:
            raise ValueError("split_dataset: the arrays of a tuple must have the same length; "
                             f"got lengths {[len(a) for a in arrays]}")
        return [list(row) for row in zip(*arrays)], tuple(data), None
    if isinstance(data, (np.ndarray, tensor_lib.Tensor)):
        array = np.asarray(data.numpy() if isinstance(data, tensor_lib.Tensor) else data)
        return [[row] for row in array], array, None
    raise TypeError("The `dataset` argument must be either a `Dataset` object, or a list/tuple "
                    f"of arrays. Received: dataset={data!r} of type {type(data)}")


def split_dataset(dataset_or_arrays: Any, left_size: int | float | None = None,
                  right_size: int | float | None = None, shuffle: bool = False,
                  seed: int | None = None) -> tuple[dataset.Dataset, dataset.Dataset]:
    """Splits a dataset (or an array, or a tuple of arrays) into two datasets.

    As Keras 3: an int size is a count of samples, a float a fraction (rounded); the side
    left as None takes the rest. `shuffle` shuffles the samples with Python's
    ``random.seed(seed)`` before splitting, so the two halves hold the same samples as
    Keras's; a batched dataset is split by samples and both halves are batched again with
    its batch size. The samples are read into memory.

    Args:
        dataset_or_arrays: a `Dataset`, an array, or a tuple/list of arrays of one length.
        left_size, right_size: the sizes of the two halves (at least one of them).
        shuffle: shuffle the samples before splitting.
        seed: the shuffling seed.

    Returns:
        ``(left, right)``, two datasets.

    Raises:
        ValueError: if both sizes are None or zero, a size is out of range, or a half would
            be empty (Keras's messages).
        TypeError: for another kind of input, or a size that is not an int or float.
    """
    if left_size is None and right_size is None:
        raise ValueError("At least one of the `left_size` or `right_size` must be specified. "
                         "Received: left_size=None and right_size=None")
    samples, structure, batch_size = _samples(dataset_or_arrays)
    if shuffle:
        if seed is None:
            seed = random.randint(0, int(1e6))
        random.seed(seed)
        random.shuffle(samples)
    left, right = _split_sizes(left_size, right_size, len(samples))
    halves = []
    for part in (samples[:left], samples[len(samples) - right:]):
        columns = [np.array(column) for column in zip(*part)]
        half = dataset.Dataset.from_tensor_slices(
            tuple(columns) if isinstance(structure, list) else
            nest.pack_sequence_as(structure, columns))
        halves.append(half if batch_size is None else half.batch(batch_size))
    return halves[0], halves[1]
