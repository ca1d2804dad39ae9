"""batch, padded_batch, unbatch, and the fused fast path."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import errors

from .helpers import values

Dataset = ef.data.Dataset


def test_batch_and_drop_remainder():
    assert values(Dataset.range(7).batch(3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert values(Dataset.range(7).batch(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert values(Dataset.range(0).batch(3)) == []
    assert int(Dataset.range(7).batch(3).cardinality()) == 3
    assert int(Dataset.range(7).batch(3, drop_remainder=True).cardinality()) == 2
    assert int(Dataset.range(7).repeat().batch(3).cardinality()) == -1


def test_batch_keeps_the_structure_and_element_spec():
    ds = Dataset.range(5).map(lambda x: {"x": ef.fill([2], x), "y": (x, ef.cast(x, ef.float32))})
    first = next(iter(ds.batch(2)))
    assert first["x"].shape == (2, 2) and first["y"][1].dtype == ef.float32
    assert ds.batch(2).element_spec == {
        "x": ef.TensorSpec((None, 2), ef.int64),
        "y": (ef.TensorSpec((None,), ef.int64), ef.TensorSpec((None,), ef.float32)),
    }
    assert ds.batch(2, drop_remainder=True).element_spec["x"].shape == (2, 2)


def test_batch_of_unequal_shapes_names_the_elements():
    ds = Dataset.range(1, 5).map(lambda n: (n, ef.zeros([n // 3 + 1])))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"component \[1\]: element 0 has shape \(1,\) but element 2 has "
                             r"shape \(2,\). Use padded_batch"):
        list(ds.batch(4))
    with pytest.raises(errors.InvalidArgumentError, match=r"element 2 has shape \(1,\) but "
                                                          r"element 3 has shape \(2,\)"):
        list(Dataset.range(5).map(lambda n: ef.zeros([n // 3 + 1])).batch(2))


def test_batch_of_strings():
    lines = Dataset.from_tensor_slices(np.array([b"a", b"bcd", b"ef"]))
    assert values(lines.batch(2)) == [[b"a", b"bcd"], [b"ef"]]


def _general(data, buffer, seed, batch, drop=False):
    # `take(-1)` hides the sliced source, so nothing below is fused.
    return Dataset.from_tensor_slices(data).take(-1).shuffle(buffer, seed=seed).batch(batch, drop)


@pytest.mark.parametrize("count, buffer, batch", [
    (100, 10, 7), (100, 1, 16), (100, 100, 32), (100, 250, 9), (50, 49, 50), (1, 1, 4),
    (0, 5, 3),
])
@pytest.mark.parametrize("drop", [False, True])
def test_fused_shuffle_batch_equals_the_per_element_path(count, buffer, batch, drop):
    data = (np.arange(count * 3, dtype=np.float32).reshape(count, 3),
            {"label": np.arange(count) % 7})
    fused = Dataset.from_tensor_slices(data).shuffle(buffer, seed=11).batch(batch, drop)
    vectorized_order = Dataset.from_tensor_slices(data).shuffle(buffer, seed=11).take(-1)
    general = _general(data, buffer, 11, batch, drop)
    for _ in range(3):  # each epoch reshuffles, identically in both paths
        expected = values(general)
        assert values(fused) == expected
        assert values(vectorized_order.batch(batch, drop)) == expected
    assert fused.element_spec == general.element_spec


def test_fused_path_under_the_global_seed():
    data = np.random.default_rng(0).permutation(40)
    ef.random.set_seed(3)
    fused = Dataset.from_tensor_slices(data).shuffle(16).batch(8)
    ef.random.set_seed(3)
    general = Dataset.from_tensor_slices(data).take(-1).shuffle(16).batch(8)
    assert values(fused) == values(general)


def test_fused_batch_without_shuffle_and_dtypes():
    data = (np.arange(10, dtype=np.int16), np.ones((10, 2), np.float16))
    fused = Dataset.from_tensor_slices(data).batch(4)
    general = Dataset.from_tensor_slices(data).take(-1).batch(4)
    assert values(fused) == values(general)
    assert [t.dtype for t in next(iter(fused))] == [np.int16, np.float16]
    single = Dataset.from_tensor_slices(np.arange(5)).batch(2, drop_remainder=True)
    assert values(single) == [[0, 1], [2, 3]]


def test_fused_batches_are_not_writeable_views_of_user_data():
    x = np.arange(6.0)
    batch = next(iter(Dataset.from_tensor_slices(x).batch(3)))
    x[0] = 50.0
    assert batch.numpy().tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError):
        batch.numpy()[0] = 1.0


def test_padded_batch_pads_to_the_longest():
    ds = Dataset.range(1, 5).map(lambda n: ef.fill([n], n))
    assert values(ds.padded_batch(2)) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]
    assert ds.padded_batch(2).element_spec == ef.TensorSpec((None, None), ef.int64)


def test_padded_batch_shapes_and_values_per_component():
    ds = Dataset.range(1, 4).map(lambda n: (ef.fill([n], n), ef.fill([n, 2], 1.0)))
    batch = next(iter(ds.padded_batch(3, padded_shapes=([5], [None, 3]),
                                      padding_values=(-1, 0.5))))
    assert batch[0].numpy().tolist() == [[1, -1, -1, -1, -1], [2, 2, -1, -1, -1],
                                         [3, 3, 3, -1, -1]]
    assert batch[1].shape == (3, 3, 3) and float(batch[1][0, 2, 2]) == 0.5
    spec = ds.padded_batch(3, padded_shapes=([5], [None, 3]), drop_remainder=True).element_spec
    assert spec == (ef.TensorSpec((3, 5), ef.int64), ef.TensorSpec((3, None, 3), ef.float32))
    scalar_pad = next(iter(ds.padded_batch(2, padding_values=9)))
    assert scalar_pad[0].numpy().tolist() == [[1, 9], [2, 2]]


def test_padded_batch_of_strings_and_scalars():
    words = Dataset.from_tensor_slices(np.array([b"a", b"bb"])).map(lambda w: ef.stack([w, w]))
    assert values(words.padded_batch(2)) == [[[b"a", b"a"], [b"bb", b"bb"]]]
    assert values(Dataset.range(3).padded_batch(2)) == [[0, 1], [2]]


def test_padded_batch_errors():
    ds = Dataset.range(1, 4).map(lambda n: ef.fill([n], n))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"element 2 has shape \(3,\), larger than "
                             r"padded_shapes \(2,\)"):
        list(ds.padded_batch(3, padded_shapes=[2]))
    with pytest.raises(errors.InvalidArgumentError, match="has rank 2 but the elements have"):
        list(ds.padded_batch(3, padded_shapes=[2, 2]))
    with pytest.raises(errors.InvalidArgumentError, match="must be a list of non-negative ints"):
        list(ds.padded_batch(3, padded_shapes=["x"]))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"padded_shapes in component \[1\] must be a list"):
        list(Dataset.from_tensors(([1], [2])).padded_batch(1, padded_shapes=([1], ["x"])))
    pairs = Dataset.from_tensors((1, 2))
    with pytest.raises(errors.InvalidArgumentError,
                       match="`padded_shapes` must have the structure of the elements"):
        list(pairs.padded_batch(1, padded_shapes=([1],)))
    ranks = Dataset.range(2).map(lambda n: ef.zeros([1] * int(n + 1)))
    with pytest.raises(errors.InvalidArgumentError, match="elements of different ranks"):
        list(ranks.padded_batch(2))
    with pytest.raises(errors.InvalidArgumentError, match="padding value: "):
        list(ds.padded_batch(2, padding_values=0.5))
    with pytest.raises(errors.InvalidArgumentError,
                       match="padding value: Cannot convert 'a' to dtype int64: it holds strings"):
        list(ds.padded_batch(2, padding_values="a"))  # a bare ValueError before
    with pytest.raises(errors.InvalidArgumentError, match="padding values must be scalars"):
        list(ds.padded_batch(2, padding_values=[1, 2]))


def test_unbatch():
    ds = Dataset.range(5).batch(2).unbatch()
    assert values(ds) == [0, 1, 2, 3, 4]
    assert ds.element_spec == ef.TensorSpec((), ef.int64)
    assert int(ds.cardinality()) == ef.data.UNKNOWN_CARDINALITY
    pairs = Dataset.from_tensors(([[1, 2], [3, 4]], [5, 6])).unbatch()
    assert values(pairs) == [([1, 2], 5), ([3, 4], 6)]


def test_unbatch_cardinality_is_known_when_the_batch_dimension_is():
    # tf.data 2.21: the input's length times a statically known leading dimension
    known = Dataset.from_tensor_slices(np.zeros((3, 2, 1))).unbatch()
    assert int(known.cardinality()) == 6 and len(values(known)) == 6
    assert int(Dataset.range(7).batch(2, drop_remainder=True).unbatch().cardinality()) == 6
    mixed = Dataset.zip((Dataset.range(4).batch(2, drop_remainder=True),
                         Dataset.range(4).batch(2)))
    assert int(mixed.unbatch().cardinality()) == 4
    assert int(Dataset.range(7).batch(2).unbatch().cardinality()) == -2  # (None,) batches
    assert int(Dataset.range(3).repeat().batch(2).unbatch().cardinality()) == -1
    assert int(Dataset.from_tensor_slices(np.zeros((3, 0))).unbatch().cardinality()) == -2
    mapped = Dataset.range(2).map(lambda x: ef.fill([2], x))  # spec read from a first result
    assert int(mapped.unbatch().cardinality()) == -2


def test_unbatch_errors():
    # Static element specs: refused when the dataset is built, as tf.data does.
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"same first dimension, but they have \[2, 3\]"):
        Dataset.from_tensors(([1, 2], [1, 2, 3])).unbatch()
    with pytest.raises(errors.InvalidArgumentError, match="unbatch needs elements of rank >= 1"):
        Dataset.range(2).unbatch()
    # Element specs read from a user function's result: refused while iterating.
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"same first dimension, but element 0 is \(int32\[2\], int32\[3\]\)"):
        list(Dataset.range(1).map(lambda _: (ef.constant([1, 2]), ef.constant([1, 2, 3])))
             .unbatch())
    with pytest.raises(errors.InvalidArgumentError, match="element 0 is int64\\[\\]"):
        list(Dataset.range(2).map(lambda x: x).unbatch())
