"""TensorSpec (eagerflow/core/spec.py)."""

import numpy as np

import eagerflow as ef


def test_construction_and_repr():
    spec = ef.TensorSpec([None, 784])
    assert spec.shape == (None, 784) and spec.dtype == ef.float32 and spec.name is None
    assert repr(spec) == "TensorSpec(shape=(None, 784), dtype=float32, name=None)"
    named = ef.TensorSpec((2,), "int64", name="ids")
    assert named.dtype == ef.int64
    assert repr(named) == "TensorSpec(shape=(2,), dtype=int64, name='ids')"
    assert ef.TensorSpec(None).shape is None
    assert ef.TensorSpec([]).shape == ()
    assert ef.TensorSpec(np.array([3, 4])).shape == (3, 4)


def test_from_tensor():
    assert ef.TensorSpec.from_tensor(ef.zeros([2, 3])) == ef.TensorSpec([2, 3])
    assert ef.TensorSpec.from_tensor(np.zeros(4, np.int32), name="a") == ef.TensorSpec(
        [4], ef.int32, name="a")
    assert ef.TensorSpec.from_tensor([1.0, 2.0]).dtype == ef.float64  # NumPy's conversion
    assert ef.TensorSpec.from_tensor(ef.Variable([1.0])).shape == (1,)


def test_is_compatible_with():
    spec = ef.TensorSpec([None, 3])
    assert spec.is_compatible_with(ef.zeros([5, 3]))
    assert spec.is_compatible_with(ef.zeros([0, 3]))
    assert not spec.is_compatible_with(ef.zeros([5, 4]))
    assert not spec.is_compatible_with(ef.zeros([5, 3, 1]))  # rank differs
    assert not spec.is_compatible_with(ef.zeros([5, 3], dtype=ef.float64))
    assert spec.is_compatible_with(ef.TensorSpec([2, None]))
    assert spec.is_compatible_with(np.zeros((1, 3), np.float32))
    assert ef.TensorSpec(None).is_compatible_with(ef.zeros([1, 2, 3]))
    assert spec.is_compatible_with(ef.TensorSpec(None))
    assert ef.TensorSpec([]).is_compatible_with(ef.constant(1.0))
    assert not ef.TensorSpec([]).is_compatible_with(ef.constant([1.0]))


def test_equality_and_hashing():
    a, b = ef.TensorSpec([None, 2]), ef.TensorSpec((None, 2), ef.float32)
    assert a == b and hash(a) == hash(b)
    assert a != ef.TensorSpec([None, 2], name="x")
    assert a != ef.TensorSpec([None, 2], ef.int32)
    assert a != ef.TensorSpec([1, 2])
    assert a != (None, 2)
    assert len({a, b, ef.TensorSpec([1])}) == 2
