"""Keras 3's options of every optimizer: gradient accumulation, EMA of the weights, weight
decay (clipping has its own tests), checked against NumPy eagerly and inside `ef.function`."""

import numpy as np
import pytest

import eagerflow as ef
from tests.optim import helpers, reference

# (class, NumPy rule, rule arguments). The rules added with issue 17 follow the weights'
# dtype and are checked in float64; the older transcriptions compute in float32.
RULES = {
    "sgd": (ef.optim.SGD, reference.sgd, {"momentum": 0.5}, np.float32),
    "adam": (ef.optim.Adam, reference.adam, {"beta_1": 0.875, "beta_2": 0.96875}, np.float32),
    "rmsprop": (ef.optim.RMSprop, reference.rmsprop, {"centered": True}, np.float32),
    "adagrad": (ef.optim.Adagrad, reference.adagrad, {}, np.float32),
    "nadam": (ef.optim.Nadam, reference.nadam, {"beta_1": 0.875, "beta_2": 0.96875}, np.float64),
    "adamax": (ef.optim.Adamax, reference.adamax, {"beta_1": 0.75, "beta_2": 0.875}, np.float64),
    "adadelta": (ef.optim.Adadelta, reference.adadelta, {"rho": 0.875}, np.float64),
    "lion": (ef.optim.Lion, reference.lion, {"beta_1": 0.5, "beta_2": 0.875}, np.float64),
    "adafactor": (ef.optim.Adafactor, reference.adafactor, {}, np.float64),
    "ftrl": (ef.optim.Ftrl, reference.ftrl, {"beta": 0.25}, np.float64),
    "lamb": (ef.optim.Lamb, reference.lamb, {"beta_1": 0.75, "beta_2": 0.875}, np.float64),
}
OPTIONS = {
    "accumulate": {"gradient_accumulation_steps": 3},
    "ema": {"use_ema": True, "ema_momentum": 0.75},
    "ema_overwrite": {"use_ema": True, "ema_momentum": 0.5, "ema_overwrite_frequency": 2},
    "all": {"gradient_accumulation_steps": 2, "use_ema": True, "ema_momentum": 0.75,
            "ema_overwrite_frequency": 2, "weight_decay": 0.25},
    "weight_decay": {"weight_decay": 0.125},
}


def _run(name, options, traced, steps=8):
    cls, rule, rule_kwargs, dtype = RULES[name]
    weights, grads = helpers.data((3, 4), steps=steps)
    weights, grads = weights.astype(dtype), [g.astype(dtype) for g in grads]
    optimizer = cls(learning_rate=0.0625, **rule_kwargs, **options)
    variable = ef.Variable(weights.copy())
    apply = optimizer.apply_gradients
    if traced:
        apply = ef.function(lambda g: optimizer.apply_gradients([(g, variable)]))
    for g in grads:
        if traced:
            apply(ef.constant(g))
        else:
            apply([(ef.constant(g), variable)])
    expected, state, extra = reference.run_with_options(
        rule, weights, grads, dtype=dtype, lr=0.0625, **rule_kwargs, **options)
    return optimizer, variable, expected, state, extra, dtype


@pytest.mark.parametrize("option", list(OPTIONS))
@pytest.mark.parametrize("name", list(RULES))
def test_matches_keras_base_optimizer(name, option):
    optimizer, variable, expected, state, extra, dtype = _run(name, OPTIONS[option], False)
    close = helpers.assert_float64_close if dtype == np.float64 else \
        helpers.assert_float32_close
    close(variable.numpy(), expected)
    for slot_name in optimizer.get_slot_names():
        value = state[slot_name] if slot_name in state else extra[slot_name]
        close(optimizer.get_slot(variable, slot_name).numpy(), value)
    assert int(optimizer.iterations) == 8


@pytest.mark.parametrize("option", ["accumulate", "all"])
@pytest.mark.parametrize("name", list(RULES))
def test_traced_equals_eager(name, option):
    eager, eager_var, *_ = _run(name, OPTIONS[option], False)
    traced, traced_var, *_ = _run(name, OPTIONS[option], True)
    helpers.assert_float32_close(traced_var.numpy(), eager_var.numpy())
    for (_, name_a, a), (_, name_b, b) in zip(eager.slot_variables(),
                                              traced.slot_variables(), strict=True):
        assert name_a == name_b
        helpers.assert_float32_close(b.numpy(), a.numpy())


def test_calls_between_updates_change_no_variable_only_the_accumulator():
    w = ef.Variable([1.0, 2.0])
    opt = ef.optim.Adam(0.1, gradient_accumulation_steps=3)
    opt.apply_gradients([(ef.constant([1.0, 1.0]), w)])
    opt.apply_gradients([(ef.constant([2.0, -1.0]), w)])
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(opt.get_slot(w, "momentum").numpy(), 0.0)
    np.testing.assert_array_equal(opt.get_slot(w, "gradient_accumulator").numpy(), [3.0, 0.0])
    opt.apply_gradients([(ef.constant([0.0, 5.0]), w)])  # the mean is [1, 5/3]
    np.testing.assert_allclose(opt.get_slot(w, "momentum").numpy(), [0.1, 0.5 / 3], rtol=1e-6)
    np.testing.assert_array_equal(opt.get_slot(w, "gradient_accumulator").numpy(), 0.0)
    assert int(opt.iterations) == 3 and float(w[0]) < 1.0


