"""The compiled interpreter of elementwise fusion (eagerflow/graph/passes/fusion_jit.py),
instruction by instruction against NumPy, edge values included."""

import numpy as np
import pytest

from eagerflow.graph.passes import fusion

pytestmark = pytest.mark.skipif(
    not fusion.available(),
    reason="needs the numba kernel set, the optional `fast` extra: pip install -e '.[fast]'")


@pytest.fixture(scope="module")
def vm():
    from eagerflow.graph.passes import fusion_jit

    return fusion_jit


def _edge_values(dtype):
    info = np.finfo(dtype)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 9.0, -10.5, 40.0, -40.0, 88.0, -100.0,
               1e-30, -1e-30, info.tiny, info.tiny / 4, info.max, -info.max,
               np.inf, -np.inf, np.nan]
    rng = np.random.default_rng(0)
    spread = np.concatenate([rng.uniform(-6, 6, 600), rng.standard_normal(300) * 1e-4])
    return np.concatenate([np.array(special), spread]).astype(dtype)  # 922: two blocks


def _run(vm, opcode, a, b=None):
    """Runs one instruction over `a` (and `b`), as `fusion._compile` encodes it."""
    dtype = a.dtype
    rows = np.stack([a, a if b is None else b, np.full_like(a, 7.0)])  # row 2: the result
    code = np.array([[vm.LOAD, 2, 0, 0], [vm.LOAD, 3, 1, 0], [opcode, 4, 2, 3],
                     [vm.STORE, 4, 2, 0]], np.int32)
    vm.run(code, np.array([0, 1], dtype), 5, rows)
    return rows[2]


def _ulps(got, want):
    """Units in the last place between two arrays (0 where both are NaN or equal)."""
    kind = np.int32 if got.dtype == np.float32 else np.int64
    g, w = got.view(kind).astype(np.int64), want.view(kind).astype(np.int64)
    g = np.where(g < 0, np.iinfo(kind).min - g, g)  # ordered: -0.0 and 0.0 are neighbours
    w = np.where(w < 0, np.iinfo(kind).min - w, w)
    distance = np.abs(g - w)
    return np.where(np.isnan(got) & np.isnan(want), 0, distance)


UNARY = {
    "NEG": np.negative, "SQRT": np.sqrt, "ABS": np.abs, "SQUARE": np.square,
    "RECIPROCAL": np.reciprocal, "RELU": lambda x: np.maximum(x, 0), "SIGN": np.sign,
    "FLOOR": np.floor, "CEIL": np.ceil, "EXP": np.exp, "EXPM1": np.expm1, "LOG": np.log,
    "LOG1P": np.log1p, "SIN": np.sin, "COS": np.cos, "TAN": np.tan, "TANH": np.tanh,
    "SIGMOID": None,  # the eager kernel's formula, below
}
BINARY = {
    "ADD": np.add, "SUB": np.subtract, "MUL": np.multiply, "DIV": np.divide,
    "POW": np.power, "MAXIMUM": np.maximum, "MINIMUM": np.minimum,
    "SQUARED_DIFFERENCE": lambda a, b: np.square(a - b),
}
# IEEE operations and comparisons: bit-identical. The C library's transcendentals and
# NumPy's SIMD ones differ by a few units in the last place (each is within ~1-2 ulp of
# the exact result); float32 tanh is correctly rounded here, NumPy's within 1 ulp.
EXACT = {"NEG", "SQRT", "ABS", "SQUARE", "RECIPROCAL", "RELU", "SIGN", "FLOOR", "CEIL",
         "ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE"}


def _sigmoid(x):
    e = np.exp(-np.abs(x))
    r = 1 / (1 + e)
    return np.where(x < 0, e * r, r).astype(x.dtype)


def test_every_opcode_has_a_row_and_a_cost(vm):
    assert set(fusion._EMIT.values()) == set(UNARY) | set(BINARY) == set(fusion._COSTS)
    assert {getattr(vm, name) for name in BINARY} == vm.BINARY
    assert fusion._BLOCK == vm.BLOCK  # the cost model's block size


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_instructions_match_numpy_on_edge_values(vm, name, dtype):
    x = _edge_values(dtype)
    with np.errstate(all="ignore"):
        want = _sigmoid(x) if name == "SIGMOID" else UNARY[name](x)
        got = _run(vm, getattr(vm, name), x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    if name in EXACT:
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
        return
    if name == "TAN":  # near its poles a last-bit difference of the argument's reduction
        keep = np.abs(np.cos(np.nan_to_num(x.astype(np.float64)))) > 1e-3  # is a large one
        got, want = got[keep], want[keep]
    assert _ulps(got, want).max() <= 4, x[np.argmax(_ulps(got, want))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_instructions_match_numpy_on_edge_values(vm, name, dtype):
    x = _edge_values(dtype)
    a, b = np.meshgrid(x[:40], x[:40])  # every pair of the special values and some more
    a, b = np.concatenate([a.ravel(), x]), np.concatenate([b.ravel(), x[::-1]])
    with np.errstate(all="ignore"):
        want = BINARY[name](a, b)
        got = _run(vm, getattr(vm, name), a, b)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    if name in EXACT:
        np.testing.assert_array_equal(got[~np.isnan(got)], want[~np.isnan(want)])
        both_zero = (got == 0) & (want == 0)
        np.testing.assert_array_equal(np.signbit(got[both_zero]), np.signbit(want[both_zero]))
    else:
        assert _ulps(got, want).max() <= 4


def test_float32_tanh_is_correctly_rounded(vm):
    # every float32 in [-12, 12] on a fine grid, tiny values down to denormals, and edges
    grid = np.linspace(-12, 12, 1_000_001, dtype=np.float32)
    tiny = np.float32(10) ** np.linspace(-44, 0, 20_000, dtype=np.float32)
    x = np.concatenate([grid, tiny, -tiny, np.array([np.inf, -np.inf, 0.0, -0.0], np.float32)])
    got = _run(vm, vm.TANH, x)
    want = np.tanh(x.astype(np.float64)).astype(np.float32)
    assert _ulps(got, want).max() <= 1
    assert np.signbit(got[-1]) and not np.signbit(got[-2])  # tanh(-0.0) is -0.0
    assert np.isnan(_run(vm, vm.TANH, np.array([np.nan], np.float32)))[0]


def test_programs_span_blocks_and_keep_their_registers(vm):
    # 1300 elements: three blocks of 512, the last partial; a value kept in a register
    # across instructions, and a constant register
    x = np.linspace(-3, 3, 1300)
    rows = np.stack([x, np.zeros_like(x)])
    code = np.array([[vm.LOAD, 3, 0, 0], [vm.MUL, 4, 3, 2], [vm.TANH, 5, 4, 0],
                     [vm.SUB, 6, 5, 3], [vm.STORE, 6, 1, 0]], np.int32)
    vm.run(code, np.array([0.0, 1.0, 0.5]), 7, rows)
    np.testing.assert_allclose(rows[1], np.tanh(x * 0.5) - x, rtol=1e-15, atol=1e-15)
    np.testing.assert_array_equal(rows[0], x)  # the input row is never written
