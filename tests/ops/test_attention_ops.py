"""FusedAttention (and FusedAttentionGrad, reached by the second-order checks) against the
per-head formula, on both kernel sets, eagerly, on a tape and inside `ef.function`."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.ops import attention_ops as attention
from eagerflow.ops.kernels import kernel_sets
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize

_MASK = np.random.default_rng(7).random((2, 1, 3, 5)) > 0.3
_MASK[..., 0] = False  # a masked first step in every row
_MASK[..., 1] = True
# A fully masked row gets uniform weights in float32 (as Keras's); no gradient check: the
# -1e9 shift leaves float64 finite differences ~1e-7 of resolution.
_ROW_MASKED = _MASK.copy()
_ROW_MASKED[0, 0, 1] = False


def np_attention(query, key, value, mask=None):
    scores = np.einsum("bthd,bshd->bhts", query, key)
    if mask is not None:
        # in the scores' dtype, as `layers.attention.masked_softmax` adds it
        scores = scores + ((1 - mask) * attention.large_negative(scores.dtype)).astype(
            scores.dtype)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    return np.einsum("bhts,bshd->bthd", weights, value), weights


SHAPES = [(2, 3, 2, 4), (2, 5, 2, 4), (2, 5, 2, 3)]
CASES = [
    OpCase("fused_attention", attention.fused_attention, np_attention, shapes=SHAPES),
    OpCase("fused_attention_masked", lambda q, k, v: attention.fused_attention(q, k, v, _MASK),
           lambda q, k, v: np_attention(q, k, v, _MASK), shapes=SHAPES),
    OpCase("fused_attention_row_masked",
           lambda q, k, v: attention.fused_attention(q, k, v, _ROW_MASKED),
           lambda q, k, v: np_attention(q, k, v, _ROW_MASKED), shapes=SHAPES, order=0),
    OpCase("fused_attention_one_query", attention.fused_attention, np_attention,
           shapes=[(1, 1, 3, 2), (1, 4, 3, 2), (1, 4, 3, 5)]),
]


@parametrize(CASES)
def test_forward(case):
    check_forward(case)


@parametrize(CASES)
def test_gradient(case):
    check_gradient(case)


@parametrize(CASES)
def test_jvp(case):
    check_forward_mode(case)


@parametrize(CASES)
def test_forward_and_gradient_on_the_numpy_kernels(case, numpy_kernels):
    check_forward(case)
    check_gradient(case)


def _inputs(dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=s).astype(dtype) for s in SHAPES]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numba_kernels_match_the_numpy_ones(dtype):
    pytest.importorskip("numba")
    query, key, value = _inputs(dtype)
    tol = {"rtol": 1e-6, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-14,
                                                                      "atol": 1e-14}
    for mask in (None, _MASK, _ROW_MASKED):
        want = kernel_sets.numpy_forward("FusedAttention")(query, key, value, mask)
        got = kernel_sets.kernel_forward("FusedAttention")(query, key, value, mask)
        rng = np.random.default_rng(1)
        grads_in = (query, key, value, want[1], rng.normal(size=want[0].shape).astype(dtype),
                    rng.normal(size=want[1].shape).astype(dtype))
        want_grad = kernel_sets.numpy_forward("FusedAttentionGrad")(*grads_in)
        got_grad = kernel_sets.kernel_forward("FusedAttentionGrad")(*grads_in)
        for g, w in zip((*got, *got_grad), (*want, *want_grad), strict=True):
            assert g.dtype == dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, **tol)


@pytest.mark.parametrize("kernels", ["numpy", "numba"])
def test_traced_and_tape_gradients_match_eager(kernels, request):
    request.getfixturevalue(f"{kernels}_kernels")
    query, key, value = (ef.constant(a) for a in _inputs(np.float32))

    def loss(q, k, v):
        with ef.GradientTape() as tape:
            tape.watch([q, k, v])
            out, weights = attention.fused_attention(q, k, v, _MASK)
            total = ef.reduce_sum(out * out) + ef.reduce_sum(weights[..., 1])
        return [total, *tape.gradient(total, [q, k, v])]

    eager = loss(query, key, value)
    traced = ef.function(loss)(query, key, value)
    want = np_attention(*_inputs(np.float64), _MASK)
    np.testing.assert_allclose(eager[0].numpy(),
                               (want[0] ** 2).sum() + want[1][..., 1].sum(), rtol=1e-5)
    for e, t in zip(eager, traced, strict=True):
        np.testing.assert_allclose(t.numpy(), e.numpy(), rtol=1e-6, atol=1e-7)


def test_bad_inputs_name_the_op():
    q, k, v = (ef.constant(a) for a in _inputs(np.float32))
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"rank 4 .*\[Op:FusedAttention\]"):
        attention.fused_attention(q[0], k, v)
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"one float dtype"):
        attention.fused_attention(q, ef.cast(k, ef.float64), v)
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"incompatible shapes query"):
        attention.fused_attention(q, k, v[:, :4])
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"mask must be boolean"):
        attention.fused_attention(q, k, v, _MASK.astype(np.float32))
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"\(B, H, Tq, Tv\) = \(2, 2, 3, 5\)"):
        attention.fused_attention(q, k, v, np.ones((2, 1, 3, 4), bool))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shapes", [[(3, 9, 4, 5), (3, 11, 4, 5), (3, 11, 4, 7)],
                                    [(1, 128, 1, 32), (1, 128, 1, 32), (1, 128, 1, 32)]])
def test_numba_kernels_on_more_pairs_and_longer_rows_match_the_numpy_ones(dtype, shapes):
    pytest.importorskip("numba")
    from eagerflow.ops.kernels import attention_jit

    rng = np.random.default_rng(3)
    query, key, value = (rng.normal(size=s).astype(dtype) for s in shapes)
    mask = rng.random((shapes[0][0], 1, shapes[0][1], shapes[1][1])) > 0.3
    # float32: sums of up to 128 terms in another order (BLAS's blocking, the reassociated
    # row sums) than the NumPy kernels'
    tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-13,
                                                                      "atol": 1e-13}
    for m in (None, mask):
        want = kernel_sets.numpy_forward("FusedAttention")(query, key, value, m)
        got = attention_jit.attention(query, key, value, m)
        doutput = rng.normal(size=want[0].shape).astype(dtype)
        for dweights in (None, rng.normal(size=want[1].shape).astype(dtype)):
            grads_in = (query, key, value, want[1], doutput, dweights)
            want_grad = kernel_sets.numpy_forward("FusedAttentionGrad")(*grads_in)
            got_grad = attention_jit.attention_grad(*grads_in)
            for g, w in zip((*got, *got_grad), (*want, *want_grad), strict=True):
                assert g.dtype == dtype and g.shape == w.shape
                np.testing.assert_allclose(g, w, **tol)


def test_numba_kernels_take_strided_inputs_other_dtypes_and_empty_sizes():
    pytest.importorskip("numba")
    from eagerflow.ops.kernels import attention_jit

    rng = np.random.default_rng(4)
    wide = rng.normal(size=(2, 5, 2, 8))
    query, key, value = wide[..., :4], wide[..., 2:6], wide[..., ::2]  # strided views
    want = kernel_sets.numpy_forward("FusedAttention")(query, key, value)
    got = attention_jit.attention(query, key, value)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-14)
    # a float32 output gradient for float64 inputs: computed in the inputs' dtype
    doutput = rng.normal(size=want[0].shape).astype(np.float32)
    got_grad = attention_jit.attention_grad(query, key, value, want[1], doutput, None)
    want_grad = kernel_sets.numpy_forward("FusedAttentionGrad")(
        query, key, value, want[1], doutput.astype(np.float64), None)
    for g, w in zip(got_grad, want_grad, strict=True):
        assert g.dtype == np.float64
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
    empty = np.zeros((2, 3, 2, 0))
    out, weights = attention_jit.attention(empty, np.zeros((2, 4, 2, 0)), np.ones((2, 4, 2, 5)))
    np.testing.assert_allclose(out, 1.0)
    np.testing.assert_allclose(weights, 0.25)


@pytest.mark.parametrize("threads", [2, 3, 7, 40])
def test_numba_kernels_split_over_any_number_of_threads_give_one_threads_values(
        threads, monkeypatch):
    """The pairs are independent: each thread's range (`jit.run_parts`) computes the values
    one thread does, bit for bit, even with more threads than pairs (3 x 4 here)."""
    pytest.importorskip("numba")
    from eagerflow.ops.kernels import attention_jit, jit

    rng = np.random.default_rng(5)
    query, key, value = (rng.normal(size=s).astype(np.float32)
                         for s in [(3, 9, 4, 5), (3, 11, 4, 5), (3, 11, 4, 7)])
    mask = rng.random((3, 1, 9, 11)) > 0.3

    def run():
        out, weights = attention_jit.attention(query, key, value, mask)
        doutput = np.linspace(-1, 1, out.size, dtype=np.float32).reshape(out.shape)
        return (out, weights, *attention_jit.attention_grad(query, key, value, weights,
                                                            doutput, weights * 0.5))

    monkeypatch.setattr(jit, "threads", lambda: 1)
    want = run()
    monkeypatch.setattr(jit, "threads", lambda: threads)
    for got, one in zip(run(), want, strict=True):
        np.testing.assert_array_equal(got, one)
