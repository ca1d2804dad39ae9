"""Elementwise fusion ending in a reduction (eagerflow/graph/passes/fusion.py with
`fusion_jit.run_reduce`): which chains fuse, values against the unfused plan and NumPy on
both kernel sets, accuracy of the sums, gradients."""

import contextlib
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from eagerflow.graph.passes import fusion
from eagerflow.testing import check_gradients

needs_numba = pytest.mark.skipif(
    not fusion.available(),
    reason="needs the numba kernel set, the optional `fast` extra: pip install -e '.[fast]'")
FUSED = "FusedElementwise"
REDUCTIONS = {"sum": ef.reduce_sum, "mean": ef.reduce_mean, "max": ef.reduce_max,
              "min": ef.reduce_min}
NUMPY = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}


@pytest.fixture
def always_fuse(monkeypatch):
    """Fuse every region, whatever the cost model says."""
    monkeypatch.setattr(fusion, "_GAIN", float("inf"))


@pytest.fixture
def numpy_kernels():
    """The NumPy kernel set for the test (an install without numba), then the one found."""
    before = ef.config.get_kernel_set()
    ef.config.set_kernel_set("numpy")
    yield
    ef.config.set_kernel_set(before)


KERNEL_SETS = [pytest.param("numba", marks=needs_numba), "numpy"]


@contextlib.contextmanager
def _kernel_set(name):
    """Runs the block with kernel set `name` (fused programs with "numba", NumPy calls
    with "numpy"), then restores the set found."""
    before = ef.config.get_kernel_set()
    ef.config.set_kernel_set(name)
    try:
        yield
    finally:
        ef.config.set_kernel_set(before)


def _types(fn, *args):
    return [n.type for n in fn.get_concrete_function(*args).optimized_graph.nodes]


def _inputs(*shapes, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    return [ef.constant(rng.uniform(-2, 2, shape).astype(dtype)) for shape in shapes]


def _fused_and_plain(fn, *args):
    """The traced function's results with fusion (second call: its plan) and without."""
    fused = ef.function(fn)
    fused(*args)
    return fused, fused(*args), ef.function(fn, jit_compile=False)(*args)


def _close(got, want, dtype):
    got = got if isinstance(got, (list, tuple)) else [got]
    want = want if isinstance(want, (list, tuple)) else [want]
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=rtol, atol=rtol)


def loss(a, b):
    return ef.reduce_mean(ef.square(ef.tanh(a) - b))


# -- which chains fuse --------------------------------------------------------------------
@needs_numba
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_a_chain_ending_in_a_reduction_is_one_program(always_fuse, name, dtype):
    a, b = _inputs((6, 5), (6, 5), dtype=dtype)
    reduce = REDUCTIONS[name]
    for fn in (lambda a, b: reduce(ef.square(ef.tanh(a) - b)),  # every axis
               lambda a, b: reduce(a * b + 1.0, axis=-1),  # the last axis
               lambda a, b: reduce(a * b - a, axis=[0, 1], keepdims=True)):
        fused, got, want = _fused_and_plain(fn, a, b)
        assert _types(fused, a, b) == ["Placeholder", "Placeholder", FUSED]
        _close(got, want, dtype)


@needs_numba
def test_last_axes_of_a_broadcast_chain_fuse_and_other_axes_stay_numpy(always_fuse):
    a, b = _inputs((3, 4, 5), (5,))
    for axis, reduced in (([1, 2], True), (-1, True), (None, True), (0, False), (1, False),
                          ([0, 2], False), ([], False)):
        fused, got, want = _fused_and_plain(
            lambda a, b, axis=axis: ef.reduce_sum(ef.exp(a) * b - a, axis=axis), a, b)
        assert ("Sum" not in _types(fused, a, b)) == reduced, axis
        assert FUSED in _types(fused, a, b)
        _close(got, want, np.float32)


