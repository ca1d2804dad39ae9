"""shuffle: buffer semantics, seeds, reshuffling, and the vectorized order."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import errors
from eagerflow.core.errors import EagerflowWarning
from eagerflow.data import shuffling

from .helpers import values

Dataset = ef.data.Dataset


def test_shuffle_is_a_permutation():
    out = values(Dataset.range(100).shuffle(20))
    assert sorted(out) == list(range(100)) and out != list(range(100))


def test_buffer_of_one_does_not_shuffle():
    assert values(Dataset.range(50).shuffle(1)) == list(range(50))
    with pytest.warns(EagerflowWarning, match="is sorted"):
        sliced = Dataset.from_tensor_slices(np.arange(50)).shuffle(1)
    assert values(sliced) == list(range(50))


def test_a_small_buffer_only_moves_elements_a_little_forward():
    # With a buffer of k, output i can only be an input among the first i + k.
    for trial in range(5):
        out = values(Dataset.range(200).shuffle(5, seed=trial))
        assert all(value < position + 5 for position, value in enumerate(out))


def test_seed_gives_the_same_orders_and_reshuffles_each_iteration():
    a = Dataset.range(30).shuffle(30, seed=4)
    b = Dataset.range(30).shuffle(30, seed=4)
    first, second = values(a), values(a)
    assert first != second
    assert values(b) == first and values(b) == second
    assert values(Dataset.range(30).shuffle(30, seed=5)) != first


def test_reshuffle_each_iteration_false_repeats_the_order():
    ds = Dataset.range(30).shuffle(30, seed=1, reshuffle_each_iteration=False)
    assert values(ds) == values(ds)
    repeated = values(ds.repeat(2))
    assert repeated[:30] == repeated[30:]


def test_repeat_after_shuffle_reshuffles_every_epoch():
    out = values(Dataset.range(20).shuffle(20, seed=2).repeat(2))
    assert sorted(out[:20]) == sorted(out[20:]) == list(range(20)) and out[:20] != out[20:]


def test_global_seed_makes_unseeded_shuffles_reproducible():
    ef.random.set_seed(7)
    first = values(Dataset.range(40).shuffle(40))
    ef.random.set_seed(7)
    assert values(Dataset.range(40).shuffle(40)) == first
    ef.random.set_seed(7)
    ef.random.normal([1])  # another random op before changes the stream, as in TF
    assert values(Dataset.range(40).shuffle(40)) != first


def test_op_seed_depends_on_the_global_seed():
    ef.random.set_seed(1)
    a = values(Dataset.range(40).shuffle(40, seed=3))
    ef.random.set_seed(2)
    b = values(Dataset.range(40).shuffle(40, seed=3))
    ef.random.set_seed(None)
    assert a != b


@pytest.mark.parametrize("count, buffer", [(0, 3), (1, 1), (5, 8), (8, 8), (9, 8), (300, 7),
                                           (300, 1), (1000, 999)])
def test_shuffle_order_replays_the_buffer_algorithm(count, buffer):
    order = shuffling.shuffle_order(count, buffer, shuffling.UniformStream(
        np.random.default_rng(count)))
    reference = list(shuffling._buffered(iter(range(count)), buffer, shuffling.UniformStream(
        np.random.default_rng(count))))
    assert order.tolist() == reference


def test_uniform_stream_is_the_same_whatever_the_reads():
    a = shuffling.UniformStream(np.random.default_rng(0))
    b = shuffling.UniformStream(np.random.default_rng(0))
    mixed = [a.next() for _ in range(3)] + a.take(1000).tolist() + [a.next()]
    assert mixed == b.take(1004).tolist()


def test_shuffle_is_roughly_uniform_with_a_full_buffer():
    firsts = [values(Dataset.range(4).shuffle(4))[0] for _ in range(400)]
    counts = np.bincount(firsts, minlength=4)
    assert counts.min() > 60  # expected 100 each


def test_shuffle_keeps_element_spec_and_cardinality():
    ds = Dataset.range(5).shuffle(2)
    assert ds.element_spec == ef.TensorSpec((), ef.int64)
    assert int(ds.cardinality()) == 5


def test_shuffle_argument_errors():
    with pytest.raises(errors.InvalidArgumentError, match="`buffer_size` must be an int >= 1"):
        Dataset.range(3).shuffle(0)
    with pytest.raises(errors.InvalidArgumentError, match="AUTOTUNE is not supported"):
        Dataset.range(3).shuffle(ef.data.AUTOTUNE)


def test_small_buffer_over_sorted_labels_warns():
    labels = np.repeat(np.arange(5), 20)
    with pytest.warns(EagerflowWarning, match=r"shuffle\(buffer_size=10\) over 100 elements "
                                              r"whose component \[1\] is sorted"):
        Dataset.from_tensor_slices((np.zeros((100, 2)), labels)).shuffle(10)
    Dataset.from_tensor_slices((np.zeros((100, 2)), labels)).shuffle(100)  # no warning
    Dataset.from_tensor_slices(np.random.default_rng(0).permutation(100)).shuffle(10)
