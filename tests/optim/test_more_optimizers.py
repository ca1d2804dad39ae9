"""Nadam, Adamax, Adadelta and Lion against NumPy transcriptions of Keras 3's rules (which
matched Keras 3.15 to float32 rounding over six steps when written), slots, checkpoints,
string names and bad arguments."""

import numpy as np
import pytest

import eagerflow as ef
from tests.optim import reference
from tests.optim.helpers import assert_float32_close, data, run_optimizer

CASES = [
    (ef.optim.Nadam, reference.nadam, {"learning_rate": 0.01}),
    (ef.optim.Nadam, reference.nadam,
     {"learning_rate": 0.1, "beta_1": 0.8, "beta_2": 0.99, "epsilon": 1e-3}),
    (ef.optim.Adamax, reference.adamax, {"learning_rate": 0.01}),
    (ef.optim.Adamax, reference.adamax,
     {"learning_rate": 0.1, "beta_1": 0.8, "beta_2": 0.9, "epsilon": 1e-3}),
    (ef.optim.Adadelta, reference.adadelta, {"learning_rate": 1.0}),
    (ef.optim.Adadelta, reference.adadelta, {"learning_rate": 0.5, "rho": 0.9, "epsilon": 1e-4}),
    (ef.optim.Lion, reference.lion, {"learning_rate": 0.01}),
    (ef.optim.Lion, reference.lion, {"learning_rate": 0.1, "beta_1": 0.5, "beta_2": 0.9}),
]


@pytest.mark.parametrize("cls, rule, kwargs", CASES,
                         ids=[f"{c.__name__}-{i}" for i, (c, _, _) in enumerate(CASES)])
def test_matches_keras_rule_over_several_steps(cls, rule, kwargs):
    weights, grads = data(steps=8)
    opt = cls(**kwargs)
    actual, variable = run_optimizer(opt, weights, grads)
    kwargs = dict(kwargs)
    expected, state = reference.run(rule, weights, grads, lr=kwargs.pop("learning_rate"),
                                    **kwargs)
    assert_float32_close(actual, expected)
    for name in opt.get_slot_names():
        assert_float32_close(opt.get_slot(variable, name).numpy(), state[name])


@pytest.mark.parametrize("name, cls", [("nadam", ef.optim.Nadam), ("adamax", ef.optim.Adamax),
                                       ("adadelta", ef.optim.Adadelta),
                                       ("lion", ef.optim.Lion)])
def test_string_names_and_compile(name, cls):
    assert isinstance(ef.optim.get(name), cls)
    model = ef.Sequential([ef.Input((3,)), ef.layers.Dense(1)])
    model.compile(optimizer=name, loss="mse")
    assert isinstance(model.optimizer, cls)
    x = np.random.default_rng(0).random((64, 3)).astype("float32")
    y = x.sum(axis=1, keepdims=True)
    history = model.fit(x, y, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_nadam_checkpoint_keeps_its_momentum_schedule(tmp_path):
    weights, grads = data(steps=6)
    opt = ef.optim.Nadam(0.01)
    variable = ef.Variable(weights.copy())
    for g in grads[:3]:
        opt.apply_gradients([(ef.constant(g), variable)])
    path = ef.Checkpoint(optimizer=opt, w=variable).write(str(tmp_path / "ckpt.h5"))
    restored_opt, restored = ef.optim.Nadam(0.01), ef.Variable(np.zeros_like(weights))
    ef.Checkpoint(optimizer=restored_opt, w=restored).read(path)  # deferred slots
    for g in grads[3:]:
        opt.apply_gradients([(ef.constant(g), variable)])
        restored_opt.apply_gradients([(ef.constant(g), restored)])
    np.testing.assert_array_equal(restored.numpy(), variable.numpy())
    assert float(restored_opt.u_product) == float(opt.u_product)
    assert any(v is opt.u_product for v in opt.variables)
    opt.reset_state()
    assert float(opt.u_product) == 1.0


@pytest.mark.parametrize("make, message", [
    (lambda: ef.optim.Lion(beta_1=0.0), r"`beta_1` must be in \(0, 1\]"),
    (lambda: ef.optim.Adamax(epsilon=-1.0), "`epsilon` must be >= 0"),
    (lambda: ef.optim.Adadelta(rho="high"), "`rho` must be a float"),
    (lambda: ef.optim.Nadam(beta_2=-0.5), "`beta_2` must be >= 0"),
])
def test_bad_arguments_are_named(make, message):
    with pytest.raises(ValueError, match=message):
        make()
