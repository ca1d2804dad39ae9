"""Cross-entropies: forward against NumPy, gradients, stability at +-1000, errors."""

import warnings

import numpy as np
import pytest

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize


def np_log_softmax(z, axis=-1):
    shifted = z - z.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def np_sparse(labels, logits):
    return -np.take_along_axis(np_log_softmax(logits), labels[..., None], -1)[..., 0]


def np_sigmoid_xent(labels, logits):
    return np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))


_rng = np.random.default_rng(3)
_LABELS = _rng.integers(0, 5, size=(2, 3))
_LOGITS = _rng.uniform(-3, 3, size=(2, 3, 5))

CASES = [
    OpCase("softmax_cross_entropy", ef.nn.softmax_cross_entropy_with_logits,
           lambda p, z: -(p * np_log_softmax(z)).sum(-1), shapes=[(3, 4), (3, 4)],
           domain=(0.0, 2.0)),
    OpCase("softmax_cross_entropy_axis0",
           lambda p, z: ef.nn.softmax_cross_entropy_with_logits(p, z, axis=0),
           lambda p, z: -(p * np_log_softmax(z, 0)).sum(0), shapes=[(4, 3), (4, 3)],
           domain=(0.0, 2.0)),
    # Logits first: the table helper takes the output dtype from the first input.
    OpCase("sparse_softmax_cross_entropy",
           lambda z, y: ef.nn.sparse_softmax_cross_entropy_with_logits(y, z),
           lambda z, y: np_sparse(y, z), inputs=[_LOGITS, _LABELS]),
    OpCase("sigmoid_cross_entropy", ef.nn.sigmoid_cross_entropy_with_logits, np_sigmoid_xent,
           shapes=[(3, 4), (3, 4)], domain=(-3.0, 3.0)),
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


def _loss_and_grad(fn, labels, logits):
    logits = ef.constant(logits)
    with ef.GradientTape() as tape:
        tape.watch(logits)
        loss = fn(labels, logits)
    return loss.numpy(), tape.gradient(loss, logits).numpy()


def test_stable_for_logits_of_plus_minus_1000():
    logits = np.array([[1000.0, -1000.0, 0.0], [-1000.0, -1000.0, -1000.0]], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss, grad = _loss_and_grad(ef.nn.softmax_cross_entropy_with_logits,
                                    np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], np.float32),
                                    logits)
        np.testing.assert_allclose(loss, [2000.0, np.log(3)], rtol=1e-6)
        np.testing.assert_allclose(grad, [[1, -1, 0], [1 / 3 - 1, 1 / 3, 1 / 3]], atol=1e-6)
        loss, grad = _loss_and_grad(ef.nn.sparse_softmax_cross_entropy_with_logits,
                                    np.array([0, 2]), logits)
        np.testing.assert_allclose(loss, [0.0, np.log(3)], rtol=1e-6)
        assert not np.signbit(loss[0])
        loss, grad = _loss_and_grad(ef.nn.sigmoid_cross_entropy_with_logits,
                                    np.array([[1.0, 1.0, 0.0]] * 2, np.float32), logits)
        np.testing.assert_allclose(loss[0], [0.0, 1000.0, np.log(2)], rtol=1e-6)
        np.testing.assert_allclose(grad[0], [0.0, -1.0, 0.5], atol=1e-6)
        assert np.isfinite(loss).all() and np.isfinite(grad).all()


def test_labels_not_summing_to_one_get_the_exact_gradient():
    # d/dz [lse(z) * sum(p) - p.z] = softmax(z) * sum(p) - p (TF returns softmax(z) - p).
    labels = np.array([[2.0, 1.0]])
    _, grad = _loss_and_grad(ef.nn.softmax_cross_entropy_with_logits, labels,
                             np.array([[0.0, 0.0]]))
    np.testing.assert_allclose(grad, [[0.5 * 3 - 2, 0.5 * 3 - 1]])


