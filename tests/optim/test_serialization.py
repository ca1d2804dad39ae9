"""Optimizer configs and `ef.optim.get`."""

import numpy as np
import pytest

import eagerflow as ef


@pytest.mark.parametrize("make", [
    lambda: ef.optim.SGD(0.1, momentum=0.5, nesterov=True, clipnorm=1.0),
    lambda: ef.optim.Adam(0.01, beta_1=0.8, amsgrad=True, weight_decay=0.1),
    lambda: ef.optim.AdamW(0.01, weight_decay=0.2),
    lambda: ef.optim.RMSprop(0.01, rho=0.8, momentum=0.5, centered=True, global_clipnorm=2.0),
    lambda: ef.optim.Adagrad(0.1, initial_accumulator_value=0.5, clipvalue=1.0),
    lambda: ef.optim.SGD(ef.optim.schedules.CosineDecay(0.1, 100, warmup_target=1.0,
                                                        warmup_steps=5)),
    lambda: ef.optim.Nadam(0.01, beta_1=0.8, beta_2=0.99, epsilon=1e-5, clipvalue=1.0),
    lambda: ef.optim.Adamax(0.01, beta_1=0.8, beta_2=0.99, epsilon=1e-5),
    lambda: ef.optim.Adadelta(1.0, rho=0.9, epsilon=1e-6, weight_decay=0.01),
    lambda: ef.optim.Lion(1e-4, beta_1=0.95, beta_2=0.98),
    lambda: ef.optim.Adafactor(0.01, beta_2_decay=-0.5, epsilon_1=1e-20, epsilon_2=1e-2,
                               clip_threshold=2.0, relative_step=False),
    lambda: ef.optim.Ftrl(0.1, learning_rate_power=-0.25, initial_accumulator_value=0.5,
                          l1_regularization_strength=0.1, l2_regularization_strength=0.2,
                          l2_shrinkage_regularization_strength=0.3, beta=0.4),
])
def test_config_round_trip(make):
    opt = make()
    config = ef.optim.serialize(opt)
    clone = ef.optim.deserialize(config)
    assert type(clone) is type(opt)
    assert ef.optim.serialize(clone) == config
    assert float(clone.learning_rate) == pytest.approx(float(opt.learning_rate))


def test_get_by_name_config_or_instance():
    assert isinstance(ef.optim.get("sgd"), ef.optim.SGD)
    assert isinstance(ef.optim.get("Adam"), ef.optim.Adam)
    assert isinstance(ef.optim.get("adamw"), ef.optim.AdamW)
    opt = ef.optim.RMSprop()
    assert ef.optim.get(opt) is opt
    assert ef.optim.get({"class_name": "Adagrad", "config": {"learning_rate": 0.5}}).name == \
        "adagrad"


@pytest.mark.parametrize("name, cls", [
    ("nadam", "Nadam"), ("adamax", "Adamax"), ("adadelta", "Adadelta"), ("lion", "Lion"),
    ("adafactor", "Adafactor"), ("ftrl", "Ftrl"), ("Nadam", "Nadam"),
])
def test_get_by_keras_string_name(name, cls):
    opt = ef.optim.get(name)
    assert type(opt) is getattr(ef.optim, cls)
    assert opt.name == cls.lower()


def test_keras_defaults_in_configs():
    expected = {
        "Nadam": {"learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7},
        "Adamax": {"learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7},
        "Adadelta": {"learning_rate": 0.001, "rho": 0.95, "epsilon": 1e-7},
        "Lion": {"learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.99},
        "Adafactor": {"learning_rate": 0.001, "beta_2_decay": -0.8, "epsilon_1": 1e-30,
                      "epsilon_2": 1e-3, "clip_threshold": 1.0, "relative_step": True},
        "Ftrl": {"learning_rate": 0.001, "learning_rate_power": -0.5,
                 "initial_accumulator_value": 0.1, "l1_regularization_strength": 0.0,
                 "l2_regularization_strength": 0.0, "l2_shrinkage_regularization_strength": 0.0,
                 "beta": 0.0},
    }
    for cls, defaults in expected.items():
        config = getattr(ef.optim, cls)().get_config()
        for key, value in defaults.items():
            assert config[key] == pytest.approx(value, rel=1e-6), (cls, key)


def test_get_errors():
    with pytest.raises(ValueError, match="Unknown optimizer 'adamaxx'"):
        ef.optim.get("adamaxx")
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier"):
        ef.optim.get(3)


def test_optimizer_name_and_repr():
    opt = ef.optim.RMSprop(name="disc")
    assert opt.name == "disc" and opt.iterations.name == "disc/iterations"
    assert repr(ef.optim.AdamW()) == "<ef.optim.AdamW name='adam_w'>"


@pytest.mark.parametrize("name", ["nadam", "adamax", "adadelta", "lion", "adafactor", "ftrl"])
def test_compile_resolves_the_keras_string_name(name):
    model = ef.Sequential([ef.layers.Dense(1)])
    model.compile(optimizer=name, loss="mse")
    assert type(model.optimizer) is type(ef.optim.get(name))
    x = np.ones((4, 2), np.float32)
    before = model.train_on_batch(x, np.zeros((4, 1), np.float32))
    assert int(model.optimizer.iterations) == 1 and np.isfinite(float(before))