@needs_numba
def test_a_chain_result_used_elsewhere_is_kept_and_numpy_reduces_it(always_fuse):
    a, b = _inputs((40,), (40,))

    def returned(a, b):
        t = ef.tanh(a * b) - a
        return ef.reduce_sum(t), t

    def read_again(a, b):
        t = ef.tanh(a * b) - a
        return ef.reduce_max(t) + ef.cumsum(t, axis=0)

    for fn in (returned, read_again):
        fused, got, want = _fused_and_plain(fn, a, b)
        types = _types(fused, a, b)
        assert FUSED in types and ("Sum" in types or "Max" in types)
        _close(got, want, np.float32)


@needs_numba
def test_what_reads_a_reduction_is_another_program(always_fuse):
    def centered(a, b):
        z = a * 2.0
        m = ef.reduce_mean(z * 3.0 + b)  # its program ends here
        return ef.tanh(z - m)  # reads the mean: a second program

    a, b = _inputs((50,), (50,))
    fused, got, want = _fused_and_plain(centered, a, b)
    nodes = fused.get_concrete_function(a, b).optimized_graph.nodes
    programs = [n for n in nodes if n.type == FUSED]
    assert len(programs) == 2 and any(x is programs[0].outputs[0] for x in programs[1].inputs)
    _close(got, want, np.float32)


@needs_numba
def test_no_program_spans_a_write_between_the_chain_and_its_reduction(always_fuse):
    v = ef.Variable(np.zeros(3, np.float32))

    def step(a, b):
        t = ef.tanh(a) * b - a
        v.assign(a[:3])
        return ef.reduce_sum(t)

    for size in (64, 100_000):  # small: the chain alone is fused; large: nothing is
        a, b = _inputs((size,), (size,), seed=size)
        fused, got, want = _fused_and_plain(step, a, b)
        types = _types(fused, a, b)
        assert "Sum" in types and (FUSED in types) == (size < fusion._MAX_ELEMENTS)
        _close(got, want, np.float32)


@needs_numba
def test_integer_float16_mixed_and_other_reductions_stay_numpy(always_fuse):
    cases = [  # (function, input dtype, the reduction left in the plan)
        (lambda x: ef.reduce_sum(x * 3 + 1), np.int32, "Sum"),
        (lambda x: ef.reduce_sum(x * 3.0 + 1.0), np.float16, "Sum"),
        (lambda x: ef.reduce_prod(x * 3.0 + 1.0), np.float32, "Prod"),
        (lambda x: ef.reduce_sum(ef.cast(x * 3.0 + 1.0, ef.float64)), np.float32, "Sum"),
    ]
    for fn, dtype, reduction in cases:
        x = ef.constant(np.arange(1, 7).astype(dtype))
        fused, got, want = _fused_and_plain(fn, x)
        assert reduction in _types(fused, x)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@needs_numba
def test_scalars_kept_axes_and_unknown_shapes(always_fuse):
    x = ef.constant(np.float32(1.5))
    fused, got, want = _fused_and_plain(lambda x: ef.reduce_sum(ef.tanh(x) * 2.0 - x), x)
    assert FUSED in _types(fused, x) and got.shape == ()
    _close(got, want, np.float32)
    a, b = _inputs((3, 1, 4), (3, 1, 4))
    fused, got, want = _fused_and_plain(
        lambda a, b: ef.reduce_min(a * b - a, keepdims=True), a, b)
    assert got.shape == (1, 1, 1)
    _close(got, want, np.float32)
    a, b = _inputs((30, 1), (30, 1))  # over an axis of size 1: a copy, left to NumPy
    fused, got, want = _fused_and_plain(
        lambda a, b: ef.reduce_mean(ef.square(a - b), axis=-1), a, b)
    assert "Mean" in _types(fused, a, b) and FUSED in _types(fused, a, b)
    _close(got, want, np.float32)
    unknown = ef.TensorSpec([None, 4], ef.float32)
    cf = ef.function(lambda a, b: ef.reduce_sum(ef.tanh(a) * b - a, axis=-1)) \
        .get_concrete_function(unknown, unknown)
    assert FUSED not in [n.type for n in cf.optimized_graph.nodes]


