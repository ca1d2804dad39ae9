"""Iterator and probe."""

import pytest

import eagerflow as ef
from eagerflow.core import errors
from eagerflow.data import iterator
from eagerflow.graph.conversion import ConversionError

Dataset = ef.data.Dataset


def test_iterator_protocol_get_next_and_close():
    it = iter(Dataset.range(2))
    assert isinstance(it, ef.data.Iterator) and iter(it) is it
    assert int(it.get_next()) == 0
    assert it.element_spec == ef.TensorSpec((), ef.int64)
    assert int(next(it)) == 1
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(errors.OutOfRangeError, match="End of sequence"):
        it.get_next()


def test_iterator_as_context_manager_closes():
    with iter(Dataset.range(5)) as it:
        next(it)
    with pytest.raises(StopIteration):
        next(it)


def test_probe_reads_one_element_and_marks_the_thread():
    seen = []

    def record(x):
        seen.append(iterator.is_probing())
        return x

    assert int(iterator.probe(Dataset.range(5).map(record))) == 0
    assert seen == [True] and not iterator.is_probing()
    assert iterator.probe(Dataset.range(0)) is None


def test_an_iterator_passed_to_ef_function_is_read_when_the_graph_runs():
    it = iter(ef.data.Dataset.from_tensor_slices(({"a": [[1.0], [2.0], [3.0]]}, [4, 5, 6])))
    f = ef.function(lambda iterator: next(iterator))
    f.get_concrete_function(it)  # tracing alone takes no element
    got = [f(it) for _ in range(3)]
    assert [(x["a"].numpy().tolist(), int(y)) for x, y in got] == [
        ([1.0], 4), ([2.0], 5), ([3.0], 6)]
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(ef.errors.OutOfRangeError, match="End of sequence"):
        f(it)


def test_iterators_made_inside_ef_function_and_loops_over_outer_iterators():
    ds = ef.data.Dataset.from_tensor_slices([1, 2, 3])
    f = ef.function(lambda: ef.reduce_sum(ef.stack(list(iter(ds)))))
    assert f().numpy() == 6 and f().numpy() == 6  # made inside: unrolled, starts afresh

    @ef.function
    def loop(iterator):
        for x in iterator:
            ef.print(x)

    with pytest.raises(ConversionError,
                       match="`for` loop over an ef.data iterator made outside ef.function"):
        loop(iter(ds))


def test_a_shuffled_or_generated_dataset_is_not_unrolled_inside_ef_function():
    shuffled = ef.data.Dataset.range(4).shuffle(4)
    generated = ef.data.Dataset.from_generator(
        lambda: [1, 2], output_signature=ef.TensorSpec([], ef.int32))

    @ef.function
    def total(ds):
        t = ef.constant(0, ef.int64)
        for x in ds:
            t += ef.cast(x, ef.int64)
        return t

    for ds, stage in ((shuffled, "ShuffleDataset|shuffle"), (generated, "GeneratorDataset")):
        with pytest.raises(errors.InvalidArgumentError,
                           match=rf"a ({stage}) stage cannot be iterated inside ef.function"):
            total(ds)
    it = iter(shuffled)  # made outside: read when the graph runs, a new element each call
    f = ef.function(lambda iterator: next(iterator))
    assert sorted(int(f(it)) for _ in range(4)) == [0, 1, 2, 3]


def test_next_inside_a_graph_loop_or_branch_takes_one_element_per_run():
    @ef.function
    def total(it, n):
        s = ef.constant(0, ef.int64)
        for _ in ef.range(n):
            s += next(it)
        return s

    it = iter(ef.data.Dataset.range(10))
    assert [int(total(it, ef.constant(3))) for _ in range(2)] == [0 + 1 + 2, 3 + 4 + 5]

    @ef.function
    def maybe(it, flag):
        if flag > 0:
            return next(it)
        return ef.constant(-1, ef.int64)

    it = iter(ef.data.Dataset.range(10))
    assert [int(maybe(it, ef.constant(f))) for f in (1, 0, 1)] == [0, -1, 1]


def _fails_at_3(x):
    if int(x) == 3:
        raise ValueError("bad element 3")
    return x


@pytest.mark.parametrize("make", [
    lambda ds: iter(ds), lambda ds: iter(ds.prefetch(2)), lambda ds: ds.as_numpy_iterator(),
])
def test_an_iterator_does_not_end_silently_after_an_error(make):
    # tf.data goes on with element 4; eagerflow cannot, and used to end (StopIteration),
    # silently dropping the rest for a loop that skips failing elements
    it = make(Dataset.range(6).map(_fails_at_3))
    assert [int(next(it)) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(ValueError, match="bad element 3"):
        next(it)
    for _ in range(2):
        with pytest.raises(errors.InvalidArgumentError,
                           match="stopped at element 3, where the pipeline raised ValueError: "
                                 "bad element 3.*start a new iterator"):
            next(it)
    closed = iter(Dataset.range(3))
    closed.close()
    assert next(closed, "done") == "done"
