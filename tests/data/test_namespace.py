"""The `ef.data` namespace (tf.data's names)."""

import pytest

import eagerflow as ef
from eagerflow import data, datasets


def test_data_names():
    for name in set(data.__all__) - {"experimental"}:
        assert getattr(ef.data, name) is getattr(ef.datasets, name)
    assert set(data.__all__) == {"AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY",
                                 "Dataset", "Iterator", "TextLineDataset", "experimental"}


def test_experimental_cardinality_is_the_method():
    ds = ef.data.Dataset.from_tensor_slices(list(range(10)))
    assert int(ef.data.experimental.cardinality(ds)) == 10
    assert "%d" % ef.data.experimental.cardinality(ds.batch(4)) == "3"  # noqa: UP031
    assert int(ef.data.experimental.cardinality(ds.repeat())) == data.INFINITE_CARDINALITY
    assert (int(ef.data.experimental.cardinality(ds.filter(lambda x: x > 2)))
            == ef.data.experimental.UNKNOWN_CARDINALITY)
    assert ef.data.experimental.cardinality(ds).dtype == ef.int64
    with pytest.raises(TypeError, match=r"`input_dataset` must be an ef.data.Dataset. "
                                        r"Received: input_dataset=\[1, 2\] of type list"):
        ef.data.experimental.cardinality([1, 2])


def test_top_level_namespaces():
    assert "data" in ef.__all__ and "datasets" in ef.__all__
    assert ef.data is data and ef.datasets is datasets
    for module in ("digits", "mnist", "fashion_mnist", "cifar10"):
        assert callable(getattr(ef.datasets, module).load_data)


def test_namespaces_load_lazily_and_unknown_names_fail():
    with pytest.raises(AttributeError, match="module 'eagerflow' has no attribute 'nope'"):
        ef.nope  # noqa: B018
