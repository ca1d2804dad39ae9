"""Elementwise fusion (eagerflow/graph/passes/fusion.py) and its switches."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from eagerflow.graph import executor
from eagerflow.graph.passes import fusion, pipeline
from eagerflow.testing import check_gradients

needs_numba = pytest.mark.skipif(
    not fusion.available(),
    reason="needs the numba kernel set, the optional `fast` extra: pip install -e '.[fast]'")
FUSED = "FusedElementwise"


def chain(x, y):
    """The benchmark's body, shortened: shared values, two outputs, Python constants."""
    for _ in range(4):
        z = x * y
        z = z * 0.5 + 0.25
        x = ef.tanh(z) - x * 0.1
        y = ef.cos(y) + x
    return x, y


def optimized_types(fn, *args):
    return [n.type for n in fn.get_concrete_function(*args).optimized_graph.nodes]


@pytest.fixture
def always_fuse(monkeypatch):
    """Fuse every region, whatever the cost model says (tests the code generator)."""
    monkeypatch.setattr(fusion, "_GAIN", float("inf"))


def _pair(dtype=np.float32, shape=(6,), seed=0):
    rng = np.random.default_rng(seed)
    return [ef.constant(rng.uniform(-1, 1, shape).astype(dtype)) for _ in range(2)]


@needs_numba
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_chain_runs_as_one_program_with_eager_values_and_dtype(dtype):
    x, y = _pair(dtype)
    fused = ef.function(chain)
    types = optimized_types(fused, x, y)
    assert types == ["Placeholder", "Placeholder", FUSED]  # one program, both outputs
    fused(x, y)  # the first call is the traced (eager) run; the second runs the plan
    plain_x, plain_y = ef.function(chain, jit_compile=False)(x, y)
    eager_x, eager_y = chain(x, y)
    out_x, out_y = fused(x, y)
    assert out_x.dtype == out_y.dtype == dtype  # float32 constants, no upcast
    for out, plain, eager in ((out_x, plain_x, eager_x), (out_y, plain_y, eager_y)):
        np.testing.assert_allclose(out.numpy(), eager.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(out.numpy(), plain.numpy(), rtol=1e-5, atol=1e-6)


@needs_numba
def test_results_share_a_program_unless_read_outside_before_the_last(always_fuse):
    def body(x, y):
        a = ef.tanh(x * 2.0 + y)  # read by the cumsum (not fusable) before `b` exists
        c = ef.math.cumsum(a, axis=0)
        b = ef.cos(a * 3.0) - y
        d = ef.sin(b) * 2.0 + x  # a result of the same program as `b`
        wide = ef.tanh(d) * ef.reshape(y, [4, 1]) + 0.5  # (4, 4): the same region, another
        # shape: its own program, which reads `d` from the one before
        return c, b, d, ef.exp(wide) - 1.0

    x, y = _pair(np.float32, (4,), seed=4)
    fused = ef.function(body)
    nodes = fused.get_concrete_function(x, y).optimized_graph.nodes
    programs = [n for n in nodes if n.type == FUSED]
    assert [len(n.outputs) for n in programs] == [1, 2, 1]
    assert any(t is programs[1].outputs[1] for t in programs[2].inputs)  # d, not recomputed
    assert [n.type for n in nodes].index("Cumsum") < [n.type for n in nodes].index(FUSED, 3)
    fused(x, y)
    xv, yv = x.numpy(), y.numpy()  # the reference in NumPy
    a = np.tanh(xv * 2 + yv)
    b = np.cos(a * 3) - yv
    d = np.sin(b) * 2 + xv
    want = np.cumsum(a), b, d, np.exp(np.tanh(d) * yv.reshape(4, 1) + 0.5) - 1
    for got, expected in zip(fused(x, y), want, strict=True):
        assert got.shape == expected.shape
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6, atol=1e-6)


OPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (ef.abs(b) + 0.5), "pow": lambda a, b: ef.pow(ef.abs(a) + 0.1, b),
    "neg": lambda a, b: -a + b, "sqrt": lambda a, b: ef.sqrt(ef.abs(a)) * b,
    "maximum": ef.maximum, "minimum": ef.minimum, "abs": lambda a, b: ef.abs(a) - b,
    "exp": lambda a, b: ef.exp(a) * b, "expm1": lambda a, b: ef.math.expm1(a) * b,
    "log": lambda a, b: ef.log(ef.abs(a) + 0.1) * b,
    "log1p": lambda a, b: ef.log1p(ef.abs(a)) * b, "sin": lambda a, b: ef.sin(a) * b,
    "cos": lambda a, b: ef.cos(a) * b, "tan": lambda a, b: ef.tan(a) * b,
    "tanh": lambda a, b: ef.tanh(a) * b, "floor": lambda a, b: ef.floor(a * 3.0) * b,
    "ceil": lambda a, b: ef.math.ceil(a * 3.0) * b, "sign": lambda a, b: ef.sign(a) * b,
    "square": lambda a, b: ef.square(a) - b, "reciprocal": lambda a, b: ef.math.reciprocal(
        ef.abs(a) + 0.5) * b, "relu": lambda a, b: ef.nn.relu(a) * b,
    "sigmoid": lambda a, b: ef.sigmoid(a * 40.0) * b,
    "squared_difference": lambda a, b: ef.math.squared_difference(a, b) * 2.0,
}


@needs_numba
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(OPS))
def test_every_fusable_op_matches_numpy(always_fuse, name, dtype):
    def body(a, b):
        return OPS[name](a, b) * 1.5  # at least two ops: one op alone is never fused

    x, y = _pair(dtype, (3, 4), seed=1)
    y = ef.constant(y.numpy()[:1])  # broadcast (1, 4) against (3, 4)
    fused = ef.function(body)
    assert FUSED in optimized_types(fused, x, y)
    fused(x, y)
    out = fused(x, y)
    assert out.dtype == dtype and out.shape == (3, 4)
    np.testing.assert_allclose(out.numpy(), body(x, y).numpy(), rtol=2e-6, atol=1e-6)


def test_every_fusable_op_has_a_test_and_a_cost():
    assert set(fusion._COSTS) == set(fusion._EMIT.values())
    assert {key.lower() for key in fusion._COSTS} == set(OPS)


@needs_numba
def test_nan_and_inf_behave_as_in_numpy(always_fuse):
    values = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, -2.0, 3.0], np.float32)

    def body(x):
        return ef.maximum(x, 0.0) + ef.minimum(x, 1.0) * ef.sign(x) - ef.log(x) * ef.sqrt(x)

    fused = ef.function(body)
    x = ef.constant(values)
    assert FUSED in optimized_types(fused, x)
    fused(x)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(fused(x).numpy(), body(x).numpy())


@needs_numba
@pytest.mark.parametrize("dtype", [np.float16, np.int32])
def test_float16_and_integer_chains_stay_numpy(always_fuse, dtype):
    x = ef.constant(np.arange(6).astype(dtype))
    fused = ef.function(lambda x: ((x * 3 + 1) * (x + 2) - x) // 2 if dtype == np.int32
                        else (x * 3.0 + 1.0) * (x + 2.0) - x)
    assert FUSED not in optimized_types(fused, x)


@needs_numba
def test_comparisons_where_and_mixed_dtypes_are_region_boundaries(always_fuse):
    def body(x, n):
        a = x * 2.0 + 1.0
        mask = a > 0.0  # a comparison is never fused
        b = ef.where(mask, a, -a) * 3.0 + 1.0
        return b + ef.cast(n, ef.float32) * 2.0

    x = ef.constant(np.linspace(-2, 2, 5).astype(np.float32))
    n = ef.constant(np.arange(5, dtype=np.int32))
    fused = ef.function(body)
    nodes = fused.get_concrete_function(x, n).optimized_graph.nodes
    assert {"Greater", "SelectV2", "Cast"} <= {node.type for node in nodes}
    fused(x, n)
    np.testing.assert_allclose(fused(x, n).numpy(), body(x, n).numpy(), rtol=1e-6)