def test_integer_one_hot_labels_are_cast():
    loss = ef.nn.softmax_cross_entropy_with_logits(np.array([[0, 1]]), [[0.0, 0.0]])
    assert loss.dtype == np.float32
    np.testing.assert_allclose(loss.numpy(), [np.log(2)], rtol=1e-6)


@pytest.mark.parametrize("call, match", [
    (lambda: ef.nn.sparse_softmax_cross_entropy_with_logits([0, 3], [[0.0] * 3] * 2),
     r"Received a label value of 3 which is outside the valid range of \[0, 3\)\.  Label "
     r"values: 0 3 \[Op:SparseSoftmaxCrossEntropyWithLogits\]"),
    (lambda: ef.nn.sparse_softmax_cross_entropy_with_logits([-1], [[0.0] * 3]),
     r"Received a label value of -1 which is outside"),
    (lambda: ef.nn.sparse_softmax_cross_entropy_with_logits(list(range(30)), [[0.0] * 3] * 30),
     r"Label values: 0 1 2 .* 19 \.\.\."),
    (lambda: ef.nn.sparse_softmax_cross_entropy_with_logits([0, 1], [[0.0] * 3]),
     r"received labels shape \(2,\) and logits shape \(1, 3\)"),
    (lambda: ef.nn.sparse_softmax_cross_entropy_with_logits([0.0], [[0.0] * 3]),
     "labels must be integer class indices, got dtype float32"),
    (lambda: ef.nn.sparse_softmax_cross_entropy_with_logits([0], [[1, 2]]),
     "logits must be floating-point, got dtype int32"),
    (lambda: ef.nn.softmax_cross_entropy_with_logits([[0.5, 0.5]], [[0.0, 0.0, 0.0]]),
     r"same shape: logits \(1, 3\) vs. labels \(1, 2\)"),
    (lambda: ef.nn.softmax_cross_entropy_with_logits(np.array([["a", "b"]]), [[0.0, 0.0]]),
     "labels must be numeric, got dtype str"),
    (lambda: ef.nn.softmax_cross_entropy_with_logits([[1.0]], [[0.0]], axis=2),
     r"axis 2 is out of bounds for logits of shape \(1, 1\)"),
    (lambda: ef.nn.softmax_cross_entropy_with_logits(1.0, 0.0),
     "logits must have at least one dimension"),
    (lambda: ef.nn.sigmoid_cross_entropy_with_logits(logits=[0.0]),
     "both labels and logits are required"),
])
def test_errors(call, match):
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        call()


# -- the fused sparse softmax cross-entropy kernel ------------------------------------------
def _sparse_reference(labels, logits, dy):
    shifted = logits - logits.max(-1, keepdims=True)
    softmax = np.exp(shifted) / np.exp(shifted).sum(-1, keepdims=True)
    onehot = np.eye(logits.shape[-1])[labels]
    return -np.log((softmax * onehot).sum(-1)), dy[..., None] * (softmax - onehot)


def _count_softmaxes(monkeypatch, name):
    """Records the `want_softmax` argument of each call of ``cross_entropy.<name>``."""
    from eagerflow.ops import cross_entropy

    calls = []
    original = getattr(cross_entropy, name)

    def counting(labels, logits, want_softmax):
        calls.append(want_softmax)
        return original(labels, logits, want_softmax)

    monkeypatch.setattr(cross_entropy, name, counting)
    return calls


@pytest.fixture
def softmax_passes(monkeypatch):
    """Counts the softmax computations of the sparse cross-entropy kernels."""
    return _count_softmaxes(monkeypatch, "_sparse_softmax")


