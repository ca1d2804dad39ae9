import numpy as np
import pytest

import eagerflow as ef
from tests.optim import reference
from tests.optim.helpers import assert_float32_close, data, run_optimizer


@pytest.mark.parametrize("kwargs", [
    {"learning_rate": 0.01},
    {"learning_rate": 0.05, "weight_decay": 0.1},
    {"learning_rate": 0.01, "weight_decay": 0.3, "amsgrad": True},
])
def test_matches_keras_rule_over_several_steps(kwargs):
    weights, grads = data(steps=8)
    actual, _ = run_optimizer(ef.optim.AdamW(**kwargs), weights, grads)
    kwargs = dict(kwargs)
    decay = kwargs.pop("weight_decay", 0.004)
    rule = reference.with_weight_decay(reference.adam, decay)
    expected, _ = reference.run(rule, weights, grads, lr=kwargs.pop("learning_rate"), **kwargs)
    assert_float32_close(actual, expected)


def test_decay_is_decoupled_from_the_gradient():
    # A zero gradient still shrinks the weights by lr * weight_decay per step (the Adam part
    # of the update is exactly zero), unlike L2 regularisation folded into the gradient.
    w = ef.Variable([2.0, -4.0])
    opt = ef.optim.AdamW(learning_rate=0.1, weight_decay=0.5)
    for _ in range(3):
        opt.apply_gradients([(ef.constant([0.0, 0.0]), w)])
    np.testing.assert_allclose(w.numpy(), np.array([2.0, -4.0]) * 0.95**3, rtol=1e-6)


def test_excluded_variables_are_not_decayed():
    kernel = ef.Variable([1.0], name="dense/kernel")
    bias = ef.Variable([1.0], name="dense/bias")
    other = ef.Variable([1.0], name="norm/gamma")
    opt = ef.optim.AdamW(learning_rate=0.1, weight_decay=0.5)
    opt.exclude_from_weight_decay(var_list=[other], var_names=["bias"])
    zero = ef.constant([0.0])
    opt.apply_gradients([(zero, kernel), (zero, bias), (zero, other)])
    assert float(kernel[0]) == pytest.approx(0.95)
    assert float(bias[0]) == 1.0 and float(other[0]) == 1.0


def test_weight_decay_is_required():
    with pytest.raises(ValueError, match="Received: weight_decay=None"):
        ef.optim.AdamW(weight_decay=None)


def test_weight_decay_is_a_variable():
    opt = ef.optim.AdamW(weight_decay=0.1)
    opt.weight_decay = 0.0
    w = ef.Variable([1.0])
    opt.apply_gradients([(ef.constant([0.0]), w)])
    assert float(w[0]) == 1.0
