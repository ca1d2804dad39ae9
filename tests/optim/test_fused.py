"""The fused optimizer updates (optim/fused.py, ops/training_ops.py, ops/kernels/optim_jit.py):
bit-identical to the per-variable rules, eagerly and traced, on float32; the numba kernels
equal to the NumPy forwards (float16 variables take those under the numba set)."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import buffers
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


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])  # (float16: NumPy's)
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


STATES = {"FusedAdamUpdate": lambda groups: 3, "FusedSGDUpdate": lambda groups: groups - 1,
          "FusedRMSpropUpdate": lambda groups: groups - 1}


@pytest.mark.parametrize("contiguous", [True, False], ids=["kernel", "copy-back"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("name, groups, scalars, attrs", CALLS)
def test_in_place_writers_match_the_numpy_forwards_bitwise(name, groups, scalars, attrs, dtype,
                                                           contiguous, restore_kernel_set):
    """`training_ops.in_place_writer` under either kernel set (a non-contiguous state
    buffer takes the copy-back path) writes the values the NumPy forward returns."""
    arrays = _inputs(dtype, groups=groups, scalars=scalars)
    want = kernel_sets.numpy_forward(name)(*arrays, count=2, **attrs)
    count = 2 * STATES[name](groups)
    if not contiguous:  # Fortran-ordered copies of the (4, 3) states
        arrays = [np.asfortranarray(a) if i < count else a for i, a in enumerate(arrays)]
    for kernel_set in ("numpy", "numba") if _has_numba() else ("numpy",):
        kernel_sets.set_active(kernel_set)
        states = [a.copy(order="K") for a in arrays[:count]]
        write = training_ops.in_place_writer(ef.core.dispatch.OPS[name],
                                             {"count": 2, **attrs}, count)
        assert write(*states, *arrays[count:]) is None
        for got, expected in zip(states, want, strict=True):
            np.testing.assert_array_equal(got, expected)


def _has_numba():
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("kernel_set", ["numpy", "numba"])
def test_traced_updates_write_the_variables_in_place(kernel_set, restore_kernel_set):
    if kernel_set == "numba":
        pytest.importorskip("numba")
    kernel_sets.set_active(kernel_set)
    rng = np.random.default_rng(3)
    w = ef.Variable(rng.normal(size=(4, 3)).astype(np.float32))
    m = ef.Variable(np.zeros((4, 3), np.float32))
    lr, momentum, zero = (np.float32(x) for x in (0.5, 0.9, 0.0))

    def step(g, keep):
        before = w.read_value()  # read before the update: keeps its values
        new_w, new_m = training_ops.sgd_update([w], [m], [g], lr, momentum)
        w.assign(new_w)
        m.assign(new_m)
        if keep:
            return before * 1.0, w.read_value()
        return None

    traced = ef.function(step)
    grads = [ef.constant(rng.normal(size=(4, 3)).astype(np.float32)) for _ in range(4)]
    for keep in (True, False):
        source = traced.get_concrete_function(grads[0], keep).plan_source()
        assert "_update(" in source and "'assign')" not in source  # one in-place write
    forward = kernel_sets.numpy_forward("FusedSGDUpdate")
    expected_w, expected_m = w.numpy(), m.numpy()
    first = expected_w
    snapshot = w.read_value()  # an eager read earlier: the first write copies first
    for g in grads[:2]:
        before, after = traced(g, True)
        np.testing.assert_array_equal(before.numpy(), expected_w)
        expected_w, expected_m = forward(expected_w, expected_m, g.numpy(), lr, momentum, zero,
                                         count=1, decayed=(False,), nesterov=False)
        np.testing.assert_array_equal(after.numpy(), expected_w)  # the caller keeps it ...
        np.testing.assert_array_equal(m.numpy(), expected_m)
    np.testing.assert_array_equal(snapshot.numpy(), first)
    del before, after, snapshot
    traced(grads[2], False)  # ... so this write copied first; now nothing shares the buffer
    address = buffers.read(w).ctypes.data
    traced(grads[3], False)
    assert buffers.read(w).ctypes.data == address  # written where it was
    for g in grads[2:]:
        expected_w, expected_m = forward(expected_w, expected_m, g.numpy(), lr, momentum, zero,
                                         count=1, decayed=(False,), nesterov=False)
    np.testing.assert_array_equal(w.numpy(), expected_w)
    np.testing.assert_array_equal(m.numpy(), expected_m)


def test_updates_whose_results_are_used_otherwise_keep_their_assigns():
    w = ef.Variable(np.ones((2,), np.float32))

    def returned(g):
        new, = training_ops.sgd_update([w], [], [g], np.float32(0.5))
        w.assign(new)
        return new  # the caller keeps the new value: not written into w's buffer

    def changed(g):
        new, = training_ops.sgd_update([w], [], [g], np.float32(0.5))
        w.assign(new * 2.0)

    for fn in (returned, changed):
        source = ef.function(fn).get_concrete_function(ef.TensorSpec([2])).plan_source()
        assert "_update(" not in source and "'assign')" in source
    out = ef.function(returned)(ef.constant([1.0, 2.0]))
    np.testing.assert_array_equal(out.numpy(), [0.5, 0.0])
    np.testing.assert_array_equal(w.numpy(), [0.5, 0.0])