@needs_numba
def test_no_region_spans_a_variable_write():
    v = ef.Variable(np.ones(4, np.float32))

    def step(x):
        before = v.read_value() * 2.0 + x  # must use v before the write
        before = ef.tanh(before) * 3.0 - 1.0
        v.assign_add(x * 10.0)
        after = ef.tanh(before * 0.5 + x) - before * 0.1  # uses `before` after the write
        return after * 2.0 + v.read_value()

    x = ef.constant(np.linspace(0, 1, 4).astype(np.float32))
    fn = ef.function(step)
    program = fn.get_concrete_function(x).optimized_graph
    types = [n.type for n in program.nodes]
    write = types.index("AssignAddVariableOp")
    assert FUSED in types[:write] and FUSED in types[write:]
    v.assign(np.ones(4, np.float32))
    expected = step(x).numpy()  # eager, from v = 1
    v.assign(np.ones(4, np.float32))
    fn(x)  # traced run
    v.assign(np.ones(4, np.float32))
    np.testing.assert_allclose(fn(x).numpy(), expected, rtol=1e-5)


@needs_numba
def test_views_in_and_out_of_regions_and_inputs_untouched(always_fuse):
    def body(x):
        flat = ef.reshape(x, [6])
        y = ef.tanh(flat * 2.0 + 1.0) - flat  # region reads a view of the input
        view = ef.reshape(y, [2, 3])
        z = view * 3.0 + x  # and the next one a view of the first's result
        return z, y[1:4] * 2.0 + 1.0

    x_value = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
    x = ef.constant(x_value.copy())
    fn = ef.function(body)
    fn(x)
    out = fn(x)
    for got, want in zip(out, body(x), strict=True):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(x.numpy(), x_value)


@needs_numba
def test_buffer_reuse_writes_into_fused_results_but_never_into_their_inputs():
    # The fused program's output is fresh: a later elementwise op that is not fused
    # (floormod) may write into it; the program itself never writes into its inputs.
    spec = ef.TensorSpec([4], ef.float32)
    program = _program(lambda x, b: ef.exp((x * b + 1.0) * b - 1.0) % 3.0,
                       spec, spec)
    types = [n.type for n in program.nodes]
    assert types == ["Placeholder", "Placeholder", FUSED, "FloorMod"]
    fused, floormod = program.nodes[2], program.nodes[3]
    assert program.inplace.get(id(floormod)) == 0 and id(fused) not in program.inplace
    x = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    b = np.array([1.0, -1.0, 2.0, 0.5], np.float32)
    before = x.copy(), b.copy()
    plan = executor.compile_program(program, [n.outputs[0] for n in program.nodes[:2]])
    out, = plan(x, b)
    np.testing.assert_allclose(out, np.mod(np.exp((x * b + 1) * b - 1), 3), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(x, before[0])
    np.testing.assert_array_equal(b, before[1])


@pytest.fixture
def numpy_kernels():
    """The NumPy kernel set for the test (what an install without numba runs), then the
    set the test found."""
    before = ef.config.get_kernel_set()
    ef.config.set_kernel_set("numpy")
    yield
    ef.config.set_kernel_set(before)


def test_fusion_follows_the_kernel_set(numpy_kernels):
    assert not fusion.available() and not fusion.wanted(None) and not fusion.wanted(True)


def _program(fn, *specs):
    cf = ef.function(fn).get_concrete_function(*specs)
    return pipeline.optimize(cf.graph.nodes, cf.graph.outputs, fuse=True)


@needs_numba
def test_cost_model_skips_big_tensors_and_short_chains():
    big = ef.TensorSpec([100_000], ef.float32)
    assert FUSED not in [n.type for n in _program(lambda x: ef.tanh(x * 2.0) + x, big).nodes]
    small = ef.TensorSpec([8], ef.float32)
    assert FUSED not in [n.type for n in _program(lambda x: x * 2.0 + 1.0, small).nodes]
    assert FUSED in [n.type for n in _program(
        lambda x: ef.tanh(x * 2.0 + 1.0) * x - 0.5, small).nodes]
    unknown = ef.TensorSpec([None], ef.float32)  # size unknown: NumPy
    assert FUSED not in [n.type for n in _program(
        lambda x: ef.tanh(x * 2.0 + 1.0) * x - 0.5, unknown).nodes]


@needs_numba
def test_gradients_through_fused_regions_match_the_plain_plan():
    def loss_and_grads(x, y):
        with ef.GradientTape() as tape:
            tape.watch([x, y])
            out_x, out_y = chain(x, y)
            loss = ef.reduce_sum(out_x * out_y)
        return loss, tape.gradient(loss, [x, y])

    x, y = _pair(np.float32, (5,), seed=2)
    fused = ef.function(loss_and_grads)
    types = optimized_types(fused, x, y)
    assert types.count(FUSED) >= 2  # the backward chains are fused too
    fused(x, y)
    got = fused(x, y)
    want = ef.function(loss_and_grads, jit_compile=False)(x, y)
    np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), rtol=1e-5)
    for g, w in zip(got[1], want[1], strict=True):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-4, atol=1e-6)