@pytest.mark.parametrize("traced", [False, True])
def test_sparse_kernel_computes_one_softmax_per_step(softmax_passes, traced):
    rng = np.random.default_rng(0)
    logits = ef.constant(rng.normal(size=(4, 3, 6)).astype(np.float32))
    labels = ef.constant(rng.integers(0, 6, size=(4, 3)))
    weights = ef.constant(rng.uniform(size=(4, 3)).astype(np.float32))

    def step(labels, logits):
        with ef.GradientTape() as tape:
            tape.watch(logits)
            loss = ef.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
            total = ef.reduce_sum(loss * weights)
        return loss, tape.gradient(total, logits)

    fn = ef.function(step) if traced else step
    if traced:
        fn(labels, logits)  # the traced run
        types = [n.type for n in fn.get_concrete_function(labels, logits).optimized_graph.nodes]
        assert "OneHot" not in types and "Softmax" not in types
        softmax_passes.clear()
    loss, grad = fn(labels, logits)
    assert softmax_passes == [True]  # the forward's; the gradient took it
    want_loss, want_grad = _sparse_reference(labels.numpy(), logits.numpy().astype(np.float64),
                                             weights.numpy())
    np.testing.assert_allclose(loss.numpy(), want_loss, rtol=1e-5)
    np.testing.assert_allclose(grad.numpy(), want_grad, rtol=1e-5, atol=1e-7)


def test_sparse_kernel_without_a_tape_keeps_nothing_and_recomputes_when_needed(softmax_passes):
    from eagerflow.core import dispatch

    logits = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 5.0]])
    labels = np.array([2, 0])
    loss = ef.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
    assert softmax_passes == [False]  # no tape: the loss only
    dy = np.array([1.0, 0.5])
    grad = dispatch.execute(dispatch.OPS["SparseSoftmaxCrossEntropyWithLogitsGrad"],
                            (ef.constant(dy), loss, ef.constant(labels), ef.constant(logits)))
    assert softmax_passes == [False, True]  # nothing saved: recomputed
    np.testing.assert_allclose(grad.numpy(), _sparse_reference(labels, logits, dy)[1])


@pytest.mark.parametrize("traced", [False, True])
def test_sparse_categorical_crossentropy_from_logits_gradients(traced):
    rng = np.random.default_rng(1)
    labels = ef.constant(rng.integers(0, 4, size=(3,)))

    def loss_fn(logits):
        return ef.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True)

    fn = ef.function(loss_fn) if traced else loss_fn
    ef.testing.check_gradients(fn, rng.normal(size=(3, 4)), order=2)
    # and the direct op, with a scalar label (0-d loss)
    ef.testing.check_gradients(
        lambda z: ef.nn.sparse_softmax_cross_entropy_with_logits(ef.constant(2), z),
        rng.normal(size=(5,)), order=2)


# -- the fused softmax cross-entropy gradient (dense labels) --------------------------------
def _dense_reference(labels, logits, dy):
    shifted = logits - logits.max(-1, keepdims=True)
    softmax = np.exp(shifted) / np.exp(shifted).sum(-1, keepdims=True)
    loss = -(labels * np.log(softmax)).sum(-1)
    return loss, dy[..., None] * (softmax * labels.sum(-1, keepdims=True) - labels)


