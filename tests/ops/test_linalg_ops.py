"""Matrix products, norms and norm clipping (eagerflow/ops/linalg_ops.py)."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.ops import linalg_ops
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize

_E = ef.errors.InvalidArgumentError


def _t(x):
    return np.swapaxes(x, -1, -2)


def _np_clip_by_norm(t, clip_norm, axes=None):
    norm = np.sqrt(np.sum(t * t, axis=axes, keepdims=True))
    return t * clip_norm / np.maximum(norm, clip_norm)


def _np_vector_norm(x, ord, axis=None, keepdims=False):
    if ord == np.inf:
        return np.max(np.abs(x), axis=axis, keepdims=keepdims)
    return np.sum(np.abs(x) ** ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)


CASES = [
    OpCase("matmul", ef.matmul, np.matmul, shapes=[(2, 3), (3, 4)]),
    OpCase("matmul-1x1", ef.matmul, np.matmul, shapes=[(1, 1), (1, 1)]),
    OpCase("matmul-transpose_a", lambda a, b: ef.matmul(a, b, transpose_a=True),
           lambda a, b: _t(a) @ b, shapes=[(3, 2), (3, 4)]),
    OpCase("matmul-transpose_b", lambda a, b: ef.matmul(a, b, transpose_b=True),
           lambda a, b: a @ _t(b), shapes=[(2, 3), (4, 3)]),
    OpCase("matmul-transpose-both", lambda a, b: ef.matmul(a, b, transpose_a=True,
                                                           transpose_b=True),
           lambda a, b: _t(a) @ _t(b), shapes=[(3, 2), (4, 3)]),
    OpCase("matmul-adjoint", lambda a, b: ef.matmul(a, b, adjoint_a=True, adjoint_b=True),
           lambda a, b: _t(a) @ _t(b), shapes=[(3, 2), (4, 3)]),
    OpCase("matmul-batched", ef.matmul, np.matmul, shapes=[(2, 2, 3), (2, 3, 4)]),
    OpCase("matmul-broadcast-batch", ef.matmul, np.matmul, shapes=[(2, 1, 2, 3), (3, 3, 2)]),
    OpCase("matmul-batch-with-matrix", ef.matmul, np.matmul, shapes=[(2, 2, 3), (3, 4)]),
    OpCase("matmul-batched-transposes", lambda a, b: ef.matmul(a, b, transpose_a=True,
                                                               transpose_b=True),
           lambda a, b: _t(a) @ _t(b), shapes=[(2, 3, 2), (1, 4, 3)]),
    OpCase("matmul-operator", lambda a, b: a @ b, np.matmul, shapes=[(2, 3), (3, 2)]),
    # the fused dense-layer op (graph/passes/matmul_bias.py); relu: first order (its kink)
    OpCase("matmul_bias", linalg_ops.matmul_bias, lambda a, b, c: a @ b + c,
           shapes=[(3, 4), (4, 5), (5,)]),
    OpCase("matmul_bias-transposes-bias-2d",
           lambda a, b, c: linalg_ops.matmul_bias(a, b, c, transpose_a=True, transpose_b=True),
           lambda a, b, c: _t(a) @ _t(b) + c.reshape(-1), shapes=[(4, 3), (5, 4), (1, 5)]),
    OpCase("matmul_bias-relu", lambda a, b, c: linalg_ops.matmul_bias(a, b, c, relu=True),
           lambda a, b, c: np.maximum(a @ b + c, 0), shapes=[(3, 4), (4, 5), (5,)], order=1),
    OpCase("tensordot-1", lambda a, b: ef.tensordot(a, b, 1),
           lambda a, b: np.tensordot(a, b, 1), shapes=[(2, 3), (3, 4)]),
    OpCase("tensordot-2", lambda a, b: ef.tensordot(a, b, axes=2),
           lambda a, b: np.tensordot(a, b, 2), shapes=[(2, 3, 4), (3, 4, 2)]),
    OpCase("tensordot-0-outer", lambda a, b: ef.tensordot(a, b, 0),
           lambda a, b: np.tensordot(a, b, 0), shapes=[(2,), (3,)]),
    OpCase("tensordot-axis-lists", lambda a, b: ef.tensordot(a, b, [[0, 2], [-3, 2]]),
           lambda a, b: np.tensordot(a, b, [[0, 2], [0, 2]]), shapes=[(2, 3, 4), (2, 5, 4)]),
    OpCase("tensordot-swapped-axes", lambda a, b: ef.tensordot(a, b, [[2, 0], [0, 1]]),
           lambda a, b: np.tensordot(a, b, [[2, 0], [0, 1]]), shapes=[(2, 3, 4), (4, 2)]),
    OpCase("tensordot-int-pairs", lambda a, b: ef.tensordot(a, b, [1, 0]),
           lambda a, b: np.tensordot(a, b, [1, 0]), shapes=[(2, 3), (3, 2)]),
    # norms (random inputs keep away from the kinks of |x| and max)
    OpCase("norm-vector", ef.norm, np.linalg.norm, shapes=[(5,)]),
    OpCase("norm-whole-matrix", ef.norm, lambda x: np.linalg.norm(x.reshape(-1)),
           shapes=[(3, 4)]),
    OpCase("norm-axis1", lambda x: ef.norm(x, axis=1), lambda x: np.linalg.norm(x, axis=1),
           shapes=[(3, 4)]),
    OpCase("norm-axis0-keepdims", lambda x: ef.norm(x, axis=0, keepdims=True),
           lambda x: np.linalg.norm(x, axis=0, keepdims=True), shapes=[(3, 4)]),
    OpCase("norm-ord1", lambda x: ef.norm(x, ord=1, axis=-1),
           lambda x: _np_vector_norm(x, 1, -1), shapes=[(3, 4)]),
    OpCase("norm-ord2", lambda x: ef.norm(x, ord=2), lambda x: _np_vector_norm(x, 2),
           shapes=[(4,)]),
    OpCase("norm-ord-inf", lambda x: ef.norm(x, ord=np.inf, axis=1),
           lambda x: _np_vector_norm(x, np.inf, 1), shapes=[(3, 4)]),
    OpCase("norm-ord3", lambda x: ef.norm(x, ord=3), lambda x: _np_vector_norm(x, 3),
           shapes=[(5,)], domain=(0.3, 2.0)),
    OpCase("norm-ord-half", lambda x: ef.norm(x, ord=0.5), lambda x: _np_vector_norm(x, 0.5),
           shapes=[(5,)], domain=(0.3, 2.0)),
    OpCase("norm-fro", lambda x: ef.norm(x, ord="fro", axis=[0, 1]),
           lambda x: np.linalg.norm(x, "fro"), shapes=[(3, 4)]),
    OpCase("norm-matrix-1", lambda x: ef.norm(x, ord=1, axis=(0, 1)),
           lambda x: np.linalg.norm(x, 1), shapes=[(3, 4)]),
    OpCase("norm-matrix-inf", lambda x: ef.norm(x, ord=np.inf, axis=[-2, -1]),
           lambda x: np.linalg.norm(x, np.inf), shapes=[(3, 4)]),
    OpCase("norm-batched-matrix-1-keepdims",
           lambda x: ef.norm(x, ord=1, axis=[1, 2], keepdims=True),
           lambda x: np.linalg.norm(x, 1, axis=(1, 2), keepdims=True), shapes=[(2, 3, 4)]),
    # clipping by norm
    OpCase("clip_by_norm-clipped", lambda t: ef.clip_by_norm(t, 1.0),
           lambda t: _np_clip_by_norm(t, 1.0), shapes=[(3, 4)]),
    OpCase("clip_by_norm-unclipped", lambda t: ef.clip_by_norm(t, 100.0),
           lambda t: _np_clip_by_norm(t, 100.0), shapes=[(3, 4)]),
    OpCase("clip_by_norm-axes", lambda t: ef.clip_by_norm(t, 1.5, axes=[1]),
           lambda t: _np_clip_by_norm(t, 1.5, axes=1), shapes=[(3, 4)]),
    OpCase("clip_by_global_norm", lambda a, b: ef.clip_by_global_norm([a, b], 1.0)[0],
           lambda a, b: [a / max(1.0, np.sqrt(np.sum(a * a) + np.sum(b * b))),
                         b / max(1.0, np.sqrt(np.sum(a * a) + np.sum(b * b)))],
           shapes=[(3,), (2, 2)]),
    OpCase("global_norm", lambda a, b: ef.linalg.global_norm([a, None, b]),
           lambda a, b: np.sqrt(np.sum(a * a) + np.sum(b * b)), shapes=[(3,), (2, 2)]),
]


@parametrize(CASES)
def test_forward(case):
    check_forward(case)


@parametrize(CASES)
def test_gradient(case):
    check_gradient(case)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("relu", [False, True])
def test_matmul_bias_is_the_three_ops_bit_for_bit(dtype, relu):
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(7, 5)).astype(dtype), rng.normal(size=(5, 6)).astype(dtype)
    a[0, 0], a[1, :], b[2, 3] = np.nan, 0.0, np.inf  # NaN rows, -0.0 sums, inf and NaN
    bias = np.array([-0.0, 0.0, -1.0, 2.5, np.nan, -np.inf], dtype)
    want = ef.matmul(a, b) + bias
    if relu:
        want = ef.nn.relu(want)
    got = linalg_ops.matmul_bias(a, b, bias, relu=relu)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.numpy().view(f"u{a.itemsize}"),
                                  want.numpy().view(f"u{a.itemsize}"))  # (signs of 0, NaN)


def test_matmul_bias_names_bad_operands():
    ones = np.ones((2, 3), np.float32)
    for args in ((ones, ones.T, np.ones(3, np.float32)), (ones, ones.T.astype(np.float64),
                                                         np.ones(2, np.float32)),
                 (ones[0], ones.T, np.ones(2, np.float32)), (ones, ones.T, np.ones(2)),
                 (ones.astype(int), ones.T.astype(int), np.ones(2, int))):
        with pytest.raises(_E, match=r"bias of the product's row size.*Op:MatMulBias"):
            linalg_ops.matmul_bias(*args)
    with pytest.raises(_E, match="size-incompatible"):
        linalg_ops.matmul_bias(ones, ones, np.ones(3, np.float32))


@parametrize(CASES)
def test_jvp(case):
    check_forward_mode(case)


def test_seed_example_repr():
    assert repr(ef.matmul([[2.0]], [[2.0]])) == "ef.Tensor([[4.]], shape=(1, 1), dtype=float32)"


def test_integer_matmul():
    result = ef.matmul([[1, 2]], [[3], [4]])
    assert result.dtype == ef.int32 and result.numpy().tolist() == [[11]]


def test_matmul_gradient_only_for_what_is_asked():
    a, b = ef.constant(np.ones((2, 3))), ef.constant(np.ones((3, 4)))
    with ef.GradientTape() as tape:
        tape.watch(a)
        y = ef.matmul(a, b)
    np.testing.assert_array_equal(tape.gradient(y, a).numpy(), np.full((2, 3), 4.0))


def test_clip_by_norm_at_zero_has_a_finite_gradient():
    t = ef.constant([0.0, 0.0])
    with ef.GradientTape() as tape:
        tape.watch(t)
        y = ef.clip_by_norm(t, 1.0)
    grad = tape.gradient(y, t).numpy()
    assert np.isfinite(grad).all()
    assert ef.clip_by_norm(t, 1.0).numpy().tolist() == [0.0, 0.0]


def test_clip_by_global_norm_keeps_nones_and_dtypes():
    clipped, norm = ef.clip_by_global_norm([ef.constant([3.0]), None, ef.constant([4.0])], 1.0)
    assert clipped[1] is None
    assert float(norm) == 5.0
    np.testing.assert_allclose(clipped[0].numpy(), [0.6], rtol=1e-6)
    clipped, norm = ef.clip_by_global_norm(
        (ef.constant([3.0], ef.float64), ef.constant([4.0])), 10.0, use_norm=5.0)
    assert clipped[0].dtype == ef.float64 and clipped[1].dtype == ef.float32
    assert clipped[0].numpy().tolist() == [3.0]


# -- bad input ----------------------------------------------------------------------------
def test_matmul_size_mismatch():
    with pytest.raises(_E, match=r"^Matrix size-incompatible: In\[0\]: \[2, 3\], In\[1\]: "
                                 r"\[4, 5\] \[Op:BatchMatMulV2\]$"):
        ef.matmul(ef.ones([2, 3]), ef.ones([4, 5]))
    with pytest.raises(_E, match=r"In\[0\]: \[3, 2\], In\[1\]: \[4, 3\] \[Op:BatchMatMulV2\]"):
        ef.matmul(ef.ones([2, 3]), ef.ones([4, 3]), transpose_a=True)
    with pytest.raises(_E, match=r"In\[0\]: \[2, 2, 3\], In\[1\]: \[3, 3, 5\]"):
        ef.matmul(ef.ones([2, 2, 3]), ef.ones([3, 3, 5]))  # batch dimensions disagree


def test_matmul_needs_rank_2():
    with pytest.raises(_E, match=r"In\[0\] and In\[1\] must have rank >= 2, got shapes \(3,\) "
                                 r"and \(3, 5\) \[Op:BatchMatMulV2\]"):
        ef.matmul(ef.ones([3]), ef.ones([3, 5]))
    with pytest.raises(_E, match=r"must have rank >= 2, got shapes \(3,\) and \(3,\)"):
        ef.matmul(ef.ones([3]), ef.ones([3]))
    with pytest.raises(_E, match=r"must have rank >= 2, got shapes \(2, 3\) and \(3,\)"):
        ef.ones([2, 3]) @ ef.ones([3])


def test_tensordot_bad_axes():
    with pytest.raises(_E, match=r"axes=3 must be in \[0, 2\] for shapes \(2, 3\) and \(4, 5\) "
                                 r"\[Op:Tensordot\]"):
        ef.tensordot(ef.zeros([2, 3]), ef.zeros([4, 5]), 3)
    with pytest.raises(_E, match=r"axes=-1 must be in"):
        ef.tensordot(ef.zeros([2, 3]), ef.zeros([4, 5]), -1)
    with pytest.raises(_E, match=r"Cannot contract axes \[1\] of shape \(2, 3\) with axes \[0\] "
                                 r"of shape \(4, 5\) \[Op:Tensordot\]"):
        ef.tensordot(ef.zeros([2, 3]), ef.zeros([4, 5]), 1)
    with pytest.raises(_E, match=r"Cannot contract axes \[0, 1\] .* axes \[0\]"):
        ef.tensordot(ef.zeros([2, 3]), ef.zeros([2, 5]), [[0, 1], [0]])
    with pytest.raises(_E, match=r"axes \[\[5\], \[0\]\] are out of range for shapes \(2, 3\) "
                                 r"and \(3, 5\) \[Op:Tensordot\]"):
        ef.tensordot(ef.zeros([2, 3]), ef.zeros([3, 5]), [[5], [0]])
    with pytest.raises(_E, match=r"axes \[\[1\], \[-3\]\] are out of range"):
        ef.tensordot(ef.zeros([2, 3]), ef.zeros([3, 5]), [[1], [-3]])


def test_norm_unsupported_orders():
    with pytest.raises(_E, match=r"Unsupported vector norm ord=-1: use 'euclidean', 1, 2, "
                                 r"np\.inf or a p > 0 \[Op:Norm\]"):
        ef.norm([1.0], ord=-1)
    with pytest.raises(_E, match=r"Unsupported vector norm ord='nuc'"):
        ef.norm([1.0], ord="nuc")
    with pytest.raises(_E, match=r"Unsupported matrix norm ord=3: use 'fro', 'euclidean', 1 or "
                                 r"np\.inf \[Op:Norm\]"):
        ef.norm([[1.0]], ord=3, axis=[0, 1])


def test_norm_bad_axes():
    with pytest.raises(_E, match=r"axis \[0, 5\] must be two distinct axes of a tensor of rank 2 "
                                 r"\(shape \(2, 3\)\) \[Op:Norm\]"):
        ef.norm(ef.zeros([2, 3]), axis=[0, 5])
    with pytest.raises(_E, match=r"axis \[1, -1\] must be two distinct axes"):
        ef.norm(ef.zeros([2, 3]), ord=1, axis=[1, -1])
    with pytest.raises(_E, match=r"Invalid reduction dimension 2 .*\[Op:Sum\]"):
        ef.norm(ef.zeros([2, 3]), axis=2)


def test_global_norm_of_nothing():
    with pytest.raises(_E, match=r"global_norm of a list with no tensors \[Op:GlobalNorm\]"):
        ef.linalg.global_norm([None])
    with pytest.raises(_E, match=r"global_norm of a list with no tensors"):
        ef.clip_by_global_norm([None], 1.0)


def test_clip_by_global_norm_needs_a_list():
    with pytest.raises(TypeError, match=r"t_list must be a list or tuple of tensors, got Tensor"):
        ef.clip_by_global_norm(ef.zeros([2]), 1.0)
    with pytest.raises(TypeError, match=r"got str"):
        ef.clip_by_global_norm("ab", 1.0)


def test_matmul_sum_is_the_product_and_the_sum_bit_for_bit():
    # the fused form of a dense layer's kernel and bias gradients (made by
    # graph/passes/matmul_bias.py, never by a tape: the op has no gradient)
    from eagerflow.core import dispatch

    rng = np.random.default_rng(1)
    a = rng.normal(size=(12, 5)).astype(np.float32)
    d = rng.normal(size=(3, 4, 2, 3)).astype(np.float32)
    rows = d.reshape(12, 6)
    product, total = dispatch.execute(dispatch.OPS["MatMulSum"], (a, rows, d), {"axis": (0, 1)})
    np.testing.assert_array_equal(product.numpy(), ef.matmul(a, rows, transpose_a=True))
    np.testing.assert_array_equal(total.numpy(), ef.reduce_sum(d, axis=[0, 1]))
    assert total.shape == (2, 3) and not dispatch.OPS["MatMulSum"].differentiable