@needs_numba
def test_gradients_of_a_fused_function_pass_the_checker():
    # float64: the function's plan and its gradient graph's plan are fused programs.
    fused = ef.function(lambda x, y: chain(x, y)[0] * chain(x, y)[1])
    x, y = _pair(np.float64, (4,), seed=3)
    assert FUSED in optimized_types(fused, x, y)
    check_gradients(fused, x, y, order=2)


@st.composite
def random_programs(draw):
    """A random DAG of fusable ops over two inputs, with shared values and 1-3 outputs."""
    unary = ["tanh", "sin", "cos", "sigmoid", "neg", "abs", "relu"]
    binary = ["add", "sub", "mul", "maximum", "minimum"]
    steps = []
    for _ in range(draw(st.integers(2, 14))):
        if draw(st.booleans()):
            steps.append((draw(st.sampled_from(unary)), draw(st.integers(0, 99)), None))
        else:
            other = draw(st.one_of(st.integers(0, 99), st.floats(-2, 2, width=32)))
            steps.append((draw(st.sampled_from(binary)), draw(st.integers(0, 99)), other))
    outputs = draw(st.lists(st.integers(0, 99), min_size=1, max_size=3))
    return steps, outputs


_UNARY = {"tanh": ef.tanh, "sin": ef.sin, "cos": ef.cos, "sigmoid": ef.sigmoid,
          "neg": ef.negative, "abs": ef.abs, "relu": ef.nn.relu}
_BINARY = {"add": ef.add, "sub": ef.subtract, "mul": ef.multiply, "maximum": ef.maximum,
           "minimum": ef.minimum}


def _build(spec):
    steps, outputs = spec

    def body(x, y):
        values = [x, y]
        for name, a, b in steps:
            first = values[a % len(values)]
            if b is None:
                values.append(_UNARY[name](first))
            else:
                second = values[b % len(values)] if isinstance(b, int) else float(b)
                values.append(_BINARY[name](first, second))
        return tuple(values[2 + i % (len(values) - 2)] for i in outputs)

    return body


@needs_numba
@settings(max_examples=25, deadline=None)
@given(spec=random_programs(), dtype=st.sampled_from([np.float32, np.float64]),
       shapes=st.sampled_from([((5,), (5,)), ((2, 3), (3,)), ((), (4,)), ((1, 3), (2, 1))]))
def test_random_fused_programs_equal_the_plain_plan(spec, dtype, shapes):
    body = _build(spec)
    rng = np.random.default_rng(len(spec[0]))
    x, y = (ef.constant(rng.uniform(-2, 2, s).astype(dtype)) for s in shapes)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fusion, "_GAIN", float("inf"))
        fused = ef.function(body)
        fused(x, y)
        got = fused(x, y)
    plain = ef.function(body, jit_compile=False)
    plain(x, y)
    want = plain(x, y)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


# -- switches and the path without numba ---------------------------------------------------
def test_without_numba_the_plan_is_unchanged(numpy_kernels, monkeypatch):
    x, y = _pair()
    fn = ef.function(chain)
    assert FUSED not in optimized_types(fn, x, y)
    assert optimized_types(fn, x, y) == optimized_types(ef.function(chain, jit_compile=False),
                                                        x, y)
    fn(x, y)
    np.testing.assert_allclose(fn(x, y)[0].numpy(), chain(x, y)[0].numpy(), rtol=1e-6)
    with pytest.raises(ef.errors.UnimplementedError,
                       match=r"jit_compile=True compiles .* with numba, but (the active kernel "
                             r"set is 'numpy'|[a-z, ]+ (is|are) not installed).*"
                             r"set_kernel_set"):
        ef.function(chain, jit_compile=True)
    monkeypatch.setattr(fusion.kernel_sets, "missing", lambda: ["numba"])
    with pytest.raises(ef.errors.UnimplementedError,
                       match=r"numba is not installed. Install the fast extra with "
                             r".*eagerflow\[fast\]"):
        ef.function(chain, jit_compile=True)


