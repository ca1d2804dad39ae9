"""interleave and flat_map."""

import gc

import pytest

import eagerflow as ef
from eagerflow.core import errors

from .helpers import pipeline_threads, values

Dataset = ef.data.Dataset


def test_interleave_order_matches_tf_data():
    # The example of tf.data's documentation, with its documented output.
    ds = Dataset.range(1, 6).interleave(
        lambda x: Dataset.from_tensors(x).repeat(6), cycle_length=2, block_length=4)
    assert values(ds) == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3,
                          4, 4, 5, 5, 5, 5, 5, 5]


def test_interleave_with_uneven_lengths_and_defaults():
    ds = Dataset.range(1, 4).interleave(lambda n: Dataset.range(n), cycle_length=3)
    assert values(ds) == [0, 0, 0, 1, 1, 2]
    assert sorted(values(Dataset.range(1, 4).interleave(lambda n: Dataset.range(n)))) == [
        0, 0, 0, 1, 1, 2]
    assert values(Dataset.range(0).interleave(lambda n: Dataset.range(n))) == []


def test_interleave_with_background_readers_keeps_the_order():
    ds = Dataset.range(1, 6).interleave(
        lambda x: Dataset.from_tensors(x).repeat(6), cycle_length=2, block_length=4,
        num_parallel_calls=2)
    assert values(ds)[:12] == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2]
    for _ in Dataset.range(10**6).interleave(lambda x: Dataset.range(10**6), cycle_length=3,
                                              num_parallel_calls=3):
        break
    gc.collect()
    assert pipeline_threads() == []


def test_flat_map_chains_in_order():
    ds = Dataset.from_tensor_slices([[1, 2], [3, 4]]).flat_map(Dataset.from_tensor_slices)
    assert values(ds) == [1, 2, 3, 4]
    assert ds.element_spec == ef.TensorSpec((), ef.int32)
    assert int(ds.cardinality()) == ef.data.UNKNOWN_CARDINALITY


def test_flat_map_unpacks_tuples():
    pairs = Dataset.from_tensor_slices(([1, 2], [10, 20]))
    ds = pairs.flat_map(lambda a, b: Dataset.from_tensors(a + b).repeat(2))
    assert values(ds) == [11, 11, 22, 22]


def test_map_func_must_return_a_dataset():
    with pytest.raises(errors.InvalidArgumentError,
                       match="map_func must return a Dataset, but returned Tensor for element 0"):
        list(Dataset.range(3).flat_map(lambda x: x))
    with pytest.raises(errors.InvalidArgumentError, match="returned Tensor for element 0"):
        _ = Dataset.range(3).flat_map(lambda x: x).element_spec
    with pytest.raises(TypeError, match="interleave expects a function"):
        Dataset.range(3).interleave("f")


def test_datasets_must_share_structure_and_dtypes():
    ds = Dataset.range(3).flat_map(
        lambda x: Dataset.from_tensors(x) if int(x) < 2 else Dataset.from_tensors(1.0))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"made from element 2 yields float32\[\], but the one made from "
                             r"element 0 yields int64\[\]"):
        list(ds)


def test_interleave_argument_errors_and_empty_spec():
    with pytest.raises(errors.InvalidArgumentError, match="`cycle_length` must be an int >= 1"):
        Dataset.range(3).interleave(lambda x: Dataset.range(x), cycle_length=0)
    with pytest.raises(errors.InvalidArgumentError, match="`block_length` must be an int >= 1"):
        Dataset.range(3).interleave(lambda x: Dataset.range(x), block_length=0)
    with pytest.raises(errors.InvalidArgumentError, match="the input is empty"):
        _ = Dataset.range(0).flat_map(lambda x: Dataset.range(x)).element_spec


def test_element_spec_when_the_first_made_dataset_is_empty():
    # tf.data traces map_func; the dataset made from element 0 here is empty, so its own
    # first element cannot tell the spec (an error before): the result's first one does
    def made(x):
        floats = Dataset.range(x).map(lambda y: ef.cast(y, ef.float32))
        return Dataset.zip((Dataset.range(x), floats))
    ds = Dataset.range(3).interleave(made, cycle_length=2)
    assert ds.element_spec == (ef.TensorSpec((), ef.int64), ef.TensorSpec((), ef.float32))
    assert Dataset.range(3).flat_map(made).element_spec == ds.element_spec
    batched = Dataset.range(1, 3).flat_map(lambda x: Dataset.range(3).map(lambda y: y).batch(2))
    assert batched.element_spec == ef.TensorSpec((None,), ef.int64)  # still the made spec
    empty = Dataset.range(3).flat_map(lambda x: Dataset.range(0).map(lambda y: y))
    with pytest.raises(errors.InvalidArgumentError, match="it has none"):
        _ = empty.element_spec
