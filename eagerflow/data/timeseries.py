"""`timeseries_dataset_from_array` (Keras's ``keras.utils`` function, also `ef.utils`):
sliding windows over a sequence, batched.

Examples:
    >>> import numpy as np, eagerflow as ef
    >>> ds = ef.utils.timeseries_dataset_from_array(np.arange(10), None, sequence_length=3,
    ...                                             batch_size=4)
    >>> [b.numpy().tolist() for b in ds][0]
    [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5]]
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from eagerflow.core import tensor as tensor_lib
from eagerflow.data import dataset


def _integer(value, name: str) -> int:
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"timeseries_dataset_from_array: `{name}` must be an integer. "
                        f"Received: {name}={value!r}") from None
    return number


def _check_arguments(length, sequence_length, sequence_stride, sampling_rate, start_index,
                     end_index):
    # The same checks, in the same order and with the same messages, as Keras 3.
    if start_index:
        if start_index < 0:
            raise ValueError("`start_index` must be 0 or greater. Received: "
                             f"start_index={start_index}")
        if start_index >= length:
            raise ValueError("`start_index` must be lower than the length of the data. "
                             f"Received: start_index={start_index}, for data of length "
                             f"{length}")
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError("`end_index` must be higher than `start_index`. Received: "
                             f"start_index={start_index}, and end_index={end_index} ")
        if end_index >= length:
            raise ValueError("`end_index` must be lower than the length of the data. "
                             f"Received: end_index={end_index}, for data of length {length}")
        if end_index <= 0:
            raise ValueError(f"`end_index` must be higher than 0. Received: end_index={end_index}")
    if sampling_rate <= 0:
        raise ValueError(f"`sampling_rate` must be higher than 0. Received: "
                         f"sampling_rate={sampling_rate}")
    if sampling_rate >= length:
        raise ValueError("`sampling_rate` must be lower than the length of the data. "
                         f"Received: sampling_rate={sampling_rate}, for data of length {length}")
    if sequence_stride <= 0:
        raise ValueError(f"`sequence_stride` must be higher than 0. Received: "
                         f"sequence_stride={sequence_stride}")
    if sequence_stride >= length:
        raise ValueError("`sequence_stride` must be lower than the length of the data. "
                         f"Received: sequence_stride={sequence_stride}, for data of length "
                         f"{length}")
    if sequence_length <= 0:
        raise ValueError(f"`sequence_length` must be higher than 0. Received: "
                         f"sequence_length={sequence_length}")


def timeseries_dataset_from_array(data: Any, targets: Any, sequence_length: int,
                                  sequence_stride: int = 1, sampling_rate: int = 1,
                                  batch_size: int | None = 128, shuffle: bool = False,
                                  seed: int | None = None, start_index: int | None = None,
                                  end_index: int | None = None) -> dataset.Dataset:
    """A dataset of sliding windows over `data`, as Keras's function of the same name.

    Window ``i`` holds the rows ``data[p], data[p + sampling_rate], ...`` (``sequence_length``
    of them) where ``p = start_index + i * sequence_stride``; its target is ``targets[p]``.
    Windows that would run past ``end_index`` are left out, and so are windows without a
    target when `targets` is shorter.

    Args:
        data: an array (or tensor) of rows, the first axis being time.
        targets: an array of targets, one per row of `data`, or None for windows alone.
        sequence_length: rows per window.
        sequence_stride: rows between the starts of consecutive windows.
        sampling_rate: rows between the steps of a window.
        batch_size: windows per batch, or None for unbatched windows.
        shuffle: shuffle the windows. The start positions are shuffled with NumPy's
            ``RandomState(seed)`` as in Keras, so each window and its target are the same as
            Keras's; the batches then shuffle with eagerflow's own random stream, so their
            order differs from tf.data's.
        seed: the shuffling seed.
        start_index, end_index: the rows of `data` to draw from (``end_index`` excluded).

    Returns:
        A `Dataset` of ``(windows, targets)`` batches, or of windows when `targets` is None.

    Raises:
        ValueError: for an index, stride, rate or length outside the data, with Keras's
            messages.
    """
    sequence_length = _integer(sequence_length, "sequence_length")
    sequence_stride = _integer(sequence_stride, "sequence_stride")
    sampling_rate = _integer(sampling_rate, "sampling_rate")
    array = np.asarray(data)
    if array.ndim == 0:
        raise ValueError("timeseries_dataset_from_array: `data` must have a time axis; got a "
                         "scalar")
    length = len(array)
    _check_arguments(length, sequence_length, sequence_stride, sampling_rate, start_index,
                     end_index)
    start = 0 if start_index is None else int(start_index)
    end = length if end_index is None else int(end_index)
    count = end - start - (sequence_length - 1) * sampling_rate
    target_array = None
    if targets is not None:
        target_array = np.asarray(targets)
        count = min(count, len(target_array))
    positions = np.arange(0, max(count, 0), sequence_stride,
                          dtype="int32" if count < 2**31 - 1 else "int64")
    if shuffle:
        if seed is None:
            seed = int(np.random.randint(int(1e6)))
        np.random.RandomState(seed).shuffle(positions)
    # Windows are gathered when read (a batch at a time), never all at once: a long series
    # would need sequence_length times its own memory.
    rows = array[start:end]
    steps = np.arange(sequence_length) * sampling_rate
    target_rows = None if target_array is None else target_array[start:end]

    def gather(position):
        window = tensor_lib.new_tensor(rows[position.numpy()[..., None] + steps])
        if target_rows is None:
            return window
        return window, tensor_lib.new_tensor(target_rows[position.numpy()])

    result = dataset.Dataset.from_tensor_slices(positions)
    if shuffle:
        result = result.shuffle(1024 if batch_size is None else batch_size * 8, seed=seed)
    if batch_size is not None:
        result = result.batch(batch_size)
    return result.map(gather)  # map functions run eagerly: `gather` may use NumPy
