"""Chunks of work taken by whichever thread is free (eagerflow/ops/kernels/chunks.py)."""

import threading
import time

import numpy as np
import pytest

from eagerflow.ops.kernels import chunks


@pytest.mark.parametrize(("count", "chunk", "threads"),
                         [(10, 3, 2), (10, 3, 1), (1, 4, 2), (0, 2, 2), (64, 1, 3), (7, 7, 2)])
def test_every_item_runs_exactly_once(count, chunk, threads):
    seen = np.zeros(count, int)
    ranges = []

    def task(start, stop):
        ranges.append((start, stop))
        seen[start:stop] += 1

    chunks.run(task, count, chunk, threads)
    np.testing.assert_array_equal(seen, 1)
    assert all(stop - start <= max(chunk, count) for start, stop in ranges)
    if threads > 1 and count > chunk:
        assert all(stop - start <= chunk for start, stop in ranges)


def test_the_chunks_run_in_two_threads_when_one_waits():
    # A chunk that blocks until another chunk ran in another thread: only two threads
    # working at once can finish.
    names, other_ran = set(), threading.Event()

    def task(start, stop):
        names.add(threading.current_thread().name)
        if start == 0:
            assert other_ran.wait(10), "no second thread took a chunk"
        else:
            other_ran.set()

    chunks.run(task, 2, 1, 2)
    assert len(names) == 2


def test_a_chunk_that_raises_raises_in_the_caller_after_the_others():
    done = []

    def task(start, stop):
        if start == 3:
            raise ZeroDivisionError("chunk 3")
        time.sleep(0.001)
        done.append(start)

    with pytest.raises(ZeroDivisionError, match="chunk 3"):
        chunks.run(task, 6, 1, 2)
    assert sorted(done) == [0, 1, 2, 4, 5]


@pytest.mark.parametrize(("count", "chunk", "threads"), [(-1, 1, 2), (4, 0, 2), (4, 1, 0)])
def test_bad_arguments_are_named(count, chunk, threads):
    with pytest.raises(ValueError, match=rf"chunks.run: .*count={count}, chunk={chunk}, "
                                         rf"threads={threads}"):
        chunks.run(lambda start, stop: None, count, chunk, threads)
