"""Work shared between threads in chunks that whichever thread is free takes next.

`jit.run_split` hands each thread one fixed range: on a quiet machine both finish
together, but when another process holds the second core the caller waits for a range
that has not even started (a scheduler time slice: milliseconds). Measured on the
attention kernels with the machine's other core busy: fixed halves took 3.8-5.0 ms
(median) for a forward or backward that runs in 1.0-1.2 ms on one thread. Here the caller
works too, taking chunk after chunk from a shared counter; a helper thread takes chunks
only once it runs. If it never gets a core, the caller does every chunk itself and waits
at most for the one chunk the helper is in: one thread's time plus a chunk, never worse.

The numba kernels pass ``jit.threads()`` as the thread count (this module imports no
numba). The tasks must release the GIL for the threads to overlap (compiled ``nogil`` kernels,
NumPy's ufunc loops); taking a chunk is one ``next`` on a counter, atomic under the GIL.

Examples:
    >>> import numpy as np
    >>> from eagerflow.ops.kernels import chunks
    >>> out = np.zeros(10)
    >>> chunks.run(lambda start, stop: out.__setitem__(slice(start, stop), 1.0), 10, 3, 2)
    >>> out.sum()
    np.float64(10.0)
"""

from __future__ import annotations

import concurrent.futures
import itertools
import os
import threading
from collections.abc import Callable
from typing import Any

_helpers: list = []  # [(threads, executor)] of the helper threads, started on first use
# A forked child has none of the parent's threads: it starts its own when it needs them.
os.register_at_fork(after_in_child=_helpers.clear)


def run(task: Callable[[int, int], Any], count: int, chunk: int, threads: int) -> None:
    """Runs ``task(start, stop)`` over ``range(count)`` in chunks of `chunk` items, in the
    caller's thread and up to ``threads - 1`` helper threads; returns when every chunk is
    done, raising the first exception a chunk raised.

    Raises:
        ValueError: when `count` is negative, or `chunk` or `threads` is not positive.
    """
    if count < 0 or chunk < 1 or threads < 1:
        raise ValueError(f"chunks.run: expected count >= 0, chunk >= 1 and threads >= 1. "
                         f"Received: count={count}, chunk={chunk}, threads={threads}")
    total = -(-count // chunk)
    helpers = min(threads, total) - 1
    if helpers <= 0:
        if count:
            task(0, count)
        return
    taken = itertools.count()
    lock = threading.Lock()
    finished = threading.Event()
    state: dict[str, Any] = {"done": 0, "error": None}

    def work() -> None:
        for index in taken:
            if index >= total:
                return
            try:
                task(index * chunk, min(count, (index + 1) * chunk))
            except BaseException as e:  # (re-raised in the caller, after every chunk)
                state["error"] = state["error"] or e
            with lock:
                state["done"] += 1
                if state["done"] == total:
                    finished.set()

    if not _helpers or _helpers[0][0] < helpers:  # (a pool of enough threads)
        _helpers[:] = [(helpers, concurrent.futures.ThreadPoolExecutor(
            helpers, thread_name_prefix="kernel-chunks"))]
    for _ in range(helpers):
        _helpers[0][1].submit(work)
    work()
    finished.wait()
    if state["error"] is not None:
        raise state["error"]
