"""The Dataset base class: iteration, inspection, reduce, apply, argument checks."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import errors
from eagerflow.data import dataset

from .helpers import values

Dataset = ef.data.Dataset


def test_iteration_yields_tensors_in_the_element_structure():
    ds = Dataset.from_tensor_slices({"x": np.arange(6.0).reshape(3, 2), "y": (np.arange(3),
                                                                            np.ones(3))})
    first = next(iter(ds))
    assert set(first) == {"x", "y"}
    assert isinstance(first["x"], ef.Tensor) and first["x"].shape == (2,)
    assert isinstance(first["y"], tuple) and isinstance(first["y"][0], ef.Tensor)


def test_each_iteration_starts_over():
    ds = Dataset.range(3)
    assert [int(v) for v in ds] == [0, 1, 2]
    assert [int(v) for v in ds] == [0, 1, 2]
    a, b = iter(ds), iter(ds)
    assert int(next(a)) == 0 and int(next(a)) == 1 and int(next(b)) == 0


def test_cardinality_and_len():
    assert int(Dataset.range(10).cardinality()) == 10
    assert Dataset.range(10).cardinality().dtype == np.int64
    assert len(Dataset.range(10).batch(3)) == 4
    assert int(Dataset.range(3).repeat().cardinality()) == ef.data.INFINITE_CARDINALITY
    assert int(Dataset.range(3).filter(lambda x: x > 0).cardinality()) == (
        ef.data.UNKNOWN_CARDINALITY)
    with pytest.raises(TypeError, match="The dataset is infinite"):
        len(Dataset.range(3).repeat())
    with pytest.raises(TypeError, match="The dataset length is unknown"):
        len(Dataset.range(3).filter(lambda x: x > 0))
    assert bool(Dataset.range(0)) is True


def test_repr_shows_the_element_spec():
    assert repr(Dataset.range(3)) == (
        "<RangeDataset element_spec=TensorSpec(shape=(), dtype=int64, name=None)>")
    assert "element_spec=<unknown>" in repr(Dataset.range(0).map(lambda x: x))


def test_as_numpy_iterator_gives_read_only_arrays_and_numpy_scalars():
    x = np.arange(6).reshape(3, 2)
    ds = Dataset.from_tensor_slices((x, np.arange(3)))
    rows = list(ds.as_numpy_iterator())
    assert isinstance(rows[0][0], np.ndarray) and not rows[0][0].flags.writeable
    assert isinstance(rows[0][1], np.int64)
    with pytest.raises(ValueError):
        rows[0][0][0] = 99


def test_reduce_folds_the_dataset():
    ds = Dataset.range(1, 5)
    assert int(ds.reduce(np.int64(0), lambda s, x: s + x)) == 10
    total, count = ds.reduce((np.int64(0), np.int64(0)), lambda s, x: (s[0] + x, s[1] + 1))
    assert (int(total), int(count)) == (10, 4)
    assert int(Dataset.range(0).reduce(np.int64(7), lambda s, x: s + x)) == 7


def test_reduce_rejects_a_changing_state():
    with pytest.raises(errors.InvalidArgumentError, match="state must keep the structure"):
        Dataset.range(3).reduce(np.int64(0), lambda s, x: (s, x))
    with pytest.raises(TypeError, match=r"float32\[\] at element 0"):
        Dataset.range(3).reduce(np.int64(0), lambda s, x: ef.cast(s, ef.float32))


def test_apply():
    assert values(Dataset.range(4).apply(lambda ds: ds.skip(2))) == [2, 3]
    with pytest.raises(TypeError, match="must return a Dataset. Received: int"):
        Dataset.range(4).apply(lambda ds: 3)


def test_int_argument_validation_names_the_argument():
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"`batch_size` must be an int >= 1. Received: batch_size=0"):
        Dataset.range(3).batch(0)
    with pytest.raises(TypeError, match=r"batch_size='2'"):  # tf.data: TypeError
        Dataset.range(3).batch("2")
    assert dataset.int_argument(ef.constant(3), "n", 1) == 3
    with pytest.raises(errors.InvalidArgumentError, match="or one of \\[-1\\]"):
        dataset.int_argument(-5, "buffer_size", 0, special=(-1,))


def test_constants_match_tf_data():
    assert ef.data.AUTOTUNE == ef.datasets.AUTOTUNE == -1
    assert ef.data.INFINITE_CARDINALITY == -1
    assert ef.data.UNKNOWN_CARDINALITY == -2
    assert ef.data.Dataset is ef.datasets.Dataset


def test_tf_data_methods_eagerflow_lacks_say_what_to_write_instead():
    ds = Dataset.range(10).batch(4)
    with pytest.raises(AttributeError, match=r"Dataset.rebatch is not supported by eagerflow: "
                                             r"write ds.unbatch\(\).batch"):
        ds.rebatch(3)
    assert [len(b) for b in ds.unbatch().batch(3)] == [3, 3, 3, 1]  # what tf.data's gives
    for name in ("window", "scan", "group_by_window", "bucket_by_sequence_length"):
        with pytest.raises(AttributeError, match=f"Dataset.{name} is not supported"):
            getattr(ds, name)
        assert not hasattr(ds, name)
    with pytest.raises(AttributeError, match="'BatchDataset' object has no attribute 'nope'"):
        _ = ds.nope


def test_seeded_random_ops_in_map_repeat_on_every_pass_like_tf_data():
    # TF 2.21 repeats them (the map function is traced once and its random ops restart
    # with every iterator): op seed only, op and global seed, and global seed only.
    for global_seed, op_seed in [(None, 7), (3, 7), (3, None)]:
        if global_seed is not None:
            ef.random.set_seed(global_seed)
        ds = ef.data.Dataset.range(3).map(lambda x: ef.random.uniform([], seed=op_seed))
        first, second = [float(v) for v in ds], [float(v) for v in ds]
        assert first == second and len(set(first)) == 3
    ef.random.set_seed(None)


def test_a_seeded_layer_in_map_keeps_its_own_state_across_passes_like_keras():
    # Keras 3's augmentation layers draw from their SeedGenerator: new values every pass.
    layer = ef.layers.RandomRotation(0.3, seed=5)
    image = np.arange(18, dtype="float32").reshape(2, 3, 3, 1)
    ds = ef.data.Dataset.from_tensors(image).repeat(3).map(lambda x: layer(x, training=True))
    first, second = [v.numpy() for v in ds], [v.numpy() for v in ds]
    assert not all(np.array_equal(a, b) for a, b in zip(first, second))
