"""Initializers: Keras formulas, seeding, names and configs."""

import numpy as np
import pytest

import eagerflow as ef

init = ef.initializers


@pytest.mark.parametrize("name, cls", [
    ("glorot_uniform", init.GlorotUniform), ("glorot_normal", init.GlorotNormal),
    ("he_normal", init.HeNormal), ("he_uniform", init.HeUniform),
    ("lecun_normal", init.LecunNormal), ("lecun_uniform", init.LecunUniform),
    ("zeros", init.Zeros), ("ones", init.Ones), ("constant", init.Constant),
    ("random_normal", init.RandomNormal), ("random_uniform", init.RandomUniform),
    ("truncated_normal", init.TruncatedNormal), ("orthogonal", init.Orthogonal),
    ("identity", init.Identity), ("uniform", init.RandomUniform),
    ("GlorotUniform", init.GlorotUniform),
])
def test_get_by_name_and_config_round_trip(name, cls):
    instance = init.get(name)
    assert isinstance(instance, cls)
    clone = init.deserialize(init.serialize(instance))
    assert type(clone) is cls and clone.get_config() == instance.get_config()
    value = instance((4, 4), dtype="float64")
    assert value.shape == (4, 4) and value.dtype == np.float64


@pytest.mark.parametrize("cls, scale, mode, kind", [
    (init.GlorotUniform, 1.0, "fan_avg", "uniform"),
    (init.HeUniform, 2.0, "fan_in", "uniform"),
    (init.LecunUniform, 1.0, "fan_in", "uniform"),
    (init.GlorotNormal, 1.0, "fan_avg", "normal"),
    (init.HeNormal, 2.0, "fan_in", "normal"),
    (init.LecunNormal, 1.0, "fan_in", "normal"),
])
def test_variance_scaling_statistics(cls, scale, mode, kind):
    shape = (300, 200)
    fan = {"fan_in": 300, "fan_avg": 250}[mode]
    values = cls(seed=1)(shape).numpy()
    assert values.std() == pytest.approx(np.sqrt(scale / fan), rel=0.05)
    if kind == "uniform":
        assert np.abs(values).max() <= np.sqrt(3 * scale / fan)
    else:
        assert np.abs(values).max() <= 2 * np.sqrt(scale / fan) / 0.87962566103423978 + 1e-6


def test_conv_kernel_fans_count_the_receptive_field():
    assert init.compute_fans((3, 3, 8, 16)) == (72, 144)
    assert init.compute_fans((5,)) == (5, 5)
    assert init.compute_fans(()) == (1, 1)
    values = init.VarianceScaling(1.0, "fan_out", "untruncated_normal", seed=0)((3, 3, 8, 16))
    assert values.numpy().std() == pytest.approx(np.sqrt(1 / 144), rel=0.1)


def test_seeds():
    a = init.RandomNormal(seed=3)((5,)).numpy()
    np.testing.assert_array_equal(a, init.RandomNormal(seed=3)((5,)).numpy())
    ef.random.set_seed(9)
    b = init.GlorotUniform()((5, 5)).numpy()
    c = init.GlorotUniform()((5, 5)).numpy()
    ef.random.set_seed(9)
    np.testing.assert_array_equal(b, init.GlorotUniform()((5, 5)).numpy())
    assert not np.array_equal(b, c)


def test_constant_orthogonal_identity():
    np.testing.assert_array_equal(init.Constant([1.0, 2.0])((2, 2)).numpy(), [[1, 2], [1, 2]])
    q = init.Orthogonal(gain=2.0, seed=0)((3, 5)).numpy()
    np.testing.assert_allclose(q @ q.T, 4 * np.eye(3), atol=1e-5)
    q = init.Orthogonal(seed=0)((2, 3, 4)).numpy().reshape(6, 4)
    np.testing.assert_allclose(q.T @ q, np.eye(4), atol=1e-5)
    np.testing.assert_array_equal(init.Identity(3.0)((2, 3)).numpy(), 3 * np.eye(2, 3))
    assert repr(init.Constant(2)) == "Constant(value=2)"


def test_initializer_errors():
    with pytest.raises(ValueError, match="Unknown initializer 'glorot'"):
        init.get("glorot")
    with pytest.raises(ValueError, match="Unknown initializer class 'Nope'"):
        init.get({"class_name": "Nope", "config": {}})
    with pytest.raises(ValueError, match="deserialize expects {'class_name'"):
        init.get({"config": {}})
    with pytest.raises(ValueError, match="Could not interpret initializer identifier: 3"):
        init.get(3)
    with pytest.raises(ValueError, match="`scale` must be positive"):
        init.VarianceScaling(0.0)
    with pytest.raises(ValueError, match="`mode` must be"):
        init.VarianceScaling(mode="fan")
    with pytest.raises(ValueError, match="`distribution` must be"):
        init.VarianceScaling(distribution="cauchy")
    with pytest.raises(ValueError, match="rank >= 2"):
        init.Orthogonal()((3,))
    with pytest.raises(ValueError, match="needs a 2-D weight"):
        init.Identity()((2, 2, 2))
    with pytest.raises(ValueError, match="cannot fill a weight of shape"):
        init.Constant([1.0, 2.0, 3.0])((2, 2))
    with pytest.raises(ValueError, match="shape of ints"):
        init.Zeros()(None)
    with pytest.raises(ValueError, match="non-negative sizes"):
        init.Zeros()((-1,))
    with pytest.raises(TypeError, match="must implement __call__"):
        init.Initializer()((2,))


def test_callables_pass_through():
    def custom(shape, dtype=None):
        return ef.fill(shape, 5.0)

    assert init.get(custom) is custom
    layer = ef.layers.Dense(1, kernel_initializer=custom)
    layer(ef.ones([1, 2]))
    np.testing.assert_array_equal(layer.kernel.numpy(), 5.0)
