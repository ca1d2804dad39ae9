"""Background threads: parallel map and prefetch — order, errors, clean shutdown."""

import gc
import threading
import time

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import errors

from .helpers import pipeline_threads, values

Dataset = ef.data.Dataset


@pytest.fixture(autouse=True)
def _no_threads_left_behind():
    before = threading.active_count()
    yield
    gc.collect()
    assert pipeline_threads() == []
    assert threading.active_count() == before


def slow_square(x):
    time.sleep(0.002 * float(int(x) % 3))  # uneven costs, so workers finish out of order
    return x * x


@pytest.mark.parametrize("calls", [1, 2, 4, ef.data.AUTOTUNE])
def test_parallel_map_keeps_the_order(calls):
    ds = Dataset.range(40).map(slow_square, num_parallel_calls=calls)
    assert values(ds) == [i * i for i in range(40)]


def test_nondeterministic_parallel_map_gives_every_element():
    ds = Dataset.range(40).map(slow_square, num_parallel_calls=4, deterministic=False)
    assert sorted(values(ds)) == [i * i for i in range(40)]


def test_parallel_map_uses_several_threads():
    names = set()

    def record(x):
        names.add(threading.current_thread().name)
        time.sleep(0.001)
        return x

    list(Dataset.range(64).map(record, num_parallel_calls=3))
    assert len(names) > 1 and all(n.startswith("eagerflow-map") for n in names)


def failing_function(x):
    if int(x) == 5:
        raise ValueError("element five is bad")
    return x


@pytest.mark.parametrize("calls", [None, 3])
def test_map_errors_keep_their_traceback_and_come_after_earlier_elements(calls):
    seen = []
    ds = Dataset.range(20).map(failing_function, num_parallel_calls=calls)
    with pytest.raises(ValueError, match="element five is bad") as info:
        for value in ds:
            seen.append(int(value))
    assert seen == [0, 1, 2, 3, 4]
    assert any(entry.name == "failing_function" for entry in info.traceback)


def test_upstream_errors_come_after_earlier_elements_in_parallel_map():
    ds = Dataset.range(10).map(failing_function).map(lambda x: x, num_parallel_calls=2)
    seen = []
    with pytest.raises(ValueError, match="element five is bad"):
        for value in ds:
            seen.append(int(value))
    assert seen == [0, 1, 2, 3, 4]


def test_breaking_out_of_a_parallel_map_stops_the_workers():
    ds = Dataset.range(10**6).map(lambda x: x + 1, num_parallel_calls=4)
    for i, _ in enumerate(ds):
        if i == 3:
            break
    # the autouse fixture checks that no worker thread is alive


def test_closing_and_dropping_iterators_stops_the_threads():
    ds = Dataset.range(10**6).map(lambda x: x, num_parallel_calls=2).prefetch(3)
    it = iter(ds)
    next(it)
    assert pipeline_threads()
    it.close()
    assert pipeline_threads() == []
    it = iter(ds)
    next(it)
    del it  # garbage collection closes it
    assert pipeline_threads() == []


def test_prefetch_yields_everything_in_order():
    assert values(Dataset.range(100).prefetch(2)) == list(range(100))
    assert values(Dataset.range(100).prefetch(ef.data.AUTOTUNE)) == list(range(100))
    assert values(Dataset.range(5).prefetch(0)) == list(range(5))
    assert values(Dataset.range(0).prefetch(1)) == []


def test_prefetch_runs_the_pipeline_in_a_background_thread():
    where = []
    ds = Dataset.range(3).map(lambda x: where.append(threading.current_thread().name) or x)
    assert values(ds.prefetch(1)) == [0, 1, 2]
    assert set(where) == {"eagerflow-prefetch"}


def test_prefetch_propagates_errors_with_their_traceback():
    ds = Dataset.range(10).map(failing_function).prefetch(2)
    seen = []
    with pytest.raises(ValueError, match="element five is bad") as info:
        for value in ds:
            seen.append(int(value))
    assert seen == [0, 1, 2, 3, 4]
    assert any(entry.name == "failing_function" for entry in info.traceback)


def test_prefetch_stops_when_the_consumer_raises():
    with pytest.raises(RuntimeError, match="consumer fails"):
        for _ in Dataset.range(10**6).prefetch(4):
            raise RuntimeError("consumer fails")


def test_prefetch_of_an_infinite_dataset_can_be_abandoned():
    for i, _ in enumerate(Dataset.range(5).repeat().prefetch(ef.data.AUTOTUNE)):
        if i == 50:
            break


def test_prefetch_keeps_spec_and_cardinality():
    ds = Dataset.range(4).prefetch(2)
    assert ds.element_spec == ef.TensorSpec((), ef.int64) and len(ds) == 4


def test_prefetch_argument_errors():
    with pytest.raises(errors.InvalidArgumentError, match="`buffer_size` must be an int >= 0"):
        Dataset.range(3).prefetch(-5)


def test_nested_background_stages_shut_down_together():
    inner = Dataset.range(1000).prefetch(2).map(lambda x: x * 2, num_parallel_calls=2)
    ds = inner.batch(4).prefetch(2)
    first = next(iter(ds))
    assert first.numpy().tolist() == [0, 2, 4, 6]
    np.testing.assert_array_equal(values(ds.take(2))[1], [8, 10, 12, 14])
