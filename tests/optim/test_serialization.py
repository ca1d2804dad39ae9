"""Optimizer configs and `ef.optim.get`."""

import pytest

import eagerflow as ef


@pytest.mark.parametrize("make", [
    lambda: ef.optim.SGD(0.1, momentum=0.5, nesterov=True, clipnorm=1.0),
    lambda: ef.optim.Adam(0.01, beta_1=0.8, amsgrad=True, weight_decay=0.1),
    lambda: ef.optim.AdamW(0.01, weight_decay=0.2),
    lambda: ef.optim.RMSprop(0.01, rho=0.8, momentum=0.5, centered=True, global_clipnorm=2.0),
    lambda: ef.optim.Adagrad(0.1, initial_accumulator_value=0.5, clipvalue=1.0),
    lambda: ef.optim.Nadam(0.01, beta_1=0.8, beta_2=0.99, epsilon=1e-3),
    lambda: ef.optim.Adamax(0.01, beta_2=0.9, weight_decay=0.1),
    lambda: ef.optim.Adadelta(1.0, rho=0.9, epsilon=1e-4),
    lambda: ef.optim.Lion(0.01, beta_1=0.5, beta_2=0.9),
    lambda: ef.optim.SGD(ef.optim.schedules.CosineDecay(0.1, 100, warmup_target=1.0,
                                                        warmup_steps=5)),
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


def test_get_errors():
    with pytest.raises(ValueError, match="Unknown optimizer 'adafactor'"):
        ef.optim.get("adafactor")
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier"):
        ef.optim.get(3)


def test_optimizer_name_and_repr():
    opt = ef.optim.RMSprop(name="disc")
    assert opt.name == "disc" and opt.iterations.name == "disc/iterations"
    assert repr(ef.optim.AdamW()) == "<ef.optim.AdamW name='adam_w'>"
