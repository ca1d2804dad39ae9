"""`PyDataset` (Keras 3's name; `Sequence` is its older alias): batches by index.

Examples:
    >>> import numpy as np
    >>> import eagerflow as ef
    >>> class Squares(ef.utils.PyDataset):
    ...     def __len__(self):
    ...         return 3
    ...     def __getitem__(self, index):
    ...         x = np.full((4, 1), float(index), "float32")
    ...         return x, x * x
    >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(1,))])
    >>> model.compile("sgd", "mse")
    >>> len(model.fit(Squares(), epochs=2, verbose=0).history["loss"])
    2
"""

from __future__ import annotations

import abc
from collections.abc import Iterator
from concurrent import futures


class PyDataset(abc.ABC):
    """Base class of datasets read batch by batch through ``dataset[index]``.

    Implement ``__len__`` (the number of batches) and ``__getitem__(index)`` (one batch:
    ``x``, ``(x, y)`` or ``(x, y, sample_weight)``); `fit`, `evaluate` and `predict` accept
    the dataset as ``x`` and call `on_epoch_end` after every epoch. `fit` visits the batches
    in a new random order each epoch (from the global generator) unless ``shuffle=False``.

    Args:
        workers: threads reading batches ahead of the training loop (1: read in the loop).
        use_multiprocessing: must be False (batches are read in this process).
        max_queue_size: batches read ahead at most, with ``workers > 1``.

    Raises:
        ValueError: for ``use_multiprocessing=True`` or a non-positive count.
    """

    def __init__(self, workers: int = 1, use_multiprocessing: bool = False,
                 max_queue_size: int = 10) -> None:
        if use_multiprocessing:
            raise ValueError(
                f"{type(self).__name__}: use_multiprocessing=True is not supported; eagerflow "
                "reads PyDataset batches in the training process (workers > 1 reads them on "
                "threads).")
        for what, value in (("workers", workers), ("max_queue_size", max_queue_size)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{type(self).__name__}: {what} must be a positive int. "
                                 f"Received: {what}={value!r}")
        self.workers = workers
        self.use_multiprocessing = False
        self.max_queue_size = max_queue_size

    @abc.abstractmethod
    def __len__(self) -> int:
        """The number of batches."""

    @abc.abstractmethod
    def __getitem__(self, index):
        """Batch number `index` (from 0)."""

    def on_epoch_end(self) -> None:  # noqa: B027 - a hook subclasses may leave alone
        """Called after every epoch (e.g. to reshuffle the samples); does nothing here."""

    @property
    def num_batches(self) -> int:
        """``len(self)``."""
        return len(self)


def read_batches(dataset: PyDataset, order) -> Iterator:
    """The batches of `dataset` at the indices in `order` (one epoch, as `fit` reads a
    PyDataset), read ahead on ``dataset.workers`` threads when there are several."""
    get = dataset.__getitem__
    workers = getattr(dataset, "workers", 1)
    if workers <= 1:
        for index in order:
            yield get(index)
        return
    ahead = max(getattr(dataset, "max_queue_size", 10), workers)
    with futures.ThreadPoolExecutor(max_workers=workers) as pool:
        pending = []
        for index in order:
            pending.append(pool.submit(get, index))
            if len(pending) >= ahead:
                yield pending.pop(0).result()
        for future in pending:
            yield future.result()


Sequence = PyDataset
"""Keras 2's name for `PyDataset`; the same class."""