def test_jit_compile_false_and_the_global_option_turn_fusion_off(monkeypatch):
    x, y = _pair()
    assert FUSED not in optimized_types(ef.function(chain, jit_compile=False), x, y)
    ef.config.optimizer.set_experimental_options({"elementwise_fusion": False})
    try:
        assert ef.config.optimizer.get_experimental_options() == {"elementwise_fusion": False}
        assert FUSED not in optimized_types(ef.function(chain), x, y)
        if fusion.available():  # an explicit jit_compile=True still fuses
            assert FUSED in optimized_types(ef.function(chain, jit_compile=True), x, y)
    finally:
        ef.config.optimizer.set_experimental_options({"elementwise_fusion": True})
    assert (FUSED in optimized_types(ef.function(chain), x, y)) == fusion.available()


def test_bad_switch_values_are_refused():
    with pytest.raises(TypeError, match=r"jit_compile` must be None, True or False"):
        ef.function(chain, jit_compile="yes")
    with pytest.raises(ValueError, match=r"unknown option 'fusion'"):
        ef.config.optimizer.set_experimental_options({"fusion": True})
    with pytest.raises(ValueError, match=r"'elementwise_fusion' must be a bool"):
        ef.config.optimizer.set_experimental_options({"elementwise_fusion": 1})
    with pytest.raises(ValueError, match=r"`options` must be a dict"):
        ef.config.optimizer.set_experimental_options(["elementwise_fusion"])


@needs_numba
def test_check_numerics_plans_are_not_fused_and_name_the_op():
    fn = ef.function(lambda x: ef.log(x * 2.0 - 1.0) * 3.0 + 1.0)
    fn(ef.constant(np.ones(4, np.float32)))  # traced; the next calls run plans
    assert FUSED in optimized_types(fn, ef.constant(np.ones(4, np.float32)))
    ef.debugging.enable_check_numerics()
    try:
        with np.errstate(all="ignore"), \
                pytest.raises(ef.errors.InvalidArgumentError, match=r"Log"):
            fn(ef.constant(np.zeros(4, np.float32)))
    finally:
        ef.debugging.disable_check_numerics()


# -- property: random elementwise graphs, fused against eager ------------------------------
_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 3.0, 40.0, -40.0, 1e30, -1e30, float("inf"),
            float("-inf"), float("nan")]
_PROP_UNARY = {
    "neg": ef.negative, "abs": ef.abs, "exp": ef.exp, "log": ef.log, "sqrt": ef.sqrt,
    "square": ef.square, "tanh": ef.tanh, "sigmoid": ef.sigmoid, "relu": ef.nn.relu,
    "floor": ef.floor, "sign": ef.sign, "reciprocal": ef.math.reciprocal,
    "log1p": ef.log1p, "expm1": ef.math.expm1,
    # bounded: a last-bit difference of exp(40) (2e17) changes its sine completely
    "sin": lambda a: ef.sin(ef.minimum(ef.maximum(a, -100.0), 100.0)),
    "to_float64": lambda a: ef.cast(a, ef.float64), "to_float32": lambda a: ef.cast(a, ef.float32),
}
_PROP_BINARY = {
    "add": ef.add, "sub": ef.subtract, "mul": ef.multiply, "div": ef.divide,
    "maximum": ef.maximum, "minimum": ef.minimum, "pow": ef.pow,
    "squared_difference": ef.math.squared_difference,
}