def test_schedules_see_calls_and_rules_see_updates():
    w = ef.Variable(0.0)
    schedule = ef.optim.schedules.PiecewiseConstantDecay([1], [1.0, 0.5])
    opt = ef.optim.SGD(schedule, gradient_accumulation_steps=2)
    for _ in range(2):
        opt.apply_gradients([(ef.constant(1.0), w)])
    # The update happened on call 2, when the schedule (at iterations=1) gave 1.0.
    assert float(w) == -1.0
    assert int(opt._update_count()) == 1


def test_first_update_copies_the_weights_into_the_average():
    w = ef.Variable([4.0])
    opt = ef.optim.SGD(1.0, use_ema=True, ema_momentum=0.9)
    opt.apply_gradients([(ef.constant([1.0]), w)])
    np.testing.assert_array_equal(opt.get_slot(w, "average").numpy(), [3.0])


def test_finalize_without_ema_changes_nothing_and_skips_unknown_variables():
    w, other = ef.Variable([4.0]), ef.Variable([7.0])
    plain = ef.optim.SGD(1.0)
    plain.apply_gradients([(ef.constant([1.0]), w)])
    plain.finalize_variable_values([w])
    assert float(w[0]) == 3.0
    ema = ef.optim.SGD(1.0, use_ema=True, ema_momentum=0.5)
    for _ in range(2):
        ema.apply_gradients([(ef.constant([1.0]), w)])
    ema.finalize_variable_values([w, other])
    assert (float(w[0]), float(other[0])) == (1.5, 7.0)  # average = 0.5 * 2 + 0.5 * 1


def test_fit_ends_with_the_averaged_weights():
    model = ef.Sequential([ef.layers.Dense(1, kernel_initializer="zeros")])
    opt = ef.optim.SGD(0.1, use_ema=True, ema_momentum=0.5)
    model.compile(optimizer=opt, loss="mse")
    x, y = np.ones((8, 2), np.float32), np.full((8, 1), 3.0, np.float32)
    model.fit(x, y, batch_size=8, epochs=3, verbose=0)
    kernel = model.layers[0].kernel
    np.testing.assert_array_equal(kernel.numpy(), opt.get_slot(kernel, "average").numpy())
    assert 0.0 < float(kernel[0, 0]) < 3.0


def test_option_slots_are_named_and_checkpointed(tmp_path):
    w = ef.Variable([1.0, 2.0])
    opt = ef.optim.Lion(0.1, use_ema=True, gradient_accumulation_steps=2)
    assert opt.get_slot_names() == ["momentum", "average", "gradient_accumulator"]
    opt.apply_gradients([(ef.constant([1.0, 1.0]), w)])
    path = ef.Checkpoint(w=w, optimizer=opt).write(tmp_path / "o.h5")
    fresh_w, fresh = ef.Variable([0.0, 0.0]), ef.optim.Lion(0.1, use_ema=True,
                                                           gradient_accumulation_steps=2)
    status = ef.Checkpoint(w=fresh_w, optimizer=fresh).read(path)
    fresh.build([fresh_w])
    status.assert_consumed()
    np.testing.assert_array_equal(fresh.get_slot(fresh_w, "gradient_accumulator").numpy(),
                                  [1.0, 1.0])
    fresh.apply_gradients([(ef.constant([3.0, -1.0]), fresh_w)])
    opt.apply_gradients([(ef.constant([3.0, -1.0]), w)])
    np.testing.assert_array_equal(fresh_w.numpy(), w.numpy())


def test_config_round_trip_keeps_the_options():
    opt = ef.optim.Nadam(use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=10,
                         gradient_accumulation_steps=4, weight_decay=0.01)
    clone = ef.optim.deserialize(ef.optim.serialize(opt))
    config = clone.get_config()
    assert (config["use_ema"], config["ema_momentum"], config["ema_overwrite_frequency"],
            config["gradient_accumulation_steps"]) == (True, 0.9, 10, 4)
    assert config["weight_decay"] == pytest.approx(0.01)


@pytest.mark.parametrize("kwargs, message", [
    ({"gradient_accumulation_steps": 1},
     r"Adam: `gradient_accumulation_steps` must be None or an int >= 2. Received: "
     r"gradient_accumulation_steps=1"),
    ({"gradient_accumulation_steps": 2.0}, r"`gradient_accumulation_steps` must be None or "
                                            r"an int >= 2. Received: .*=2.0"),
    ({"ema_momentum": 1.5}, r"Adam: `ema_momentum` must be in \[0.0, 1.0\]. Received: "
                            r"ema_momentum=1.5"),
    ({"ema_overwrite_frequency": 0},
     r"Adam: `ema_overwrite_frequency` must be None or an int >= 1. Received: "
     r"ema_overwrite_frequency=0"),
])
def test_bad_option_values_are_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ef.optim.Adam(**kwargs)


def test_unknown_argument_lists_the_options():
    with pytest.raises(TypeError, match=r"unexpected argument\(s\) \['use_emma'\].*use_ema, "
                                        r"ema_momentum"):
        ef.optim.Lion(use_emma=True)
