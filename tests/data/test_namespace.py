"""The `ef.data` namespace (tf.data's names)."""

import pytest

import eagerflow as ef
from eagerflow import data, datasets


def test_data_names():
    for name in data.__all__:
        assert getattr(ef.data, name) is getattr(ef.datasets, name)
    assert set(data.__all__) == {"AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY",
                                 "Dataset", "Iterator", "TextLineDataset"}


def test_top_level_namespaces():
    assert "data" in ef.__all__ and "datasets" in ef.__all__
    assert ef.data is data and ef.datasets is datasets
    for module in ("digits", "mnist", "fashion_mnist", "cifar10"):
        assert callable(getattr(ef.datasets, module).load_data)


def test_namespaces_load_lazily_and_unknown_names_fail():
    with pytest.raises(AttributeError, match="module 'eagerflow' has no attribute 'nope'"):
        ef.nope  # noqa: B018