@st.composite
def elementwise_graphs(draw):
    """Steps over a pool of values (three inputs of shapes (3, 1), (1, 4) and ()): unary
    ops, binary ops with another value or a Python constant, and ``where`` over a
    comparison. Operands of mixed dtypes are cast to the first one's dtype."""
    steps = []
    for _ in range(draw(st.integers(2, 10))):
        kind = draw(st.sampled_from(["unary", "binary", "binary", "where"]))
        a = draw(st.integers(0, 99))
        if kind == "unary":
            steps.append(("unary", draw(st.sampled_from(sorted(_PROP_UNARY))), a, None))
        elif kind == "binary":
            name = draw(st.sampled_from(sorted(_PROP_BINARY)))
            if name == "pow":
                other = draw(st.one_of(st.sampled_from([2, 3, -1, 0, 2.0, 0.5, -0.5, 1.5]),
                                       st.integers(0, 99)))
            else:
                other = draw(st.one_of(st.integers(0, 99), st.sampled_from([0.0, 2.0, -0.5]),
                                       st.floats(-3, 3, width=32)))
                if name == "add" and type(other) is float and other == 0.0:
                    other = 1.0  # the unfused plan too simplifies x + 0.0 to x, -0.0 included
            swap = draw(st.booleans())
            steps.append(("binary", name, a, (other, swap)))
        else:
            steps.append(("where", draw(st.sampled_from(["greater", "less_equal"])), a,
                          (draw(st.integers(0, 99)), draw(st.integers(0, 99)))))
    outputs = draw(st.lists(st.integers(0, 99), min_size=1, max_size=3))
    return steps, outputs


def _build_elementwise(spec):
    steps, outputs = spec

    def body(x, y, z):
        values = [x, y, z]

        def pick(i):
            return values[i % len(values)]

        def like(v, ref):
            return v if v.dtype == ref.dtype else ef.cast(v, ref.dtype)

        for kind, name, a, other in steps:
            first = values[-1 - a % min(len(values), 4)]  # mostly chains: regions to fuse
            if kind == "unary":
                values.append(_PROP_UNARY[name](first))
            elif kind == "binary":
                b, swap = other
                if type(b) is int and not (name == "pow" and b < 10):
                    b = like(pick(b), first)
                elif type(b) is int:
                    b = float(b) if first.dtype != ef.int32 else b
                if name == "pow" and not isinstance(b, float | int):
                    first = ef.abs(first) + 0.5  # tensor exponents: positive bases
                pair = (b, first) if swap and name != "pow" else (first, b)
                values.append(_PROP_BINARY[name](*pair))
            else:
                c, d = (like(pick(i), first) for i in other)
                mask = getattr(ef.math, name)(first, c)
                values.append(ef.where(mask, c, d * 2.0))
        return tuple(values[3 + i % (len(values) - 3)] for i in outputs)

    return body


def _assert_same(got, want, what):
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != eager {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != eager {want.shape}"
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{what}: NaN")
    np.testing.assert_array_equal(np.isposinf(got), np.isposinf(want), err_msg=f"{what}: +inf")
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(want), err_msg=f"{what}: -inf")
    finite = np.isfinite(want)
    scale = np.abs(want[finite]) + 1.0
    assert np.all(np.abs(got[finite] - want[finite]) <= 1e-4 * scale), f"{what}: values"


def _assert_same_zero_signs(got, plain, what):
    """Against the unfused plan: its passes already drop some signs of zero that eager
    keeps (``x + 0.0`` is ``x``, also for -0.0)."""
    zero = (got == 0) & (plain == 0)
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(plain[zero]),
                                  err_msg=f"{what}: sign of zero")


@needs_numba
@settings(max_examples=60, deadline=None)
@given(spec=elementwise_graphs(), dtype=st.sampled_from([np.float32, np.float64]),
       data=st.data())
