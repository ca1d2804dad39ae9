"""relu, softmax family, bias_add, dropout, embedding_lookup, l2_loss."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core.dispatch import execute
from eagerflow.ops import nn_ops
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


_NOISE = np.random.default_rng(5).uniform(size=(3, 4))
_TABLE = np.random.default_rng(6).uniform(-1, 1, size=(5, 3))
_IDS = np.array([[4, 0], [4, 2]])

CASES = [
    OpCase("relu", ef.nn.relu, lambda x: np.maximum(x, 0), shapes=[(3, 4)]),
    OpCase("softmax", ef.nn.softmax, np_softmax, shapes=[(3, 4)]),
    OpCase("softmax_axis0", lambda x: ef.nn.softmax(x, axis=0), lambda x: np_softmax(x, 0),
           shapes=[(3, 4)]),
    OpCase("log_softmax", ef.nn.log_softmax, lambda x: np.log(np_softmax(x)), shapes=[(3, 4)]),
    OpCase("softmax_3d", ef.nn.softmax, np_softmax, shapes=[(2, 3, 5)]),
    OpCase("log_softmax_axis0", lambda x: ef.nn.log_softmax(x, axis=0),
           lambda x: np.log(np_softmax(x, 0)), shapes=[(3, 4)]),
    # The fused gradient ops on their own (y any array here: the formulas hold for all y).
    OpCase("softmax_grad", lambda y, dy: execute(nn_ops._softmax_backward, (y, dy), {"axis": 1}),
           lambda y, dy: y * (dy - (dy * y).sum(1, keepdims=True)), shapes=[(3, 4), (3, 4)]),
    OpCase("log_softmax_grad",
           lambda y, dy: execute(nn_ops._log_softmax_backward, (y, dy), {"axis": 0}),
           lambda y, dy: dy - np.exp(y) * dy.sum(0, keepdims=True), shapes=[(3, 4), (3, 4)]),
    OpCase("bias_add", ef.nn.bias_add, lambda x, b: x + b, shapes=[(2, 3, 4), (4,)]),
    OpCase("bias_add_nchw", lambda x, b: ef.nn.bias_add(x, b, data_format="NCHW"),
           lambda x, b: x + b[:, None, None], shapes=[(2, 3, 4, 5), (3,)]),
    # The bias gradient itself (wide-row sums for channels last; its gradient broadcasts).
    OpCase("bias_add_grad", lambda dy: execute(nn_ops._bias_add_backprop, (dy,),
                                               {"channel_axis": 3}),
           lambda dy: dy.sum(axis=(0, 1, 2)), shapes=[(2, 3, 4, 5)]),
    OpCase("bias_add_grad_rank2", lambda dy: execute(nn_ops._bias_add_backprop, (dy,),
                                                     {"channel_axis": 1}),
           lambda dy: dy.sum(axis=0), shapes=[(6, 3)]),
    OpCase("bias_add_grad_nchw", lambda dy: execute(nn_ops._bias_add_backprop, (dy,),
                                                    {"channel_axis": 1}),
           lambda dy: dy.sum(axis=(0, 2, 3)), shapes=[(2, 3, 4, 5)]),
    # The Dropout primitive itself with a fixed mask (ef.nn.dropout draws a new one per call).
    OpCase("dropout_mask", lambda x: execute(nn_ops._dropout, (x, ef.constant(_NOISE, x.dtype)),
                                             {"rate": 0.4}),
           lambda x: np.where(_NOISE >= 0.4, x / 0.6, 0.0), shapes=[(3, 4)]),
    OpCase("embedding_lookup", lambda t, ids: ef.nn.embedding_lookup(t, ids),
           lambda t, ids: t[ids], inputs=[_TABLE, _IDS]),
    OpCase("embedding_lookup_max_norm",
           lambda t, ids: ef.nn.embedding_lookup(t, ids, max_norm=0.5),
           lambda t, ids: t[ids] * np.minimum(1, 0.5 / np.linalg.norm(t[ids], axis=-1,
                                                                     keepdims=True)),
           inputs=[_TABLE * 3, _IDS]),
    OpCase("l2_loss", ef.nn.l2_loss, lambda x: 0.5 * np.sum(x * x), shapes=[(3, 4)]),
    # Ops of the nn issue that live in the core modules (reduce.py, linalg.py, indexing.py).
    OpCase("top_k", lambda x: ef.math.top_k(x, 2)[0], lambda x: -np.sort(-x, axis=-1)[:, :2],
           shapes=[(3, 5)]),
    OpCase("clip_by_norm", lambda x: ef.clip_by_norm(x, 1.0, axes=[1]),
           lambda x: x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1.0),
           shapes=[(3, 4)]),
    OpCase("clip_by_global_norm", lambda a, b: ef.clip_by_global_norm([a, b], 1.5)[0],
           lambda a, b: [v * 1.5 / max(np.sqrt(np.sum(a * a) + np.sum(b * b)), 1.5)
                         for v in (a, b)], shapes=[(3, 2), (4,)]),
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


def test_one_hot_of_labels():
    np.testing.assert_array_equal(ef.one_hot([0, 3, 1], 4).numpy(), np.eye(4)[[0, 3, 1]])


# -- dropout ------------------------------------------------------------------------------
def test_dropout_drops_about_rate_and_scales_the_rest():
    y = ef.nn.dropout(ef.ones([200, 100]), rate=0.3, seed=7).numpy()
    kept = y != 0
    assert abs(kept.mean() - 0.7) < 0.01
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    assert abs(y.mean() - 1.0) < 0.02  # inverted dropout keeps the expectation


def test_dropout_gradient_uses_the_same_mask():
    x = ef.constant(np.arange(1.0, 101.0))
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.nn.dropout(x, 0.5, seed=3)
    grad = tape.gradient(y, x).numpy()
    np.testing.assert_allclose(grad, np.where(y.numpy() != 0, 2.0, 0.0))


def test_dropout_is_reproducible_with_seeds():
    ef.random.set_seed(11)
    first = [ef.nn.dropout(ef.ones([50]), 0.5, seed=1).numpy() for _ in range(2)]
    ef.random.set_seed(11)
    second = [ef.nn.dropout(ef.ones([50]), 0.5, seed=1).numpy() for _ in range(2)]
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert not np.array_equal(first[0], first[1])  # each call draws a new mask


def test_dropout_noise_shape_drops_whole_slices():
    y = ef.nn.dropout(ef.ones([4, 6, 8]), 0.5, noise_shape=[None, 1, 8], seed=2).numpy()
    assert (y == y[:, :1, :]).all()
    assert y.dtype == np.float32


def test_dropout_rate_zero_is_identity():
    x = ef.constant([1.0, 2.0])
    assert ef.nn.dropout(x, 0.0) is x


# -- bias_add and embedding_lookup --------------------------------------------------------
@pytest.mark.parametrize("shape", [(2, 3, 0, 4), (0, 3, 2, 4), (2, 0, 2, 4), (2, 5, 3, 4)])
def test_bias_add_and_its_gradient_on_empty_and_wide_batches(shape):
    x = ef.Variable(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))
    b = ef.Variable(np.array([1.0, -2.0, 3.0, -4.0], np.float32))
    with ef.GradientTape() as tape:
        y = ef.nn.bias_add(x, b)
    np.testing.assert_array_equal(y.numpy(), x.numpy() + b.numpy())
    np.testing.assert_array_equal(tape.gradient(y, b).numpy(),
                                  np.full(4, np.prod(shape[:-1]), np.float32))


def test_bias_add_gradient_sums_over_non_channel_axes():
    x, b = ef.ones([2, 3, 4]), ef.constant([1.0, 2.0, 3.0, 4.0])
    with ef.GradientTape() as tape:
        tape.watch(b)
        y = ef.nn.bias_add(x, b)
    np.testing.assert_array_equal(tape.gradient(y, b).numpy(), [6.0] * 4)


def test_embedding_lookup_of_shards_matches_the_full_table():
    full = ef.nn.embedding_lookup(_TABLE, _IDS)
    sharded = ef.nn.embedding_lookup([_TABLE[:2], _TABLE[2:4], _TABLE[4:]], _IDS)
    np.testing.assert_array_equal(full.numpy(), sharded.numpy())
    assert ef.nn.embedding_lookup([_TABLE], [1]).shape == (1, 3)


@pytest.mark.parametrize("call, match", [
    (lambda: ef.nn.bias_add(ef.ones([2, 4]), ef.ones([3])),
     r"as many biases as the channel dimension .* bias shape \(3,\) vs. value shape \(2, 4\)"),
    (lambda: ef.nn.bias_add(ef.ones([4]), ef.ones([4])), r"value shape \(4,\)"),
    (lambda: ef.nn.bias_add(ef.ones([2, 4]), ef.ones([2, 4])), r"bias shape \(2, 4\)"),
    (lambda: ef.nn.bias_add(ef.ones([2, 4]), ef.ones([4]), data_format="HWC"),
     "data_format must be None, 'N...C' or 'NC...'"),
    (lambda: ef.nn.dropout(ef.ones([3]), 1.0), r"rate must be .* in the range \[0, 1\), got 1.0"),
    (lambda: ef.nn.dropout(ef.ones([3]), -0.1), r"range \[0, 1\), got -0.1"),
    (lambda: ef.nn.dropout(ef.ones([3], ef.int32), 0.5),
     "x has to be a floating point tensor since it's going to be scaled. Got a int32"),
    (lambda: ef.nn.dropout(ef.ones([3, 4]), 0.5, noise_shape=[3, 2]),
     r"noise_shape \[3, 2\] must have the rank of x .* x has shape \(3, 4\)"),
    (lambda: ef.nn.dropout(ef.ones([3, 4]), 0.5, noise_shape=[4]), "must have the rank of x"),
    (lambda: ef.nn.embedding_lookup(_TABLE, [[5]]),
     r"indices\[0, 0\] = 5 is not in \[0, 5\) \[Op:Gather\]"),
    (lambda: ef.nn.embedding_lookup(_TABLE, [0.5]), "indices must be an integer tensor"),
    (lambda: ef.nn.embedding_lookup([], [0]), "params must not be an empty list"),
])
def test_errors(call, match):
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        call()