@pytest.fixture
def dense_softmax_passes(monkeypatch):
    """Counts the softmax computations of the dense cross-entropy kernels."""
    return _count_softmaxes(monkeypatch, "_softmax_xent_parts")


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("distributions", [True, False])
def test_dense_kernel_computes_one_softmax_per_step(dense_softmax_passes, traced,
                                                    distributions):
    rng = np.random.default_rng(0)
    logits = ef.constant(rng.normal(size=(4, 3, 6)).astype(np.float32))
    labels = rng.uniform(size=(4, 3, 6)).astype(np.float32)
    if distributions:  # rows summing to 1 (the multiply by the sums is skipped)
        labels /= labels.sum(-1, keepdims=True)
    labels = ef.constant(labels)
    weights = ef.constant(rng.uniform(size=(4, 3)).astype(np.float32))

    def step(labels, logits):
        with ef.GradientTape() as tape:
            tape.watch(logits)
            loss = ef.nn.softmax_cross_entropy_with_logits(labels, logits)
            total = ef.reduce_sum(loss * weights)
        return loss, tape.gradient(total, logits)

    fn = ef.function(step) if traced else step
    if traced:
        fn(labels, logits)  # the traced run
        types = [n.type for n in fn.get_concrete_function(labels, logits).optimized_graph.nodes]
        assert "Softmax" not in types and "SoftmaxCrossEntropyWithLogitsGrad" in types
        dense_softmax_passes.clear()
    loss, grad = fn(labels, logits)
    assert dense_softmax_passes == [True]  # the forward's; the gradient took it
    want_loss, want_grad = _dense_reference(labels.numpy().astype(np.float64),
                                            logits.numpy().astype(np.float64), weights.numpy())
    np.testing.assert_allclose(loss.numpy(), want_loss, rtol=1e-5)
    np.testing.assert_allclose(grad.numpy(), want_grad, rtol=1e-5, atol=1e-7)


def test_dense_kernel_without_a_tape_keeps_nothing_and_recomputes_when_needed(
        dense_softmax_passes):
    from eagerflow.core import dispatch

    logits = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 5.0]])
    labels = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 1.0]])
    loss = ef.nn.softmax_cross_entropy_with_logits(labels, logits)
    assert dense_softmax_passes == [False]  # no tape: the loss only
    dy = np.array([1.0, 0.5])
    grad = dispatch.execute(dispatch.OPS["SoftmaxCrossEntropyWithLogitsGrad"],
                            (ef.constant(dy), loss, ef.constant(labels), ef.constant(logits)))
    assert dense_softmax_passes == [False, True]  # nothing saved: recomputed
    np.testing.assert_allclose(grad.numpy(), _dense_reference(labels, logits, dy)[1])


@pytest.mark.parametrize("traced", [False, True])
def test_dense_cross_entropy_gradients_to_second_order(traced):
    rng = np.random.default_rng(2)
    labels = ef.constant(rng.uniform(size=(3, 4)))

    def loss_fn(logits):
        return ef.nn.softmax_cross_entropy_with_logits(labels, logits)

    fn = ef.function(loss_fn) if traced else loss_fn
    ef.testing.check_gradients(fn, rng.normal(size=(3, 4)), order=2)
    # with respect to the labels too, and one row (a 0-d loss)
    ef.testing.check_gradients(ef.nn.softmax_cross_entropy_with_logits,
                               rng.uniform(size=(5,)), rng.normal(size=(5,)), order=2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(6, 10), (2, 3, 7), (5,)])
@pytest.mark.parametrize("distributions", [True, False])
def test_dense_numba_gradient_kernel_matches_the_numpy_one(dtype, shape, distributions):
    pytest.importorskip("numba")
    from eagerflow.ops.kernels import kernel_sets

    rng = np.random.default_rng(4)
    logits = rng.normal(size=shape).astype(dtype)
    labels = rng.uniform(size=shape).astype(dtype)
    if distributions:
        labels /= labels.sum(-1, keepdims=True)
    dy = rng.uniform(size=shape[:-1]).astype(dtype)
    loss = np.asarray(kernel_sets.numpy_forward("SoftmaxCrossEntropyWithLogits")(labels, logits))
    name = "SoftmaxCrossEntropyWithLogitsGrad"  # (nothing saved: each recomputes the softmax)
    want = kernel_sets.numpy_forward(name)(dy, loss, labels, logits)
    got = kernel_sets.kernel_forward(name)(dy, loss, labels, logits)
    assert got.dtype == dtype and got.shape == shape
    tol = 1e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    np.testing.assert_allclose(got, _dense_reference(labels.astype(np.float64),
                                                     logits.astype(np.float64), dy)[1],
                               rtol=1e-5 if dtype == np.float32 else 1e-12, atol=tol)