def test_random_elementwise_graphs_fused_equal_eager(spec, dtype, data):
    """Fusion forced on everywhere: values (NaN and inf in the same places), dtypes and
    gradients equal eager ones, inputs with zeros, negatives, huge values and non-finites."""
    body = _build_elementwise(spec)
    values = st.one_of(st.sampled_from(_SPECIAL), st.floats(-5, 5))
    x = ef.constant(np.array(_SPECIAL, dtype).reshape(-1, 1))  # every special value
    y = ef.constant(np.array(data.draw(st.lists(values, min_size=4, max_size=4)), dtype)
                    .reshape(1, 4))
    z = ef.constant(dtype(data.draw(values)))

    def loss_grads(fn):
        with ef.GradientTape() as tape:
            tape.watch([x, y, z])
            outs = fn(x, y, z)
            loss = sum(ef.reduce_sum(ef.cast(o, ef.float64) * 1.5) for o in outs)
        return outs, tape.gradient(loss, [x, y, z])

    with np.errstate(all="ignore"), pytest.MonkeyPatch.context() as patch:
        want, want_grads = loss_grads(body)
        patch.setattr(fusion, "_GAIN", float("inf"))
        fused = ef.function(body, jit_compile=True)
        fused(x, y, z)  # the traced run is eager; the following calls run the plan
        got, got_grads = loss_grads(fused)
        got_again = fused(x, y, z)
        plain = ef.function(body, jit_compile=False)
        plain(x, y, z)
        plain_outs, plain_grads = loss_grads(plain)
    for i, (g, g2, w, p) in enumerate(zip(got, got_again, want, plain_outs, strict=True)):
        _assert_same(g.numpy(), w.numpy(), f"output {i}")
        _assert_same(g2.numpy(), w.numpy(), f"output {i}, second call")
        _assert_same_zero_signs(g.numpy(), p.numpy(), f"output {i}")
    for i, (g, w, p) in enumerate(zip(got_grads, want_grads, plain_grads, strict=True)):
        if w is None:
            assert g is None or not np.any(g.numpy()), f"gradient {i}"
        else:
            _assert_same(g.numpy(), w.numpy(), f"gradient {i}")
            _assert_same_zero_signs(g.numpy(), p.numpy(), f"gradient {i}")


@needs_numba
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_keeps_numpys_square_root_for_a_half_and_tensor_exponents_stay_numpy(
        always_fuse, dtype):
    # NumPy's power with a scalar exponent of 0.5 is a square root: (-inf) ** 0.5 is NaN and
    # (-0.0) ** 0.5 is -0.0; C's pow gives inf and 0.0 (fusion with numexpr once gave inf).
    x = ef.constant(np.array([-np.inf, -0.0, -2.0, 4.0, np.inf, np.nan], dtype))

    def body(x):
        return -ef.pow(x * 2.0, 0.5) + ef.pow(x * 3.0, 2) * ef.pow(x - 1.0, -1.5)

    fused = ef.function(body)
    types = optimized_types(fused, x)
    assert FUSED in types and "Pow" not in types
    with np.errstate(all="ignore"):
        fused(x)
        got, want = fused(x).numpy(), body(x).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    # a tensor exponent may be 0.5 at run time: NumPy decides by its loop's strides
    tensor_exponent = ef.function(lambda x, e: ef.pow(x * 2.0, e) * 3.0)
    assert "Pow" in optimized_types(tensor_exponent, x, ef.constant(dtype(0.5)))


@needs_numba
@pytest.mark.parametrize("shapes", [((3, 1), (1, 0)), ((0,), (0,)), ((0, 4), (4,)), ((), ())])
def test_empty_and_scalar_shapes_keep_eager_shapes(always_fuse, shapes):
    # Empty results are never fused (numexpr, once, broadcast (3, 1) and (1, 0) to (1, 0)).
    def body(x, y):
        return ef.tanh(x * 2.0 + y) - y * 0.5

    x, y = (ef.constant(np.full(s, 0.5, np.float32)) for s in shapes)
    fused = ef.function(body)
    assert (FUSED in optimized_types(fused, x, y)) == (shapes == ((), ()))
    fused(x, y)
    got, want = fused(x, y), body(x, y)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


@needs_numba
def test_non_contiguous_inputs_and_results_kept_across_calls(always_fuse):
    def body(x):
        reversed_ = x[::-1] * 2.0 + 1.0  # negative strides
        first = ef.broadcast_to(x[:1], [4])  # stride 0
        return ef.tanh(reversed_) * ef.exp(first * 0.5) - first, ef.transpose(
            ef.reshape(x, [2, 2])) * 3.0 + 1.0

    fused = ef.function(body)
    x = ef.constant(np.array([1.0, -2.0, 3.0, -4.0], np.float32))
    assert optimized_types(fused, x).count(FUSED) == 2
    fused(x)
    first = fused(x)
    kept = [t.numpy().copy() for t in first]
    fused(ef.constant(np.array([9.0, 8.0, 7.0, 6.0], np.float32)))  # must not overwrite `first`
    for got, want, old in zip(first, body(x), kept, strict=True):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
        np.testing.assert_array_equal(got.numpy(), old)


