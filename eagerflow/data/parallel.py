"""Background threads of the pipeline: `prefetch`, parallel `map`, parallel `interleave`.

The guarantees, for every thread started here:

* errors raised in a thread reach the consumer as the same exception object, so its
  traceback still shows the user function's frames;
* elements produced before an error are delivered before it is raised;
* when the consumer stops (loop end, `break`, an exception, `Iterator.close()`, or the
  iterator being garbage-collected) every thread is told to stop and joined before the
  consumer's generator finishes closing, so no worker outlives its iterator.

Examples:
    >>> import eagerflow as ef, threading
    >>> before = threading.active_count()
    >>> for x in ef.data.Dataset.range(100).prefetch(2):
    ...     break
    >>> threading.active_count() == before
    True
"""

from __future__ import annotations

import collections
import os
import threading
import time
from concurrent import futures
from contextlib import closing
from typing import Any

from eagerflow.data import dataset

_AUTOTUNE_MAX_BUFFER = 16
# A parallel-map task should run about this long, so that the pool's per-task cost
# (tens of microseconds) stays small next to the work, whatever the function costs.
_TASK_SECONDS = 0.002
_MAX_CHUNK = 64
_END = object()


class _Failure:
    __slots__ = ("error",)

    def __init__(self, error: BaseException):
        self.error = error


class _Channel:
    """A bounded FIFO between one producer thread and one consumer, closable at once."""

    def __init__(self, capacity: int, grow_to: int):
        self._items: collections.deque[Any] = collections.deque()
        self._cond = threading.Condition()
        self._capacity = capacity
        self._grow_to = grow_to
        self._closed = False

    def put(self, item) -> bool:
        """Adds `item`, waiting for room; False when the channel was closed meanwhile."""
        with self._cond:
            while len(self._items) >= self._capacity and not self._closed:
                self._cond.wait()
            if self._closed:
                return False
            self._items.append(item)
            self._cond.notify_all()
            return True

    def get(self):
        with self._cond:
            while not self._items:
                # The consumer waits: with AUTOTUNE, a deeper buffer absorbs the next burst.
                if self._capacity < self._grow_to:
                    self._capacity += 1
                    self._cond.notify_all()
                self._cond.wait()
            item = self._items.popleft()
            self._cond.notify_all()
            return item

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._items.clear()
            self._cond.notify_all()


def _produce(factory, channel: _Channel) -> None:
    try:
        with closing(factory()) as elements:
            for element in elements:
                if not channel.put(element):
                    return
    except BaseException as error:  # delivered to the consumer, which re-raises it
        channel.put(_Failure(error))
        return
    channel.put(_END)


def background(factory, capacity: int, grow_to: int, name: str):
    """Runs the generator made by `factory()` in a thread; yields what it produces.

    Args:
        factory: returns a new generator; it is created, run and closed in the thread.
        capacity: how many elements may wait in the buffer.
        grow_to: the buffer grows up to this size while the consumer has to wait.
        name: the thread's name.
    """
    channel = _Channel(capacity, max(capacity, grow_to))
    thread = threading.Thread(target=_produce, args=(factory, channel), name=name, daemon=True)
    thread.start()
    try:
        while True:
            item = channel.get()
            if item is _END:
                return
            if type(item) is _Failure:
                raise item.error
            yield item
    finally:
        channel.close()
        if thread is not threading.current_thread():
            thread.join()


def resolve_workers(num_parallel_calls) -> int | None:
    """None (run inline), or the number of worker threads for `num_parallel_calls`."""
    if num_parallel_calls is None:
        return None
    count = dataset.int_argument(
        num_parallel_calls, "num_parallel_calls", 1, special=(dataset.AUTOTUNE,)
    )
    return (os.cpu_count() or 1) if count == dataset.AUTOTUNE else count


_worker = threading.local()


def _mark_worker(pool_token) -> None:
    _worker.pool = pool_token


def _run_chunk(apply, items):
    start = time.perf_counter()
    results = []
    try:
        for index, element in items:
            results.append((index, apply(element, index)))
    except BaseException as error:
        return results, _Failure(error), time.perf_counter() - start
    return results, None, time.perf_counter() - start


def _pull(iterator, count: int):
    """Up to `count` items; also whether the input ended and the error that ended it."""
    items = []
    try:
        for _ in range(count):
            items.append(next(iterator))
    except StopIteration:
        return items, True, None
    except Exception as error:
        return items, True, error
    return items, False, None


def parallel_map(indexed_elements, apply, workers: int, deterministic: bool):
    """Yields ``(index, apply(element, index))`` computed on `workers` threads.

    Elements are pulled from `indexed_elements` (``(index, element)`` pairs) in the
    consumer's thread and handed to the pool in chunks sized so that one task takes a
    couple of milliseconds. With `deterministic`, results come in input order;
    otherwise each chunk's results come as soon as the chunk is done.
    """
    token = object()
    pool = futures.ThreadPoolExecutor(
        workers, thread_name_prefix="eagerflow-map", initializer=_mark_worker,
        initargs=(token,),
    )
    pending: collections.deque[Any] = collections.deque()
    chunk = 1
    exhausted = False
    upstream_error = None
    try:
        while True:
            while not exhausted and len(pending) < 2 * workers:
                items, exhausted, upstream_error = _pull(indexed_elements, chunk)
                if items:
                    pending.append(pool.submit(_run_chunk, apply, items))
            if not pending:
                if upstream_error is not None:
                    raise upstream_error  # after every element that preceded it
                return
            if deterministic:
                future = pending.popleft()
            else:
                done, _ = futures.wait(pending, return_when=futures.FIRST_COMPLETED)
                future = next(f for f in pending if f in done)
                pending.remove(future)
            results, failure, seconds = future.result()
            if results:
                per_element = seconds / len(results)
                chunk = max(1, min(_MAX_CHUNK, int(_TASK_SECONDS / max(per_element, 1e-7))))
            yield from results
            if failure is not None:
                raise failure.error
    finally:
        for future in pending:
            future.cancel()
        # A pool cannot join itself: if the consumer is finalized inside one of this
        # pool's own workers (garbage collection can run in any thread), just signal.
        pool.shutdown(wait=getattr(_worker, "pool", None) is not token, cancel_futures=True)


class PrefetchDataset(dataset.Dataset):
    """Runs the input pipeline in a background thread, `buffer_size` elements ahead."""

    def __init__(self, input_dataset, buffer_size):
        self._inputs = (input_dataset,)
        self._buffer_size = dataset.int_argument(
            buffer_size, "buffer_size", 0, special=(dataset.AUTOTUNE,)
        )

    def _elements(self):
        source = self._inputs[0]
        size = self._buffer_size
        if size == 0:  # tf.data: no prefetching at all
            with closing(source._elements()) as elements:
                yield from elements
            return
        capacity, grow_to = (1, _AUTOTUNE_MAX_BUFFER) if size == dataset.AUTOTUNE else (size, size)
        with closing(background(source._elements, capacity, grow_to, "eagerflow-prefetch")) as it:
            yield from it

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()
