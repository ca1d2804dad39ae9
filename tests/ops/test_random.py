"""Seeded random ops (eagerflow/ops/random.py)."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.ops import random as core_random

_E = ef.errors.InvalidArgumentError


@pytest.fixture(autouse=True)
def _restore_global_generator():
    """Tests reseed the global state; give later tests a fresh unseeded one."""
    yield
    ef.random.set_seed(None)


def _draws():
    return [ef.random.normal([3]).numpy(), ef.random.uniform([2, 2]).numpy(),
            ef.random.truncated_normal([4]).numpy(),
            ef.random.categorical([[0.0, 0.0, 0.0]], 5).numpy(),
            ef.random.shuffle(ef.range(10)).numpy(),
            ef.random.uniform([3], 0, 100, dtype=ef.int32).numpy()]


def _same(first, second):
    return all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))


def test_set_seed_makes_every_random_op_reproducible():
    ef.random.set_seed(42)
    first = _draws()
    ef.random.set_seed(42)
    assert _same(first, _draws())
    ef.random.set_seed(43)
    assert not _same(first, _draws())


def test_successive_draws_differ():
    ef.random.set_seed(0)
    assert not np.array_equal(ef.random.normal([5]).numpy(), ef.random.normal([5]).numpy())


def test_op_seeds():
    ef.random.set_seed(1)
    a1, a2 = ef.random.normal([4], seed=7), ef.random.normal([4], seed=7)
    assert not np.array_equal(a1.numpy(), a2.numpy())  # repeated calls draw new values
    ef.random.set_seed(1)
    ef.random.normal([10])  # unseeded draws do not disturb an op seed's stream
    b1, b2 = ef.random.normal([4], seed=7), ef.random.normal([4], seed=7)
    np.testing.assert_array_equal(a1.numpy(), b1.numpy())
    np.testing.assert_array_equal(a2.numpy(), b2.numpy())
    assert not np.array_equal(ef.random.normal([4], seed=8).numpy(), a1.numpy())
    ef.random.set_seed(2)  # the op seed's stream also depends on the global seed
    assert not np.array_equal(ef.random.normal([4], seed=7).numpy(), a1.numpy())


def test_op_seed_without_global_seed_is_deterministic():
    ef.random.set_seed(None)
    a = ef.random.uniform([3], seed=5).numpy()
    ef.random.set_seed(None)
    np.testing.assert_array_equal(ef.random.uniform([3], seed=5).numpy(), a)


def test_generator_has_its_own_state():
    g1, g2 = ef.random.Generator.from_seed(3), ef.random.Generator.from_seed(3)
    np.testing.assert_array_equal(g1.normal([3]).numpy(), g2.normal([3]).numpy())
    ef.random.set_seed(0)  # the global seed does not touch explicit generators
    np.testing.assert_array_equal(g1.uniform([3]).numpy(), g2.uniform([3]).numpy())
    first = g1.normal([3]).numpy()
    g1.reset_from_seed(3)
    assert not np.array_equal(g1.normal([3]).numpy(), first)  # restarted stream: 1st draw
    g1.reset_from_seed(3)
    np.testing.assert_array_equal(g1.normal([3]).numpy(),
                                  ef.random.Generator.from_seed(3).normal([3]).numpy())


def test_generator_split_and_non_deterministic_state():
    children = ef.random.Generator.from_seed(9).split(3)
    assert len(children) == 3
    values = [c.normal([4]).numpy() for c in children]
    assert not np.array_equal(values[0], values[1])
    again = [c.normal([4]).numpy() for c in ef.random.Generator.from_seed(9).split(3)]
    assert _same(values, again)
    a = ef.random.Generator.from_non_deterministic_state().normal([8]).numpy()
    b = ef.random.Generator.from_non_deterministic_state().normal([8]).numpy()
    assert not np.array_equal(a, b)


def test_global_generator_can_be_replaced():
    g = ef.random.Generator.from_seed(11)
    ef.random.set_global_generator(g)
    assert ef.random.get_global_generator() is g
    a = ef.random.normal([3]).numpy()
    np.testing.assert_array_equal(a, ef.random.Generator.from_seed(11).normal([3]).numpy())
    assert core_random.generator_for(None) is g


def test_generator_methods_match_the_module_functions():
    g = ef.random.Generator.from_seed(0)
    assert g.truncated_normal([3]).shape == (3,)
    assert g.categorical([[0.0, 1.0]], 4).shape == (1, 4)
    assert sorted(g.shuffle([1, 2, 3]).numpy().tolist()) == [1, 2, 3]


# -- distributions ------------------------------------------------------------------------
def test_normal_moments_and_dtypes():
    ef.random.set_seed(0)
    x = ef.random.normal([20000], mean=3.0, stddev=2.0).numpy()
    assert x.dtype == np.float32
    assert abs(x.mean() - 3.0) < 0.05 and abs(x.std() - 2.0) < 0.05
    assert ef.random.normal([2], dtype=ef.float64).dtype == ef.float64
    assert ef.random.normal([2], dtype=ef.float16).dtype == ef.float16
    assert ef.random.normal([]).shape == ()
    assert ef.random.normal(3).shape == (3,)
    assert ef.random.normal(ef.constant([2, 3])).shape == (2, 3)


def test_normal_with_tensor_parameters_broadcasts_and_differentiates():
    mean = ef.constant([0.0, 100.0])
    with ef.GradientTape() as tape:
        tape.watch(mean)
        x = ef.random.normal([500, 2], mean=mean, stddev=ef.constant([1.0, 0.01]))
    assert abs(float(ef.reduce_mean(x[:, 1])) - 100.0) < 0.01
    np.testing.assert_array_equal(tape.gradient(x, mean).numpy(), [500.0, 500.0])


def test_uniform_ranges():
    ef.random.set_seed(0)
    x = ef.random.uniform([10000]).numpy()
    assert x.dtype == np.float32 and x.min() >= 0.0 and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 0.02
    y = ef.random.uniform([10000], minval=-2.0, maxval=3.0).numpy()
    assert y.min() >= -2.0 and y.max() < 3.0 and abs(y.mean() - 0.5) < 0.1
    z = ef.random.uniform([1000], ef.constant(1.0), ef.constant(2.0)).numpy()
    assert z.min() >= 1.0 and z.max() < 2.0
    ints = ef.random.uniform([10000], 3, 7, dtype=ef.int64).numpy()
    assert ints.dtype == np.int64 and set(np.unique(ints)) == {3, 4, 5, 6}
    assert ef.random.uniform([2], dtype=ef.float64).dtype == ef.float64


def test_truncated_normal_bounds():
    ef.random.set_seed(0)
    x = ef.random.truncated_normal([20000]).numpy()
    assert np.abs(x).max() <= 2.0
    # the standard normal truncated to [-2, 2] has standard deviation ~0.88
    assert abs(x.mean()) < 0.03 and abs(x.std() - 0.88) < 0.03
    y = ef.random.truncated_normal([5000], mean=5.0, stddev=0.1, dtype=ef.float64).numpy()
    assert y.dtype == np.float64 and y.min() >= 4.8 and y.max() <= 5.2


def test_categorical():
    ef.random.set_seed(0)
    assert ef.random.categorical([[0.0, 100.0]], 3).numpy().tolist() == [[1, 1, 1]]
    samples = ef.random.categorical([[0.0, np.log(3.0)], [np.log(3.0), 0.0]], 4000)
    assert samples.shape == (2, 4000) and samples.dtype == ef.int64
    frequencies = samples.numpy().mean(axis=1)  # fraction of class 1 per row
    assert abs(frequencies[0] - 0.75) < 0.03 and abs(frequencies[1] - 0.25) < 0.03
    masked = ef.random.categorical([[0.0, -np.inf, 0.0]], 200, dtype=ef.int32)
    assert masked.dtype == ef.int32 and 1 not in masked.numpy()
    assert ef.random.categorical([[0.0, 1.0]], 0).shape == (1, 0)


def test_shuffle_is_a_permutation_of_the_first_axis():
    ef.random.set_seed(0)
    rows = np.arange(20).reshape(10, 2)
    shuffled = ef.random.shuffle(rows).numpy()
    assert sorted(shuffled[:, 0].tolist()) == rows[:, 0].tolist()
    np.testing.assert_array_equal(shuffled[:, 1] - shuffled[:, 0], np.ones(10))  # rows intact
    assert not np.array_equal(shuffled, rows)
    assert float(ef.random.shuffle(ef.constant(3.0))) == 3.0
    a = ef.random.shuffle(ef.range(50), seed=4).numpy()
    ef.random.set_seed(0)
    np.testing.assert_array_equal(ef.random.shuffle(ef.range(50), seed=4).numpy(), a)


def test_random_ops_are_not_differentiable_and_stateful():
    from eagerflow.core import dispatch

    for name in ("RandomStandardNormal", "RandomUniform", "RandomUniformInt", "TruncatedNormal",
                 "Multinomial", "RandomShuffle"):
        op = dispatch.OPS[name]
        assert op.stateful and not op.differentiable, name


# -- bad input ----------------------------------------------------------------------------
@pytest.mark.parametrize("draw, name", [
    (lambda s: ef.random.normal(s), "RandomStandardNormal"),
    (lambda s: ef.random.truncated_normal(s), "TruncatedNormal"),
    (lambda s: ef.random.uniform(s), "RandomUniform"),
    (lambda s: ef.random.uniform(s, 0, 5, dtype=ef.int32), "RandomUniformInt"),
])
def test_bad_shapes(draw, name):
    with pytest.raises(_E, match=rf"shape must be non-negative integers, got \[-1\] "
                                 rf"\[Op:{name}\]"):
        draw([-1])
    with pytest.raises(_E, match=rf"got \[2\.5\] \[Op:{name}\]"):
        draw([2.5])
    with pytest.raises(_E, match=rf"got \[\[1, 2\]\] \[Op:{name}\]"):
        draw([[1, 2]])


def test_float_distributions_need_float_dtypes():
    with pytest.raises(_E, match=r"RandomStandardNormal needs a floating-point dtype, got int32 "
                                 r"\[Op:RandomStandardNormal\]"):
        ef.random.normal([2], dtype=ef.int32)
    with pytest.raises(_E, match=r"TruncatedNormal needs a floating-point dtype, got int64 "
                                 r"\[Op:TruncatedNormal\]"):
        ef.random.truncated_normal([2], dtype=ef.int64)
    with pytest.raises(_E, match=r"RandomUniform needs a floating-point dtype, got bool "
                                 r"\[Op:RandomUniform\]"):
        ef.random.uniform([2], dtype=ef.bool)


def test_integer_uniform_bad_bounds():
    with pytest.raises(_E, match=r"uniform with integer dtype int32 needs maxval "
                                 r"\[Op:RandomUniformInt\]"):
        ef.random.uniform([2], dtype=ef.int32)
    with pytest.raises(_E, match=r"Need minval < maxval, got 5 >= 5 \[Op:RandomUniformInt\]"):
        ef.random.uniform([2], 5, 5, dtype=ef.int32)


def test_categorical_bad_input():
    with pytest.raises(_E, match=r"logits must be 2-D \[batch, classes\], got shape \(2,\) "
                                 r"\[Op:Multinomial\]"):
        ef.random.categorical([0.0, 1.0], 2)
    with pytest.raises(_E, match=r"num_samples must be non-negative, got -1 \[Op:Multinomial\]"):
        ef.random.categorical([[0.0, 1.0]], -1)