@needs_numba
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.float16, np.float32, bool])
def test_floor_division_modulo_overflow_and_bool_keep_numpy_semantics(always_fuse, dtype):
    # Only float32/float64 fuse: integer // and % (C truncates toward zero), float16 and
    # unsigned wrap-around stay NumPy, and floor division/modulo of floats too.
    def body(x):
        if dtype is bool:
            return ef.math.logical_xor(ef.math.logical_and(x, ef.math.logical_not(x[::-1])), x[:1])
        big = (x * 3 + 1) * (x - 2)  # int32 and uint8 wrap around as in NumPy
        return big // 4 - big % 3 + ef.abs(x) * x

    values = {"i": [-7, -1, 0, 5, 100, 2**20], "f": [-7, -1, 0, 5, 100, 2000],
              "u": [0, 1, 200], "b": [1, 0, 1, 1, 0]}[np.dtype(dtype).kind]
    x = ef.constant(np.array(values, np.int64).astype(dtype))
    fused = ef.function(body, jit_compile=True)
    types = optimized_types(fused, x)
    assert (FUSED in types) == (dtype == np.float32)  # only abs(x) * x, not // or %
    assert {"FloorDiv", "FloorMod"} <= set(types) or dtype is bool
    with np.errstate(all="ignore"):
        fused(x)
        got, want = fused(x).numpy(), body(x).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@needs_numba
def test_values_captured_by_branches_and_returned_inputs(always_fuse):
    def body(x, flag):
        a = x * 2.0 + 1.0  # read inside the branches: must be materialised
        b = ef.tanh(a) * 3.0
        if flag > 0:
            out = a * 5.0 - 1.0
        else:
            out = ef.exp(a) * -1.0
        return out + b, x

    x = ef.constant(np.array([0.5, -1.0, 2.0], np.float32))
    fused = ef.function(body)
    for flag in (ef.constant(1), ef.constant(-1)):
        assert FUSED in optimized_types(fused, x, flag)
        fused(x, flag)
        (got, same), (want, _) = fused(x, flag), body(x, flag)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
        np.testing.assert_array_equal(same.numpy(), x.numpy())


@needs_numba
def test_wide_regions_fuse_and_regions_beyond_the_register_bound_run_unfused(monkeypatch):
    # 260 distinct constants (numexpr's 255 registers were once a crash here) fit; a
    # program needing more registers than `_MAX_REGISTERS` stays NumPy calls.
    def wide(x):
        scaled = [x * float(i + 1) for i in range(260)]
        return sum(ef.sin(v) for v in scaled[::-1])

    x = ef.constant(np.linspace(-1, 1, 4, dtype=np.float32))
    fn = ef.function(wide)
    assert FUSED in optimized_types(fn, x)
    fn(x)
    np.testing.assert_allclose(fn(x).numpy(), wide(x).numpy(), rtol=1e-5, atol=1e-5)
    monkeypatch.setattr(fusion, "_MAX_REGISTERS", 200)
    assert FUSED not in optimized_types(ef.function(wide), x)


@needs_numba
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sigmoid_of_very_negative_inputs_is_tiny_not_zero_as_eager(always_fuse, dtype):
    # Fused as 1 / (1 + e^-x), sigmoid(-100) was 0 where eager gives e^-100 (float32:
    # 3.7e-44), so dividing by it (or by 0) gave NaN instead of inf.
    x = ef.constant(np.array([-50.0, -400.0, -0.0, 3.0, np.nan, np.inf, -np.inf], dtype))

    def body(x):
        s = ef.sigmoid(x * 2.0)
        return s * 1.5, 1.0 / s

    fused = ef.function(body)
    assert FUSED in optimized_types(fused, x)
    with np.errstate(all="ignore"):
        fused(x)
        for got, want in zip(fused(x), body(x), strict=True):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=0)