@needs_numba
def test_large_chains_fuse_only_when_they_end_in_a_reduction(always_fuse):
    a, b = _inputs((1 << 17,), (1 << 17,))
    assert FUSED not in _types(ef.function(lambda a, b: ef.tanh(a) * b - a), a, b)
    fused, got, want = _fused_and_plain(lambda a, b: ef.reduce_mean(ef.tanh(a) * b - a), a, b)
    assert _types(fused, a, b) == ["Placeholder", "Placeholder", FUSED]
    _close(got, want, np.float32)


@needs_numba
def test_the_cost_model_fuses_small_losses_and_leaves_large_transcendentals_to_numpy():
    small = ef.TensorSpec([1000], ef.float32)
    plain = ef.function(lambda a, b: ef.reduce_mean(ef.square(a - b)))
    assert FUSED in [n.type for n in plain.get_concrete_function(
        small, small).optimized_graph.nodes]
    big = ef.TensorSpec([1_000_000], ef.float32)
    assert FUSED not in [n.type for n in ef.function(loss).get_concrete_function(
        big, big).optimized_graph.nodes]


# -- values ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kernel_set", KERNEL_SETS)
@pytest.mark.parametrize("shape", [(1,), (7, 3), (2, 512), (1, 513), (3, 5000), (2, 4200),
                                   (1, 9 * 512 + 1)])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_block_edges_match_numpy(always_fuse, name, shape, kernel_set):
    # rows shorter than a block, exactly one, one element more, and rows long enough for
    # the pairwise cascade (`fusion_jit.FLUSH` blocks)
    a, b = _inputs(shape, shape[-1:], dtype=np.float64, seed=len(shape) + shape[-1])
    with _kernel_set(kernel_set):
        fn = ef.function(lambda a, b: REDUCTIONS[name](a * b - 0.5, axis=-1))
        fn(a, b)
        assert (FUSED in _types(fn, a, b)) == (kernel_set == "numba")
        got = fn(a, b).numpy()
    want = NUMPY[name](a.numpy() * b.numpy() - 0.5, axis=-1)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


@needs_numba
def test_more_inputs_than_read_in_place_and_strided_inputs(always_fuse):
    def many(a, b, c, d, e, f):
        return ef.reduce_sum(((a * b + c) * d - e) * ef.transpose(f), axis=-1)

    for n in (20, 400):  # copied into rows, then read in place (a transposed input copied)
        arrays = _inputs(*[(n, n)] * 6, dtype=np.float64, seed=n)
        fused, got, want = _fused_and_plain(many, *arrays)
        assert FUSED in _types(fused, *arrays) and "Sum" not in _types(fused, *arrays)
        _close(got, want, np.float64)
        for x in arrays:  # inputs read in place stay as they were
            assert x.numpy().flags.c_contiguous


