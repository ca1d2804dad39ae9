"""Constraints: projections, names, configs."""

import numpy as np
import pytest

import eagerflow as ef

W = np.array([[1.0, -2.0], [3.0, 0.5]], "float32")


def test_constraints():
    np.testing.assert_allclose(ef.constraints.NonNeg()(W).numpy(), np.maximum(W, 0))
    norms = np.sqrt((W ** 2).sum(0))
    np.testing.assert_allclose(ef.constraints.UnitNorm()(W).numpy(), W / norms, rtol=1e-5)
    capped = ef.constraints.MaxNorm(2.0)(W).numpy()
    np.testing.assert_allclose(np.sqrt((capped ** 2).sum(0)), np.minimum(norms, 2.0), rtol=1e-5)
    between = ef.constraints.MinMaxNorm(2.5, 3.0)(W).numpy()
    np.testing.assert_allclose(np.sqrt((between ** 2).sum(0)), [3.0, 2.5], rtol=1e-5)
    assert ef.constraints.Constraint()(W) is W


def test_constraints_by_name_config_and_on_variables():
    for name in ("max_norm", "min_max_norm", "non_neg", "unit_norm"):
        instance = ef.constraints.get(name)
        clone = ef.constraints.deserialize(ef.constraints.serialize(instance))
        assert type(clone) is type(instance)
    layer = ef.layers.Dense(2, kernel_constraint="non_neg")
    layer(ef.ones([1, 2]))
    assert isinstance(layer.kernel.constraint, ef.constraints.NonNeg)
    with pytest.raises(ValueError, match="Unknown constraint 'positive'"):
        ef.constraints.get("positive")
