"""The fused optimizer updates (optim/fused.py, ops/training_ops.py, ops/kernels/optim_jit.py):
bit-identical to the per-variable rules, eagerly and traced, on float32."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.ops import training_ops
from eagerflow.ops.kernels import kernel_sets

RULES = {
    "adam": lambda: ef.optim.Adam(0.01),
    "adamw": lambda: ef.optim.AdamW(0.01, weight_decay=0.1),
    "sgd": lambda: ef.optim.SGD(0.1),
    "sgd_momentum": lambda: ef.optim.SGD(0.1, momentum=0.9),
    "sgd_nesterov": lambda: ef.optim.SGD(0.1, momentum=0.9, nesterov=True),
    "sgd_weight_decay": lambda: ef.optim.SGD(0.1, momentum=0.9, weight_decay=0.01),
    "rmsprop": lambda: ef.optim.RMSprop(0.01),
    "rmsprop_momentum": lambda: ef.optim.RMSprop(0.01, momentum=0.5),
}


@pytest.fixture
def restore_kernel_set():
    before = kernel_sets.active()
    yield
    kernel_sets.set_active(before)


def _train(kernel_set, make, traced, dtype=np.float32, steps=4):
    kernel_sets.set_active(kernel_set)
    rng = np.random.default_rng(0)
    variables = [ef.Variable(rng.normal(size=shape).astype(dtype), name=f"w{i}")
                 for i, shape in enumerate([(5, 3), (3,), (2, 2, 2)])]
    opt = make()
    if isinstance(opt, ef.optim.AdamW):
        opt.exclude_from_weight_decay(var_list=[variables[1]])

    def step(grads):
        opt.apply_gradients(zip(grads, variables))

    if traced:
        step = ef.function(step)
    for _ in range(steps):
        step([ef.constant(rng.normal(size=v.shape).astype(dtype)) for v in variables])
    return [v.numpy() for v in variables] + [s.numpy() for s in opt.variables if s.shape]


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("rule", sorted(RULES))
def test_fused_updates_are_bit_identical_to_the_rules(rule, traced, restore_kernel_set):
    pytest.importorskip("numba")
    per_variable = _train("numpy", RULES[rule], traced)
    fused = _train("numba", RULES[rule], traced)
    assert len(fused) == len(per_variable)
    for got, want in zip(fused, per_variable, strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def _inputs(dtype, count=2, groups=4, scalars=6, seed=1):
    rng = np.random.default_rng(seed)
    shapes = [(4, 3), (5,)][:count]
    arrays = [np.abs(rng.normal(size=shapes[i % count])).astype(dtype)
              for i in range(groups * count)]
    return arrays + [np.asarray(s, dtype) for s in rng.uniform(0.01, 0.9, scalars)]


CALLS = [
    ("FusedAdamUpdate", 4, 6, {"decayed": (True, False)}),
    ("FusedSGDUpdate", 2, 3, {"decayed": (False, True), "nesterov": False}),
    ("FusedSGDUpdate", 3, 3, {"decayed": (False, False), "nesterov": True}),
    ("FusedRMSpropUpdate", 3, 6, {"decayed": (True, True)}),
    ("FusedRMSpropUpdate", 4, 6, {"decayed": (False, True)}),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, groups, scalars, attrs", CALLS)
def test_kernels_match_the_numpy_forwards_bitwise(name, groups, scalars, attrs, dtype):
    pytest.importorskip("numba")
    arrays = _inputs(dtype, groups=groups, scalars=scalars)
    want = kernel_sets.numpy_forward(name)(*arrays, count=2, **attrs)
    got = kernel_sets.kernel_forward(name)(*arrays, count=2, **attrs)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def test_numpy_forward_is_the_adam_rule(restore_kernel_set):
    """The op's NumPy forward against the per-variable rule (runs without numba too)."""
    kernel_sets.set_active("numpy")
    rng = np.random.default_rng(2)
    w = ef.Variable(rng.normal(size=(4, 3)).astype(np.float32))
    g = ef.constant(rng.normal(size=(4, 3)).astype(np.float32))
    opt = ef.optim.Adam(0.01)
    opt.build([w])
    before = w.numpy()
    opt.apply_gradients([(g, w)])
    f32 = ef.float32
    lr, b1, b2 = (ef.constant(x, f32) for x in (0.01, 0.9, 0.999))
    alpha = lr * ef.sqrt(1 - ef.pow(b2, 1.0)) / (1 - ef.pow(b1, 1.0))
    zeros = np.zeros((4, 3), np.float32)
    new_w, new_m, new_v = training_ops.adam_update(
        [before], [zeros], [zeros], [g], alpha, 1 - b1, 1 - b2, ef.constant(1e-7, f32))
    np.testing.assert_array_equal(new_w.numpy(), w.numpy())
    np.testing.assert_array_equal(new_m.numpy(), opt.get_slot(w, "momentum").numpy())
    np.testing.assert_array_equal(new_v.numpy(), opt.get_slot(w, "velocity").numpy())


def test_amsgrad_and_centered_keep_the_per_variable_rule(restore_kernel_set):
    """Options the fused ops do not cover still train (through update_step)."""
    kernel_sets.set_active(kernel_sets.active())
    for opt in (ef.optim.Adam(0.1, amsgrad=True), ef.optim.RMSprop(0.1, centered=True)):
        w = ef.Variable([1.0, 2.0])
        opt.apply_gradients([(ef.constant([1.0, 1.0]), w)])
        assert np.all(w.numpy() < [1.0, 2.0])