@pytest.mark.parametrize("kernel_set", KERNEL_SETS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_and_inf_propagate_as_in_numpy(always_fuse, dtype, kernel_set):
    with _kernel_set(kernel_set):
        _check_nan_and_inf(dtype)


def _check_nan_and_inf(dtype):
    for n in (50, 3000):
        values = np.linspace(-3, 3, n).astype(dtype)
        for special in (np.nan, np.inf, -np.inf):
            x = values.copy()
            x[n // 3] = special
            x = ef.constant(x)
            for name in sorted(REDUCTIONS):
                fn = ef.function(lambda x, name=name: REDUCTIONS[name](x * 2.0 + 1.0))
                fn(x)
                want = NUMPY[name](x.numpy() * dtype(2) + dtype(1))
                np.testing.assert_array_equal(fn(x).numpy(), want)
    both = ef.constant(np.array([np.inf, -np.inf, 1.0], dtype))
    fn = ef.function(lambda x: ef.reduce_sum(x * 1.5))
    fn(both)
    assert np.isnan(fn(both).numpy())


@needs_numba
def test_float32_sums_of_a_million_elements_are_float64_accurate(always_fuse):
    # the chain's float32 values, summed exactly (math.fsum) and rounded once: the fused
    # sum accumulates in float64, so it is within a unit of that value, where NumPy's
    # float32 pairwise sum of these cancelling terms is 2.5 units off
    rng = np.random.default_rng(7)
    x = rng.uniform(0, 1, 1_000_000).astype(np.float32)
    y = rng.uniform(-1, 1, 1_000_000).astype(np.float32)
    products = x * y
    exact = math.fsum(products.astype(np.float64))
    fused = ef.function(lambda x, y: ef.reduce_sum(x * y))
    args = (ef.constant(x), ef.constant(y))
    fused(*args)
    assert FUSED in _types(fused, *args)
    got = float(fused(*args).numpy())
    ulp = abs(float(np.spacing(np.float32(exact))))
    assert abs(got - exact) <= ulp < abs(float(np.sum(products)) - exact)
    mean = ef.function(lambda x, y: ef.reduce_mean(ef.square(x - y)))
    mean(*args)
    exact_mean = math.fsum(np.square(x - y).astype(np.float64)) / x.size
    assert abs(float(mean(*args).numpy()) - exact_mean) <= np.spacing(np.float32(exact_mean))


@needs_numba
def test_float64_sums_of_a_million_elements_have_pairwise_accuracy(always_fuse):
    rng = np.random.default_rng(8)
    x = rng.uniform(-1, 1, (4, 250_000))
    y = rng.uniform(-1, 1, (4, 250_000))
    args = (ef.constant(x), ef.constant(y))
    fused = ef.function(lambda x, y: ef.reduce_sum(x * y, axis=-1))
    fused(*args)
    got = fused(*args).numpy()
    for row, value in zip(x * y, got, strict=True):
        exact = math.fsum(row)
        # pairwise: O(log n) roundings of the magnitude summed (sequential: O(n))
        assert abs(value - exact) <= 64 * np.finfo(np.float64).eps * np.abs(row).sum() / 1000


# -- property: random chains against NumPy ------------------------------------------------
_UNARY = {"tanh": (ef.tanh, np.tanh), "square": (ef.square, np.square),
          "abs": (ef.abs, np.abs), "neg": (ef.negative, np.negative),
          "exp": (lambda t: ef.exp(ef.minimum(t, 5.0)), lambda v: np.exp(np.minimum(v, 5)))}
_BINARY = {"add": (ef.add, np.add), "sub": (ef.subtract, np.subtract),
           "mul": (ef.multiply, np.multiply), "max": (ef.maximum, np.maximum)}


@st.composite
def reduced_chains(draw):
    """A chain of unary and binary ops over an input of 1-3 axes and a second input
    broadcast along its leading axes, ending in a reduction over every axis or the last
    ones, with or without kept axes."""
    shape = tuple(draw(st.lists(st.integers(1, 40), min_size=1, max_size=3)))
    other = shape[draw(st.integers(0, len(shape))):]
    steps = draw(st.lists(st.tuples(st.sampled_from(sorted(_UNARY) + sorted(_BINARY)),
                                    st.booleans()), min_size=1, max_size=5))
    last = draw(st.integers(0, len(shape)))  # 0: every axis
    axis = None if last == 0 else list(range(len(shape) - last, len(shape)))
    return shape, other, steps, draw(st.sampled_from(sorted(REDUCTIONS))), axis, draw(
        st.booleans())


@pytest.mark.parametrize("kernel_set", KERNEL_SETS)
@settings(max_examples=40, deadline=None)
@given(spec=reduced_chains(), dtype=st.sampled_from([np.float32, np.float64]),
       seed=st.integers(0, 1000))
def test_random_reduced_chains_match_numpy(kernel_set, spec, dtype, seed):
    shape, other, steps, name, axis, keepdims = spec
    a, b = _inputs(shape, other, dtype=dtype, seed=seed)

    def chain(x, y):
        value = x
        for op, use_y in steps:
            if op in _UNARY:
                value = _UNARY[op][0](value)
            else:
                value = _BINARY[op][0](value, y if use_y else x)
        return REDUCTIONS[name](value, axis=axis, keepdims=keepdims)

    previous = fusion._GAIN
    fusion._GAIN = float("inf")
    try:
        with _kernel_set(kernel_set):
            fused = ef.function(chain)
            fused(a, b)
            got = fused(a, b).numpy()
            types = _types(fused, a, b)  # (unless the passes before removed it: -(-x))
        reduced = math.prod(shape if axis is None else [shape[i] for i in axis])
        # (a single op reduced over axes of size 1 stays NumPy: see `fusion._columns`)
        assert (FUSED in types) == (kernel_set == "numba") or not any(
            t in fusion._EMIT for t in types) or (reduced == 1 and kernel_set == "numba")
    finally:
        fusion._GAIN = previous
    value = a.numpy()
    for op, use_y in steps:
        if op in _UNARY:
            value = _UNARY[op][1](value)
        else:
            value = _BINARY[op][1](value, b.numpy() if use_y else a.numpy())
    value = np.broadcast_to(value, shape).astype(dtype)
    want = NUMPY[name](value.astype(np.float64), axis=None if axis is None else tuple(axis),
                       keepdims=keepdims)
    assert got.shape == want.shape and got.dtype == dtype
    scale = NUMPY["sum"](np.abs(value.astype(np.float64)), axis=None if axis is None
                         else tuple(axis), keepdims=keepdims)
    if name == "mean":
        scale = scale / (value.size // max(want.size, 1))
    eps = 4 * np.finfo(dtype).eps
    assert np.all(np.abs(got - want) <= eps * (scale + np.abs(want)) + eps)


# -- gradients and the NumPy kernel set ----------------------------------------------------
@needs_numba
def test_gradients_of_a_traced_loss_fuse_and_match_the_plain_plan(always_fuse):
    def loss_and_grads(a, b):
        with ef.GradientTape() as tape:
            tape.watch([a, b])
            value = loss(a, b) + ef.reduce_sum(a * b, axis=-1)[0]
        return value, tape.gradient(value, [a, b])

    a, b = _inputs((8, 30), (8, 30), dtype=np.float64, seed=3)
    fused, got, want = _fused_and_plain(loss_and_grads, a, b)
    assert _types(fused, a, b).count(FUSED) >= 2
    _close(got[0], want[0], np.float64)
    _close(list(got[1]), list(want[1]), np.float64)
    check_gradients(ef.function(loss), a, b, order=2)


def test_with_the_numpy_kernels_the_plan_is_unfused_and_equal_to_numpy(numpy_kernels):
    a, b = _inputs((300,), (300,))
    fn = ef.function(loss)
    fn(a, b)
    assert FUSED not in _types(fn, a, b) and "Mean" in _types(fn, a, b)
    want = np.mean(np.square(np.tanh(a.numpy()) - b.numpy()))
    np.testing.assert_allclose(fn(a, b).numpy(), want, rtol=1e-6)
    rows = ef.function(lambda x, y: ef.reduce_sum(x * y, axis=-1))
    x, y = _inputs((4, 50), (4, 50))
    rows(x, y)
    np.testing.assert_allclose(rows(x, y).numpy(), np.sum(x.numpy() * y.numpy(), -1),
                               rtol=1e-6)


@needs_numba
def test_every_reduction_has_an_interpreter_kind_and_costs():
    from eagerflow.graph.passes import fusion_jit

    assert sorted(getattr(fusion_jit, kind) for kind in fusion._REDUCE.values()) == [0, 1, 2, 3]
    kinds = {"SUM" if kind in ("SUM", "MEAN") else "MAX" for kind in fusion._REDUCE.values()}
    assert set(fusion._REDUCE_COSTS) == {(k, rows) for k in kinds for rows in ("long", "short")}
    assert set(fusion._NUMPY_ROW) == kinds
