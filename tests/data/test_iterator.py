"""Iterator and probe."""

import pytest

import eagerflow as ef
from eagerflow.core import errors
from eagerflow.data import iterator

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
